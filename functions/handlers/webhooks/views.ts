import type { DeliveryAttempt } from '../../data/webhook-deliveries';
import type { Webhook } from '../../domain/webhooks';

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
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    status_code: attempt.statusCode ?? null,
    error: attempt.error ?? null,
    duration_ms: attempt.durationMs,
    timestamp: attempt.timestamp,
  };
}
