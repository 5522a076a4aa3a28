import * as z from '../../../shared/zod';
import { Webhook, webhooksEndpoint } from '../schemas';

export const listWebhooks = webhooksEndpoint('GET /webhooks', {
  operationId: 'listWebhooks',
  module: import.meta.url,
  summary: 'The account’s webhooks',
  request: {},
  responses: { 200: { description: 'the webhooks', data: z.object({ webhooks: z.array(Webhook) }) } },
  errorCodes: [],
});
