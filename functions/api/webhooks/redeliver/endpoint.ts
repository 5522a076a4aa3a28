import * as channels from '../../../models/channels';

import { DeliveryParams, OUTBOUND_THROTTLING, Redelivery, webhookChangeEndpoint } from '../schemas';

export const redeliverWebhookDelivery = /* @__PURE__ */ webhookChangeEndpoint(
  'POST /webhooks/{id}/deliveries/{delivery_id}/redeliver',
  {
    operationId: 'redeliverWebhookDelivery',
    module: import.meta.url,
    summary: 'Send a past delivery again: the same event (same body and webhook-id), signed afresh',
    description:
      'The redelivery is a new delivery, retried on the schedule; the log shows its attempts with `redelivery_of`. A redelivery of a redelivery sends its original again. While a redelivery of the delivery is still pending, the call answers that one and sends nothing more.',
    access: { table: 'readWrite', sendTo: [channels.deliveries] },
    throttling: OUTBOUND_THROTTLING,
    request: { params: DeliveryParams },
    responses: import.meta.responseSchemas !== false && { 202: { description: 'queued', data: Redelivery } },
    errorCodes: [1003, 4010, 4011],
  },
);
