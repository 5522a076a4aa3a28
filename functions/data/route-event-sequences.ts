import { conditionFailedAt, tableName } from './client';
import { codec } from './codec';
import { putEventItem, type RouteEvent } from './events';
import { getRecord } from './item-ops';
import { routeKeys, type TransactItem } from './routes';

/**
 * A route's event sequence (docs/architecture.md, "Event sequences"): the number its last event took, in a
 * small item of its own beside the header, so taking the next costs the same whatever the route's size. Every
 * event of the route takes the next number in the transaction that writes it, on condition that the number
 * is still the one read: two events never take one number, and a rolled-back change takes none. The route's
 * deletion removes the item with its other rows, so a route id imported again counts from 1.
 */
const ENTITY = 'EVENT_SEQUENCE';
const sequenceKey = (accountId: string, routeId: string) => routeKeys.row(accountId, routeId, ENTITY);
const sequenceCodec = codec<{ lastSequence: number }>({ lastSequence: {} });
/** The route's sequence item with `lastSequence` taken. */
const sequenceItem = (accountId: string, routeId: string, lastSequence: number) => ({
  ...sequenceKey(accountId, routeId),
  entity: ENTITY,
  ...sequenceCodec.toItem({ lastSequence }),
});

/** The sequence of the route's last event (read consistently); 0 before its first, or on a route imported before sequences. */
export async function lastEventSequence(accountId: string, routeId: string): Promise<number> {
  const sequence = await getRecord(sequenceKey(accountId, routeId), sequenceCodec.fromItem);
  return sequence?.lastSequence ?? 0;
}

/** An event of a route to write with the route's next sequence, in the transaction of the change it tells. */
export type SequencedEvent = RouteEvent & { routeId: string; sequence?: never };

/**
 * The transaction items that write `event` with the route's next sequence: the sequence taken, on condition
 * that it is still the one read here, and the event item. A transaction that holds them and is cancelled for
 * that condition (eventSequenceRaced) lost to another event of the route: read and retry. `lastRead`, when
 * given, is the sequence the caller read before it decided the change: any event of the route written since
 * (a visit's) then fails the transaction.
 */
export async function sequencedEventItems(event: SequencedEvent, lastRead?: number): Promise<TransactItem[]> {
  const last = lastRead ?? (await lastEventSequence(event.accountId, event.routeId));
  return [
    takeEventSequenceItem(event.accountId, event.routeId, last),
    putEventItem({ ...event, sequence: last + 1 }),
  ];
}

/**
 * sequencedEventItems for several events of one change, which take the route's next numbers in their order.
 */
export async function sequencedEventsItems(events: readonly SequencedEvent[]): Promise<TransactItem[]> {
  const [first] = events;
  if (!first) return [];
  const last = await lastEventSequence(first.accountId, first.routeId);
  return [
    takeEventSequenceItem(first.accountId, first.routeId, last, events.length),
    ...events.map((event, index) => putEventItem({ ...event, sequence: last + 1 + index })),
  ];
}

/**
 * Transaction item taking sequences `last + 1` .. `last + count` for the route's next events, on condition that
 * the route's last is still `last` (eventSequenceRaced tells a transaction cancelled for it).
 */
export function takeEventSequenceItem(
  accountId: string,
  routeId: string,
  last: number,
  count = 1,
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: sequenceItem(accountId, routeId, last + count),
      ConditionExpression: last === 0 ? 'attribute_not_exists(pk)' : 'last_sequence = :last',
      ...(last === 0 ? {} : { ExpressionAttributeValues: { ':last': last } }),
    },
  };
}

/**
 * Transaction item starting a new route's sequence at 1 (ROUTE_CREATED, written with the header). No
 * condition: no other event of the route can be written before its header exists.
 */
export function firstEventSequenceItem(accountId: string, routeId: string): TransactItem {
  return { Put: { TableName: tableName(), Item: sequenceItem(accountId, routeId, 1) } };
}

/**
 * True when a transaction of `items` was cancelled because another event of the route took the sequence it
 * read (the condition of one of its takeEventSequenceItem): read the sequence again and retry.
 */
export function eventSequenceRaced(error: unknown, items: readonly TransactItem[]): boolean {
  return items.some((item, index) => item.Put?.Item?.entity === ENTITY && conditionFailedAt(error, index));
}
