import { EpochMillis, Id, MAX_PAGE_ROWS, type PageSize } from '../../models/common';
import { SUBSCRIBABLE_EVENTS } from '../../models/event-catalog';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const TAG = 'Webhooks';

export const WebhookParams = /* @__PURE__ */ z.object({ id: Id });

/** What the rows about one webhook share: its params, and 1003 when it is missing. */
const ONE_WEBHOOK = { tag: TAG, request: { params: WebhookParams }, errorCodes: [1003] };

/** The webhooks' rows: about one webhook, an API key's and read-only unless the row says otherwise. */
export const webhooksEndpoint = /* @__PURE__ */ endpointGroup(ONE_WEBHOOK);

/** Rows that change a webhook: they also write the table. */
export const webhookChangeEndpoint = /* @__PURE__ */ endpointGroup({
  ...ONE_WEBHOOK,
  access: { table: 'readWrite' },
});

export const Webhook = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    url: /* @__PURE__ */ z.string(),
    enabled: /* @__PURE__ */ z.boolean(),
    dc_ids: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    events: /* @__PURE__ */ z.array(/* @__PURE__ */ z.enum(SUBSCRIBABLE_EVENTS)),
  }),
  { id: 'Webhook' },
);

export const SECRET_DESCRIPTION =
  'the signing secret, `whsec_` + base64 of the HMAC-SHA256 key of `webhook-signature` (Standard Webhooks); returned only here, once';

export const CreatedWebhook = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.extend(Webhook, {
    secret: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), { description: SECRET_DESCRIPTION }),
  }),
  { id: 'CreatedWebhook' },
);

export const DeliveryAttempt = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    delivery_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description:
        'the delivery (one event to this webhook, all its attempts) the attempt is part of; null on attempts logged before deliveries had ids',
    }),
    redelivery_of: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'on a redelivery: the delivery it sends again; null otherwise',
    }),
    event_id: /* @__PURE__ */ z.string(),
    event_type: /* @__PURE__ */ z.string(),
    attempt: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description: '1 for the first try of the event, then 2, 3 ...',
    }),
    status_code: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.number().check(/* @__PURE__ */ z.int())),
      {
        description: 'the receiver’s HTTP status, if it answered',
      },
    ),
    error: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'why the attempt failed; null when it succeeded',
    }),
    duration_ms: /* @__PURE__ */ z.int(),
    timestamp: EpochMillis,
  }),
  { id: 'DeliveryAttempt' },
);

/**
 * Delivery attempts per page: 100 recent ones unless `limit` asks for more. An attempt weighs 3.0 KB with a
 * 500-character error (errors are Node's short messages), so a full page (3.0 MB) stays within the byte
 * budget and never ends early (test/unit/page-sizes.test.ts).
 */
export const DELIVERY_ATTEMPTS_PAGE = {
  defaultLimit: 100,
  maxLimit: MAX_PAGE_ROWS,
} as const satisfies PageSize;

export const WebhookData = /* @__PURE__ */ z.object({ webhook: Webhook });

export const ONLY_ENABLED =
  'only `enabled` can change; to change anything else, delete the webhook and create a new one';

/** How long a replaced secret goes on signing when the rotation does not say (a day), and at most (a week). */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;

export const MAX_PREVIOUS_SECRET_SECONDS = 7 * 86_400;

export const DeliveryParams = /* @__PURE__ */ z.object({ id: Id, delivery_id: Id });

export const Redelivery = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    delivery_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the new delivery; its attempts show in the deliveries log',
    }),
    redelivery_of: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the delivery it sends again',
    }),
  }),
  { id: 'Redelivery' },
);

/** For the calls that queue outbound POSTs to a customer's server (tests, redeliveries): not a load generator. */
export const OUTBOUND_THROTTLING = { rateLimit: 5, burstLimit: 10 };
