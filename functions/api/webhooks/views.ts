import type { DeliveryAttempt } from '../../domain/records';
import type { Redelivery, Webhook } from '../../domain/webhooks';

/** The spec's webhook resource (never the secret). */
export function webhookView(webhook: Webhook) {
  return {
    id: webhook.webhookId,
    url: webhook.url,
    enabled: webhook.enabled,
    dc_ids: webhook.dcIds,
    events: webhook.events,
  };
}

export function deliveryAttemptView(attempt: DeliveryAttempt) {
  return {
    delivery_id: attempt.deliveryId ?? null,
    redelivery_of: attempt.redeliveryOf ?? null,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    status_code: attempt.statusCode ?? null,
    error: attempt.error ?? null,
    duration_ms: attempt.durationMs,
    timestamp: attempt.timestamp,
  };
}

export function redeliveryView(redelivery: Redelivery) {
  return { delivery_id: redelivery.deliveryId, redelivery_of: redelivery.redeliveryOf };
}
