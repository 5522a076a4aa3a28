import type { DeliveryAttempt } from '../../domain/records';
import type { Redelivery, Webhook } from '../../domain/webhooks';
import { apiFields } from '../../shared/field-names';

/** The spec's webhook resource (never the secret). */
export function webhookView(webhook: Webhook) {
  return { id: webhook.webhookId, ...apiFields(webhook, ['url', 'enabled', 'dcIds', 'events']) };
}

export function deliveryAttemptView(attempt: DeliveryAttempt) {
  return apiFields(attempt, [
    'deliveryId',
    'redeliveryOf',
    'eventId',
    'eventType',
    'attempt',
    'statusCode',
    'error',
    'durationMs',
    'timestamp',
  ]);
}

export function redeliveryView(redelivery: Redelivery) {
  return apiFields(redelivery, ['deliveryId', 'redeliveryOf']);
}
