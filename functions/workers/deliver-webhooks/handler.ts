import { deliver, deliverySettings } from '../../domain/webhook-events';
import type { DeliveryMessage } from '../../models/channels';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { deliverWebhooks } from './consumer';

/** Ids only: the webhook's secret and URL stay out of the logs. */
function deliveryLogKeys(message: DeliveryMessage) {
  return {
    account_id: message.account_id,
    dc_id: message.event.dc_id ?? undefined,
    webhook_id: message.webhook_id,
    event_id: message.event.event_id,
    attempt: message.attempt,
  };
}

/**
 * One delivery attempt per message. Failed deliveries are retried by queueing a new message (the
 * schedule's delay), so a message only throws when that bookkeeping failed: SQS then retries it.
 */
export const handler = sqsHandler(deliverWebhooks, {
  logKeys: deliveryLogKeys,
  handle: async (message) => {
    const outcome = await deliver(message, deliverySettings());
    // Every POST is one of these (a refused one was stopped at its connect); 'waiting' and 'skipped' made none.
    if (outcome === 'delivered') countMetric('WebhookDeliveriesSucceeded');
    if (
      outcome === 'retry_queued' ||
      outcome === 'given_up' ||
      outcome === 'refused' ||
      outcome === 'disabled'
    )
      countMetric('WebhookDeliveriesFailed');
    logger.debug('delivery processed', { ...deliveryLogKeys(message), outcome });
  },
});
