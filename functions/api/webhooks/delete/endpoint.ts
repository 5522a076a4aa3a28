import { EmptyData } from '../../../models/common';
import { webhookChangeEndpoint } from '../schemas';

export const deleteWebhook = webhookChangeEndpoint('DELETE /webhooks/{id}', {
  operationId: 'deleteWebhook',
  module: import.meta.url,
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  responses: { 200: { description: 'deleted', data: EmptyData } },
});
