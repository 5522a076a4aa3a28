import { pagedQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { DELIVERY_ATTEMPTS_PAGE, DeliveryAttempt, WebhookParams, webhooksEndpoint } from '../schemas';

export const listWebhookDeliveries = /* @__PURE__ */ webhooksEndpoint('GET /webhooks/{id}/deliveries', {
  operationId: 'listWebhookDeliveries',
  module: import.meta.url,
  summary: 'The delivery attempts of a webhook (kept 30 days), newest first',
  request: { params: WebhookParams, query: /* @__PURE__ */ pagedQuery(DELIVERY_ATTEMPTS_PAGE) },
  responses:
    import.meta.responseSchemas !== false && ok('delivery attempts', pageOf('deliveries', DeliveryAttempt)),
});
