import * as z from 'zod';
import { NextToken, pagedQuery } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { DELIVERY_ATTEMPTS_PAGE, DeliveryAttempt, TAG, WebhookParams } from '../schemas';

export const listWebhookDeliveries = defineEndpoint({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'The delivery attempts of a webhook (kept 30 days), newest first',
  tag: TAG,
  access: { table: 'read' },
  request: { params: WebhookParams, query: pagedQuery(DELIVERY_ATTEMPTS_PAGE) },
  responses: {
    200: {
      description: 'delivery attempts',
      data: z.object({ deliveries: z.array(DeliveryAttempt), next_token: NextToken }),
    },
  },
  errorCodes: [1003],
});
