import { EmptyData } from '../../../models/common';
import { webhooksEndpoint } from '../schemas';

export const deleteWebhook = webhooksEndpoint('DELETE /webhooks/{id}', {
  operationId: 'deleteWebhook',
  module: import.meta.url,
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  access: { table: 'readWrite' },
  responses: { 200: { description: 'deleted', data: EmptyData } },
});
