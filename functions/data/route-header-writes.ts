import { type Claim, releaseClaimItem, releaseClaims } from './claims';
import {
  conditionFailedAt,
  deleteAll,
  isTransactionConflict,
  MAX_TRANSACTION_ITEMS,
  writeTransaction,
} from './client';
import { driverRoutesItem, type SetChange } from './drivers';
import { markRevisionCommittedItem } from './imports';
import { revisionMarkItem } from './revision-marks';
import { eventSequenceRaced, type SequencedEvent, sequencedEventItems } from './route-event-sequences';
import { deleteRouteRowItem, deleteUnvisitedWaypointItem } from './route-rows';
import { type RouteHeader, replaceHeaderItem, replaceRouteHeader } from './routes';
import type { TableKey } from './table-schema';
import { deleteTrackingLookupItems } from './tracking-links';

/** How a change of a route changes one driver's route sets (functions/data/drivers.ts, driverRoutesItem). */
export interface DriverSetsChange {
  driverId: string;
  assigned?: SetChange;
  started?: SetChange;
}

/** What a change of a route writes beside its header, in the same transaction. */
export interface RouteChangeWrites {
  /** The drivers' route sets it changes, each on condition that the driver exists. */
  driverSets?: readonly DriverSetsChange[];
  /** Its event, with the route's next sequence. */
  event?: SequencedEvent;
  /**
   * The route's last event sequence as read before the change was decided: the event takes the next one on
   * condition that it is still that one, so an event written since (a visit's) makes the change
   * 'event_raced'. Read at the write when absent.
   */
  eventAfterSequence?: number;
  /**
   * The revision whose commit it is: the revision's record marked committed (once, while pending), and the
   * route's latest revision (./revision-marks.ts) set to it.
   */
  committedRevision?: { txid: string; at: number; acceptedAt: number };
  /**
   * The waypoint it cancels: its row deleted on condition that no attempt marked it visited, its tracking
   * link's lookup deleted, and its invoice and item rows (`rowKeys`) deleted and the ids it claimed (`freed`,
   * the waypoint's own among them) released, in the same transaction when all of it fits in one (100 items),
   * else right after it.
   */
  cancelledWaypoint?: {
    sequence: number;
    waypointId: string;
    rowKeys: readonly TableKey[];
    freed: readonly Claim[];
  };
}

export type RouteChangeOutcome =
  | { outcome: 'written' }
  /** The header is no longer at the version read, or another transaction was writing its items meanwhile. */
  | { outcome: 'route_changed' }
  /** Another event of the route took the sequence the change's event read. */
  | { outcome: 'event_raced' }
  /** A driver whose sets the change touches does not exist. */
  | { outcome: 'driver_gone'; driverId: string }
  /** An attempt marked the cancelled waypoint visited since it was read. */
  | { outcome: 'waypoint_visited' };

/**
 * Replaces the route's header with `next` (whose version the caller has bumped) on condition that it is still
 * at `expectedVersion`, with what the change writes beside it (`writes`), in one transaction: all of it, or
 * nothing and why (RouteChangeOutcome; when several conditions failed, the first of: the header, the event's
 * sequence, a driver, the waypoint). A header written alone is a single conditional put.
 */
export async function writeRouteChange(
  next: RouteHeader,
  expectedVersion: number,
  writes: RouteChangeWrites = {},
): Promise<RouteChangeOutcome> {
  const { accountId, dcId, routeId, importTxid, trackingKey } = next;
  const drivers = writes.driverSets ?? [];
  const waypoint = writes.cancelledWaypoint;
  const items = [
    replaceHeaderItem(next, expectedVersion),
    ...drivers.map(({ driverId, ...change }) =>
      driverRoutesItem({ accountId, dcId, driverId }, routeId, change),
    ),
    ...(waypoint ? [deleteUnvisitedWaypointItem(accountId, routeId, waypoint.sequence)] : []),
    ...(writes.event ? await sequencedEventItems(writes.event, writes.eventAfterSequence) : []),
    ...(waypoint && trackingKey !== undefined
      ? deleteTrackingLookupItems({ trackingKey, sequencedTokensFrom: next.sequencedTokensFrom }, [
          { id: waypoint.waypointId, sequence: waypoint.sequence },
        ])
      : []),
    ...(writes.committedRevision
      ? [
          markRevisionCommittedItem(accountId, writes.committedRevision.txid, writes.committedRevision.at),
          revisionMarkItem(accountId, routeId, {
            txid: writes.committedRevision.txid,
            acceptedAt: writes.committedRevision.acceptedAt,
          }),
        ]
      : []),
  ];
  const cleanup = waypoint
    ? [
        ...waypoint.rowKeys.map(deleteRouteRowItem),
        ...waypoint.freed.map((claim) => releaseClaimItem(accountId, claim, importTxid)),
      ]
    : [];
  const cleanupAtOnce = items.length + cleanup.length <= MAX_TRANSACTION_ITEMS;
  if (items.length === 1)
    return { outcome: (await replaceRouteHeader(next, expectedVersion)) ? 'written' : 'route_changed' };
  try {
    await writeTransaction([...items, ...(cleanupAtOnce ? cleanup : [])]);
  } catch (error) {
    // A transaction cancelled for another one changing the same items lost a race as well.
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) return { outcome: 'route_changed' };
    if (eventSequenceRaced(error, items)) return { outcome: 'event_raced' };
    const gone = drivers.find((_, index) => conditionFailedAt(error, 1 + index));
    if (gone) return { outcome: 'driver_gone', driverId: gone.driverId };
    if (waypoint && conditionFailedAt(error, 1 + drivers.length)) return { outcome: 'waypoint_visited' };
    throw error;
  }
  if (waypoint && !cleanupAtOnce) {
    await deleteAll(waypoint.rowKeys);
    await releaseClaims(accountId, waypoint.freed, importTxid);
  }
  return { outcome: 'written' };
}
