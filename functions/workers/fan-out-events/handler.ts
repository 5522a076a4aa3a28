import { queueNotifications } from '../../domain/notifications';
import { eventsOfStreamRecords } from '../../domain/stream-events';
import { fanOut } from '../../domain/webhook-events';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { fanOutEvents } from './consumer';

/**
 * One message of the events queue: new event items from the table stream, each fanned out to the webhooks of
 * its account subscribed to it. The event feed takes the same events from a queue of its own
 * (workers/append-to-feed), so a delivery never waits on the feed. An event that a trigger of its DC's customer
 * notifications listens to is queued for the notifications worker too (domain/notifications.ts). A message that throws is retried alone
 * (deliveries already queued for it are sent again: receivers deduplicate by event_id).
 */
export const handler = sqsHandler(fanOutEvents, {
  // A message may hold events of several accounts: each log line names its own.
  logKeys: () => ({}),
  handle: async (records) => {
    for (const { accountId, event } of eventsOfStreamRecords(records)) {
      const [deliveries, notified] = await Promise.all([
        fanOut(accountId, event),
        queueNotifications(accountId, event),
      ]);
      logger.info('event fanned out', {
        account_id: accountId,
        dc_id: event.dc_id ?? undefined,
        event_id: event.event_id,
        event_type: event.type,
        deliveries,
        notified,
      });
    }
  },
});
