import * as z from 'zod';
import { webhooksEndpoint } from '../schemas';

export const testWebhook = webhooksEndpoint('POST /webhooks/{id}/test', {
  operationId: 'testWebhook',
  module: import.meta.url,
  summary: 'Send a PING event to the webhook (delivered, signed and retried like any event)',
  access: { table: 'read', sendTo: ['deliveries'] },
  // Every call makes an outbound POST to a customer's server: not a load generator.
  throttling: { rateLimit: 5, burstLimit: 10 },
  responses: { 200: { description: 'queued', data: z.object({ event_id: z.string() }) } },
});
