import { EmptyData } from '../../../models/common';
import { NOT_BUNDLED } from '../../define';
import { webhookChangeEndpoint } from '../schemas';

export const deleteWebhook = /* @__PURE__ */ webhookChangeEndpoint('DELETE /webhooks/{id}', {
  operationId: 'deleteWebhook',
  module: import.meta.url,
  summary: 'Delete a webhook; deliveries not yet sent are dropped',
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : { 200: { description: 'deleted', data: EmptyData } },
});
