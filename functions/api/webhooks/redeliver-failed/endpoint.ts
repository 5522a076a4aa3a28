import * as channels from '../../../models/channels';
import { EpochMillis, NextToken } from '../../../models/common';
import { MAX_DELIVERIES_EXAMINED_PER_CALL, MAX_REDELIVERIES_PER_CALL } from '../../../shared/limits';
import * as z from '../../../shared/zod';

import { OUTBOUND_THROTTLING, Redelivery, WebhookParams, webhookChangeEndpoint } from '../schemas';

export const redeliverFailedWebhookDeliveries = /* @__PURE__ */ webhookChangeEndpoint(
  'POST /webhooks/{id}/redeliver',
  {
    operationId: 'redeliverFailedWebhookDeliveries',
    module: import.meta.url,
    summary: 'Send again every failed delivery whose first attempt was in a time window',
    description: `Oldest first, at most \`limit\` (up to ${MAX_REDELIVERIES_PER_CALL}) deliveries a call, and at most ${MAX_DELIVERIES_EXAMINED_PER_CALL} deliveries of the window read: \`next_token\` is present while the window may hold more; send the same body with it. A delivery whose redelivery is pending or succeeded is not queued again, so repeating a call sends nothing twice; one whose redelivery failed is.`,
    access: { table: 'readWrite', sendTo: [channels.deliveries] },
    throttling: OUTBOUND_THROTTLING,
    request: {
      params: WebhookParams,
      body: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z
          .strictObject({
            since: /* @__PURE__ */ z.withMeta(EpochMillis, {
              description: 'first attempts at or after this time (epoch ms)',
            }),
            until: /* @__PURE__ */ z.withMeta(EpochMillis, {
              description: 'first attempts at or before this time (epoch ms)',
            }),
            status: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['FAILED']), {
              description: 'which deliveries: FAILED ones (given up or dropped)',
            }),
            limit: /* @__PURE__ */ z.withMeta(
              /* @__PURE__ */ z._default(
                /* @__PURE__ */ z
                  .number()
                  .check(
                    /* @__PURE__ */ z.int(),
                    /* @__PURE__ */ z.minimum(1),
                    /* @__PURE__ */ z.maximum(MAX_REDELIVERIES_PER_CALL),
                  ),
                MAX_REDELIVERIES_PER_CALL,
              ),
              { description: `most deliveries queued by this call, 1..${MAX_REDELIVERIES_PER_CALL}` },
            ),
            next_token: /* @__PURE__ */ z.withMeta(
              /* @__PURE__ */ z.optional(
                /* @__PURE__ */ z
                  .string()
                  .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ z.maxLength(2048)),
              ),
              {
                description: 'the `next_token` of the previous call for the same window',
              },
            ),
          })
          .check(
            /* @__PURE__ */ z.refine((body) => body.since <= body.until, {
              path: ['until'],
              message: 'is before since',
            }),
          ),
        { id: 'RedeliverFailedRequest' },
      ),
    },
    responses: import.meta.responseSchemas !== false && {
      202: {
        description: 'queued',
        data: /* @__PURE__ */ z.object({
          redeliveries: /* @__PURE__ */ z.array(Redelivery),
          next_token: NextToken,
        }),
      },
    },
    errorCodes: [1003, 4011],
  },
);
