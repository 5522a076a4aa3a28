import { pagedQuery, pageOf } from '../../../models/common';
import { DELIVERY_ATTEMPTS_PAGE, DeliveryAttempt, WebhookParams, webhooksEndpoint } from '../schemas';

export const listWebhookDeliveries = webhooksEndpoint('GET /webhooks/{id}/deliveries', {
  operationId: 'listWebhookDeliveries',
  module: import.meta.url,
  summary: 'The delivery attempts of a webhook (kept 30 days), newest first',
  request: { params: WebhookParams, query: pagedQuery(DELIVERY_ATTEMPTS_PAGE) },
  responses: {
    200: {
      description: 'delivery attempts',
      data: pageOf('deliveries', DeliveryAttempt),
    },
  },
});
