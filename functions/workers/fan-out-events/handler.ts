import type { SQSRecord } from 'aws-lambda';
import { eventsOfStreamMessage, fanOut } from '../../domain/webhook-events';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

/**
 * One message of the events queue: new event items from the table stream. A record that throws is
 * retried alone (deliveries already queued for it are sent again: receivers deduplicate by event_id).
 */
async function fanOutRecord(record: SQSRecord): Promise<void> {
  for (const { accountId, event } of eventsOfStreamMessage(record.body)) {
    const deliveries = await fanOut(accountId, event);
    logger.info('event fanned out', {
      account_id: accountId,
      dc_id: event.dc_id ?? undefined,
      event_id: event.event_id,
      event_type: event.type,
      deliveries,
    });
  }
}

export const handler = sqsHandler({
  // A message may hold events of several accounts: each log line names its own.
  logKeys: () => ({}),
  handle: fanOutRecord,
});
