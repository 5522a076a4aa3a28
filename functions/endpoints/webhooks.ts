import * as z from 'zod';
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
    events: z.array(z.string()),
  })
  .meta({ id: 'Webhook' });

const CreatedWebhook = Webhook.extend({
  secret: z.string().meta({
    description: 'HMAC-SHA256 key of the X-Signature header; returned only here, once',
  }),
}).meta({ id: 'CreatedWebhook' });

export const DeliveryAttempt = z
  .object({
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
 * Delivery attempts per page: 100 recent ones unless `limit` asks for more. An attempt weighs 2.8 KB with a
 * 500-character error (errors are Node's short messages), so a full page (2.8 MB) stays within the byte
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
  access: { table: 'readWrite' },
  request: {
    body: z
      .object({
        webhook_url: SafeText({ max: 2048 }).meta({
          description: 'a fully formed http or https URL, without credentials',
        }),
        events: z.array(Label(64)).min(1).max(20).meta({ description: 'event types (spec §6, DESIGN §4)' }),
        dc_ids: z.array(Id).min(1).max(1000),
      })
      .meta({ id: 'CreateWebhookRequest' }),
  },
  responses: { 200: { description: 'the created webhook', data: z.object({ webhook: CreatedWebhook }) } },
  errorCodes: [4001, 4002, 4003],
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

export const webhookEndpoints = [
  listWebhooks,
  createWebhook,
  updateWebhook,
  alsoAs(updateWebhook, 'PUT'),
  deleteWebhook,
  listWebhookDeliveries,
  testWebhook,
];
