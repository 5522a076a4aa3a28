import { EmptyData } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { TAG, WebhookParams } from '../schemas';

export const deleteWebhook = defineEndpoint({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: WebhookParams },
  responses: { 200: { description: 'deleted', data: EmptyData } },
  errorCodes: [1003],
});
