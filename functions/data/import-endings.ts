import { tableName, writeTransactionParts } from './client';
import { driverRoutesItem } from './drivers';
import { putEventItem, type RouteEvent } from './events';
import { importKeys } from './imports';
import { firstEventSequenceItem, type SequencedEvent, sequencedEventItems } from './route-event-sequences';
import { putNewHeaderItem, type RouteHeader } from './routes';

/*
 * How an import record ends, with the writes that go with it (the new route, its first event). Apart from
 * imports.ts, whose records every import consumer reads: a function that only reads an import (the deadline
 * check, until one is due) then does not load the event catalog, the route header and the driver sets these
 * writes need.
 */

/**
 * Transaction item ending a pending import, as SUCCEEDED or FAILED with its error, with the route id once
 * known (an upload's comes with its body). The condition makes
 * the end happen once even when SQS delivers the message twice.
 */
function finishImportItem(
  accountId: string,
  txid: string,
  at: number,
  routeId: string | undefined,
  error?: { code: number; message: string },
) {
  const sets = ['#status = :status', 'finished_at = :at'];
  if (routeId !== undefined) sets.push('route_id = :routeId');
  if (error) sets.push('#error = :error');
  return {
    Update: {
      TableName: tableName(),
      Key: importKeys.record(accountId, txid),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status', ...(error ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':status': error ? 'FAILED' : 'SUCCEEDED',
        ':pending': 'PENDING',
        ':at': at,
        ...(routeId === undefined ? {} : { ':routeId': routeId }),
        ...(error ? { ':error': error } : {}),
      },
    },
  };
}

/** How a route import ends: with its new route, or failed with an error. */
export type ImportEnding = { route: RouteHeader } | { error: { code: number; message: string } };

/**
 * Ends a route import once, in one transaction: SUCCEEDED with its new route (the header, refusing to
 * overwrite one; `event`, ROUTE_CREATED, as the route's first event; the route in its driver's assigned set,
 * on condition that the driver exists: it may have been deleted since the import checked it), or FAILED with
 * `error` and `event` (ROUTE_IMPORT_FAILED, without a sequence: the import made no route of its own to count
 * in; a refused revision's takes its route's, see endRevision in functions/domain/route-revisions.ts).
 * 'already_ended' when another run ended it first (SQS delivered the message twice), 'driver_gone' when
 * the new route's driver no longer exists. A header refused alone (a route with this id is still being
 * deleted) is thrown.
 */
export async function endRouteImport(
  record: { accountId: string; txid: string; routeId?: string },
  at: number,
  ending: ImportEnding,
  event: RouteEvent & { sequence?: never },
): Promise<'ended' | 'already_ended' | 'driver_gone'> {
  const route = 'route' in ending ? ending.route : undefined;
  const error = 'error' in ending ? ending.error : undefined;
  const driverId = route?.assignedDriverId;
  const outcome = await writeTransactionParts([
    { items: route ? [putNewHeaderItem(route)] : [] },
    {
      items: [finishImportItem(record.accountId, record.txid, at, record.routeId, error)],
      refusedAs: 'already_ended',
    },
    { items: [putEventItem(route ? { ...event, sequence: 1 } : event)] },
    {
      items:
        route && driverId !== undefined
          ? [
              driverRoutesItem({ accountId: route.accountId, dcId: route.dcId, driverId }, route.routeId, {
                assigned: 'add',
              }),
            ]
          : [],
      refusedAs: 'driver_gone',
    },
    { items: route ? [firstEventSequenceItem(route.accountId, route.routeId)] : [] },
  ]);
  return outcome === 'written' ? 'ended' : outcome;
}

/**
 * Ends a pending revision as SUCCEEDED or FAILED with `error`, with its event (ROUTE_IMPORT_FAILED) in the same
 * transaction: with the route's next sequence when `takesSequence` (the route is there and not being
 * deleted), else without one. 'already_ended' when another run ended it first, 'event_raced' when another
 * event of the route took the sequence read (read again and retry).
 */
export async function endImport(
  record: { accountId: string; txid: string; routeId?: string },
  at: number,
  error: { code: number; message: string } | undefined,
  event?: { event: SequencedEvent; takesSequence: boolean },
): Promise<'ended' | 'already_ended' | 'event_raced'> {
  const eventItems = !event
    ? []
    : event.takesSequence
      ? await sequencedEventItems(event.event)
      : [putEventItem(event.event)];
  const outcome = await writeTransactionParts([
    {
      items: [finishImportItem(record.accountId, record.txid, at, record.routeId, error)],
      refusedAs: 'already_ended',
    },
    // The event's put has no condition: only its sequence's can fail.
    { items: eventItems, refusedAs: 'event_raced' },
  ]);
  return outcome === 'written' ? 'ended' : outcome;
}
