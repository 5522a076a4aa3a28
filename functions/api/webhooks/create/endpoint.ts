import { Id, Label, SafeText } from '../../../models/common';
import { SUBSCRIBABLE_EVENTS } from '../../../models/event-catalog';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { CreatedWebhook, webhookChangeEndpoint } from '../schemas';

export const createWebhook = /* @__PURE__ */ webhookChangeEndpoint('POST /webhooks', {
  operationId: 'createWebhook',
  module: import.meta.url,
  summary: 'Register a URL for events of some DCs; the answer carries the signing secret, once',
  access: { table: 'readWrite', webhookSecrets: 'encrypt' },
  request: {
    body: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.object({
        webhook_url: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ SafeText({ max: 2048 }), {
          description: 'a fully formed http or https URL, without credentials',
        }),
        events: /* @__PURE__ */ z.withMeta(
          /* @__PURE__ */ z
            .array(
              // Documented as the catalog's enum; checked by the use case, which answers 4002 for another.
              /* @__PURE__ */ z.withMeta(/* @__PURE__ */ Label(64), { enum: [...SUBSCRIBABLE_EVENTS] }),
            )
            .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ z.maxLength(20)),
          {
            description:
              'event types (the event catalog: see the `webhooks` section for each body); another type is refused with 4002',
          },
        ),
        dc_ids: /* @__PURE__ */ z
          .array(Id)
          .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ z.maxLength(1000)),
      }),
      { id: 'CreateWebhookRequest' },
    ),
  },
  responses:
    import.meta.responseSchemas !== false && ok('the created webhook', z.object({ webhook: CreatedWebhook })),
  // 4004: the account's webhook limit (20 by default); 4005: the URL already gets one of these event types.
  errorCodes: [4001, 4002, 4003, 4004, 4005],
});
