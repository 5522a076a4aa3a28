import { appendEvent } from '../../domain/event-feed';
import { eventsOfStreamRecords, fanOut } from '../../domain/webhook-events';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { fanOutEvents } from './consumer';

/**
 * One message of the events queue: new event items from the table stream, each appended to its account's
 * event feed (GET /events) and fanned out to the webhooks. A message that throws is retried alone (an event
 * already in the feed is not appended again; deliveries already queued for it are sent again: receivers
 * deduplicate by event_id).
 */
export const handler = sqsHandler(fanOutEvents, {
  // A message may hold events of several accounts: each log line names its own.
  logKeys: () => ({}),
  handle: async (records) => {
    for (const { accountId, event } of eventsOfStreamRecords(records)) {
      const appended = await appendEvent(accountId, event);
      const deliveries = await fanOut(accountId, event);
      logger.info('event fanned out', {
        account_id: accountId,
        dc_id: event.dc_id ?? undefined,
        event_id: event.event_id,
        event_type: event.type,
        appended,
        deliveries,
      });
    }
  },
});
