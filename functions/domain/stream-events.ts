import { readStreamRecord } from '../data/events';
import type { StreamRecord } from '../models/channels';
import type { WebhookEvent } from '../models/event-catalog';
import { logger } from '../shared/observability';

/**
 * The events in one message of the events or the feed queue: the table stream's record(s) of new event items,
 * as the event pipes (or the local stream poller) send them.
 */
export function eventsOfStreamRecords(
  records: readonly StreamRecord[],
): { accountId: string; event: WebhookEvent }[] {
  return records.flatMap((record) => {
    const item = readStreamRecord(record);
    // The pipes let through only the catalog's types; anything else has no subscriber to go to.
    if (item.kind === 'eventOutsideCatalog') {
      logger.warn('event item of a type outside the catalog skipped', {
        event_id: item.eventId,
        event_type: item.eventType,
      });
    }
    return item.kind === 'event' ? [{ accountId: item.accountId, event: item.event }] : [];
  });
}
