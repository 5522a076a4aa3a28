import * as z from 'zod';
import { SUBSCRIBABLE_EVENTS } from '../events/catalog';
import {
  EmptyData,
  EpochMillis,
  Id,
  Label,
  MAX_PAGE_ROWS,
  NextToken,
  type PageSize,
  pagedQuery,
  SafeText,
} from './common';
import { alsoAs, defineEndpoint } from './define';

const TAG = 'Webhooks';
const WebhookParams = z.object({ id: Id });

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    enabled: z.boolean(),
    dc_ids: z.array(z.string()),
    events: z.array(z.enum(SUBSCRIBABLE_EVENTS)),
  })
  .meta({ id: 'Webhook' });

const SECRET_DESCRIPTION =
  'the signing secret, `whsec_` + base64 of the HMAC-SHA256 key of `webhook-signature` (Standard Webhooks); returned only here, once';

const CreatedWebhook = Webhook.extend({
  secret: z.string().meta({ description: SECRET_DESCRIPTION }),
}).meta({ id: 'CreatedWebhook' });

export const DeliveryAttempt = z
  .object({
    delivery_id: z.string().nullable().meta({
      description:
        'the delivery (one event to this webhook, all its attempts) the attempt is part of; null on attempts logged before deliveries had ids',
    }),
    redelivery_of: z
      .string()
      .nullable()
      .meta({ description: 'on a redelivery: the delivery it sends again; null otherwise' }),
    event_id: z.string(),
    event_type: z.string(),
    attempt: z.number().int().meta({ description: '1 for the first try of the event, then 2, 3 ...' }),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'the receiver’s HTTP status, if it answered' }),
    error: z.string().nullable().meta({ description: 'why the attempt failed; null when it succeeded' }),
    duration_ms: z.number().int(),
    timestamp: EpochMillis,
  })
  .meta({ id: 'DeliveryAttempt' });

/**
 * Delivery attempts per page: 100 recent ones unless `limit` asks for more. An attempt weighs 3.0 KB with a
 * 500-character error (errors are Node's short messages), so a full page (3.0 MB) stays within the byte
 * budget and never ends early (test/unit/page-sizes.test.ts).
 */
export const DELIVERY_ATTEMPTS_PAGE = {
  defaultLimit: 100,
  maxLimit: MAX_PAGE_ROWS,
} as const satisfies PageSize;

const WebhookData = z.object({ webhook: Webhook });

export const listWebhooks = defineEndpoint({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/webhooks',
  auth: 'apiKey',
  handler: 'webhooks/list',
  summary: 'The account’s webhooks',
  tag: TAG,
  access: { table: 'read' },
  request: {},
  responses: { 200: { description: 'the webhooks', data: z.object({ webhooks: z.array(Webhook) }) } },
  errorCodes: [],
});

export const createWebhook = defineEndpoint({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/webhooks',
  auth: 'apiKey',
  handler: 'webhooks/create',
  summary: 'Register a URL for events of some DCs; the answer carries the signing secret, once',
  tag: TAG,
  access: { table: 'readWrite', webhookSecrets: 'encrypt' },
  request: {
    body: z
      .object({
        webhook_url: SafeText({ max: 2048 }).meta({
          description: 'a fully formed http or https URL, without credentials',
        }),
        events: z
          .array(
            // Documented as the catalog's enum; checked by the use case, which answers 4002 for another.
            Label(64).meta({ enum: [...SUBSCRIBABLE_EVENTS] }),
          )
          .min(1)
          .max(20)
          .meta({
            description:
              'event types (the event catalog: see the `webhooks` section for each body); another type is refused with 4002',
          }),
        dc_ids: z.array(Id).min(1).max(1000),
      })
      .meta({ id: 'CreateWebhookRequest' }),
  },
  responses: { 200: { description: 'the created webhook', data: z.object({ webhook: CreatedWebhook }) } },
  // 4004: the account's webhook limit (20 by default); 4005: the URL already gets one of these event types.
  errorCodes: [4001, 4002, 4003, 4004, 4005],
});

const ONLY_ENABLED =
  'only `enabled` can change; to change anything else, delete the webhook and create a new one';

export const updateWebhook = defineEndpoint({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/webhooks/{id}',
  auth: 'apiKey',
  handler: 'webhooks/update',
  summary: 'Enable or disable a webhook (nothing else can change)',
  tag: TAG,
  access: { table: 'readWrite' },
  request: {
    params: WebhookParams,
    body: z
      .strictObject(
        { enabled: z.boolean() },
        { error: (issue) => (issue.code === 'unrecognized_keys' ? ONLY_ENABLED : undefined) },
      )
      .meta({ id: 'UpdateWebhookRequest' }),
  },
  responses: { 200: { description: 'the webhook after the change', data: WebhookData } },
  errorCodes: [1003],
});

export const deleteWebhook = defineEndpoint({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{id}',
  auth: 'apiKey',
  handler: 'webhooks/delete',
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: WebhookParams },
  responses: { 200: { description: 'deleted', data: EmptyData } },
  errorCodes: [1003],
});

export const listWebhookDeliveries = defineEndpoint({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  auth: 'apiKey',
  handler: 'webhooks/deliveries',
  summary: 'The delivery attempts of a webhook (kept 30 days), newest first',
  tag: TAG,
  access: { table: 'read' },
  request: { params: WebhookParams, query: pagedQuery(DELIVERY_ATTEMPTS_PAGE) },
  responses: {
    200: {
      description: 'delivery attempts',
      data: z.object({ deliveries: z.array(DeliveryAttempt), next_token: NextToken }),
    },
  },
  errorCodes: [1003],
});

export const testWebhook = defineEndpoint({
  operationId: 'testWebhook',
  method: 'POST',
  path: '/webhooks/{id}/test',
  auth: 'apiKey',
  handler: 'webhooks/test',
  summary: 'Send a PING event to the webhook (delivered, signed and retried like any event)',
  tag: TAG,
  access: { table: 'read', sendTo: ['deliveries'] },
  // Every call makes an outbound POST to a customer's server: not a load generator.
  throttling: { rateLimit: 5, burstLimit: 10 },
  request: { params: WebhookParams },
  responses: { 200: { description: 'queued', data: z.object({ event_id: z.string() }) } },
  errorCodes: [1003],
});

/** How long a replaced secret goes on signing when the rotation does not say (a day), and at most (a week). */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;
export const MAX_PREVIOUS_SECRET_SECONDS = 7 * 86_400;

/** The most deliveries one window redelivery queues, and the most deliveries of the window it reads. */
export const MAX_REDELIVERIES_PER_CALL = 100;
export const MAX_DELIVERIES_EXAMINED_PER_CALL = 1000;

export const rotateWebhookSecret = defineEndpoint({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{id}/rotate-secret',
  auth: 'apiKey',
  handler: 'webhooks/rotate-secret',
  summary: 'Replace the signing secret; the previous one goes on signing deliveries for a grace period',
  description:
    'Until `previous_secret_expires_at` every delivery carries a signature for each secret (space-separated in `webhook-signature`), so receivers can switch to the new secret at any time of it; then only the new one signs. Rotating again replaces the previous secret with the current one.',
  tag: TAG,
  access: { table: 'readWrite', webhookSecrets: 'encrypt' },
  request: {
    params: WebhookParams,
    body: z
      .strictObject({
        expire_previous_after_seconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_PREVIOUS_SECRET_SECONDS)
          .default(DEFAULT_PREVIOUS_SECRET_SECONDS)
          .meta({
            description: `how long the previous secret still signs, 0..${MAX_PREVIOUS_SECRET_SECONDS} seconds (0: not at all); ${DEFAULT_PREVIOUS_SECRET_SECONDS} when absent`,
          }),
      })
      // The body itself may be left out.
      .prefault({})
      .meta({ id: 'RotateWebhookSecretRequest' }),
  },
  responses: {
    200: {
      description: 'the new secret',
      data: z.object({
        webhook_id: z.string(),
        secret: z.string().meta({ description: SECRET_DESCRIPTION.replace('here, once', 'here') }),
        previous_secret_expires_at: EpochMillis.meta({
          description: 'when the previous secret stops signing (now, for 0 seconds)',
        }),
      }),
    },
  },
  errorCodes: [1003],
});

const DeliveryParams = z.object({ id: Id, delivery_id: Id });

const Redelivery = z
  .object({
    delivery_id: z
      .string()
      .meta({ description: 'the new delivery; its attempts show in the deliveries log' }),
    redelivery_of: z.string().meta({ description: 'the delivery it sends again' }),
  })
  .meta({ id: 'Redelivery' });

/** Each call queues outbound POSTs to a customer's server: not a load generator. */
const REDELIVERY_THROTTLING = { rateLimit: 5, burstLimit: 10 };

export const redeliverWebhookDelivery = defineEndpoint({
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
  auth: 'apiKey',
  handler: 'webhooks/redeliver',
  summary: 'Send a past delivery again: the same event (same body and webhook-id), signed afresh',
  description:
    'The redelivery is a new delivery, retried on the schedule; the log shows its attempts with `redelivery_of`. A redelivery of a redelivery sends its original again. While a redelivery of the delivery is still pending, the call answers that one and sends nothing more.',
  tag: TAG,
  access: { table: 'readWrite', sendTo: ['deliveries'] },
  throttling: REDELIVERY_THROTTLING,
  request: { params: DeliveryParams },
  responses: { 202: { description: 'queued', data: Redelivery } },
  errorCodes: [1003, 4010, 4011],
});

export const redeliverFailedWebhookDeliveries = defineEndpoint({
  operationId: 'redeliverFailedWebhookDeliveries',
  method: 'POST',
  path: '/webhooks/{id}/redeliver',
  auth: 'apiKey',
  handler: 'webhooks/redeliver-failed',
  summary: 'Send again every failed delivery whose first attempt was in a time window',
  description: `Oldest first, at most \`limit\` (up to ${MAX_REDELIVERIES_PER_CALL}) deliveries a call, and at most ${MAX_DELIVERIES_EXAMINED_PER_CALL} deliveries of the window read: \`next_token\` is present while the window may hold more; send the same body with it. A delivery whose redelivery is pending or succeeded is not queued again, so repeating a call sends nothing twice; one whose redelivery failed is.`,
  tag: TAG,
  access: { table: 'readWrite', sendTo: ['deliveries'] },
  throttling: REDELIVERY_THROTTLING,
  request: {
    params: WebhookParams,
    body: z
      .strictObject({
        since: EpochMillis.meta({ description: 'first attempts at or after this time (epoch ms)' }),
        until: EpochMillis.meta({ description: 'first attempts at or before this time (epoch ms)' }),
        status: z
          .enum(['FAILED'])
          .meta({ description: 'which deliveries: FAILED ones (given up or dropped)' }),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_REDELIVERIES_PER_CALL)
          .default(MAX_REDELIVERIES_PER_CALL)
          .meta({ description: `most deliveries queued by this call, 1..${MAX_REDELIVERIES_PER_CALL}` }),
        next_token: z.string().min(1).max(2048).optional().meta({
          description: 'the `next_token` of the previous call for the same window',
        }),
      })
      .refine((body) => body.since <= body.until, { path: ['until'], message: 'is before since' })
      .meta({ id: 'RedeliverFailedRequest' }),
  },
  responses: {
    202: {
      description: 'queued',
      data: z.object({
        redeliveries: z.array(Redelivery),
        next_token: NextToken,
      }),
    },
  },
  errorCodes: [1003, 4011],
});

export const webhookEndpoints = [
  listWebhooks,
  createWebhook,
  updateWebhook,
  alsoAs(updateWebhook, 'PUT'),
  deleteWebhook,
  listWebhookDeliveries,
  testWebhook,
  rotateWebhookSecret,
  redeliverWebhookDelivery,
  redeliverFailedWebhookDeliveries,
];
