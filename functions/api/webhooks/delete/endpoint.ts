import { EmptyData } from '../../../models/common';
import { ok } from '../../define';
import { webhookChangeEndpoint } from '../schemas';

export const deleteWebhook = /* @__PURE__ */ webhookChangeEndpoint('DELETE /webhooks/{id}', {
  operationId: 'deleteWebhook',
  module: import.meta.url,
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  responses: import.meta.responseSchemas !== false && ok('deleted', EmptyData),
});
