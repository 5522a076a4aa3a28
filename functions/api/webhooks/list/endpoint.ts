import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { TAG, Webhook } from '../schemas';

export const listWebhooks = defineEndpoint({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/webhooks',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'The account’s webhooks',
  tag: TAG,
  access: { table: 'read' },
  request: {},
  responses: { 200: { description: 'the webhooks', data: z.object({ webhooks: z.array(Webhook) }) } },
  errorCodes: [],
});
