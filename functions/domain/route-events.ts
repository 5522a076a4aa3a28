import { putEventItem, type RouteEvent } from '../data/events';
import { lastEventSequence, takeEventSequenceItem } from '../data/route-event-sequences';
import type { TransactItem } from '../data/routes';

/**
 * The transaction items that write an event of a route with the route's next sequence: the sequence taken,
 * on condition that it is still the one read here, and the event item. A transaction that holds them and is
 * cancelled for that condition (eventSequenceRaced) lost to another event of the route: read and retry.
 */
export async function sequencedEventItems(
  event: RouteEvent & { routeId: string; sequence?: never },
): Promise<TransactItem[]> {
  const last = await lastEventSequence(event.accountId, event.routeId);
  return [
    takeEventSequenceItem(event.accountId, event.routeId, last),
    putEventItem({ ...event, sequence: last + 1 }),
  ];
}
