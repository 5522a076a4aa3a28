import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { TAG, WebhookParams } from '../schemas';

export const testWebhook = defineEndpoint({
  operationId: 'testWebhook',
  method: 'POST',
  path: '/webhooks/{id}/test',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Send a PING event to the webhook (delivered, signed and retried like any event)',
  tag: TAG,
  access: { table: 'read', sendTo: ['deliveries'] },
  // Every call makes an outbound POST to a customer's server: not a load generator.
  throttling: { rateLimit: 5, burstLimit: 10 },
  request: { params: WebhookParams },
  responses: { 200: { description: 'queued', data: z.object({ event_id: z.string() }) } },
  errorCodes: [1003],
});
