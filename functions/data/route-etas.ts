import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord } from './item-ops';
import { type SequencedEvent, sequencedEventsItems } from './route-event-sequences';
import { type RouteHeader, routeKeys, routeUnchangedCheck, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

/** A route's latest ETAs; one row next to the header, so refreshing them never bumps the route's version. */
export interface RouteEtas {
  /** Per waypoint, in sequence: when service is expected to start; null once the waypoint is done. */
  etas: (number | null)[];
  /** Expected end of the route (departure from the last stop, or arrival at the end warehouse). */
  completion: number | null;
  /** The ETAs last sent in ROUTE_ETAS_CHANGED (the planned ones until then): the 5-minute rule compares to them. */
  emitted: (number | null)[];
  /** Time of the action the ETAs were computed for. */
  computedAt: number;
  /** Server time of the last refresh a location ping caused (those are throttled). */
  pingRefreshAt?: number;
  /** When the last ROUTE_ETAS_CHANGED was written, and its payload's bytes (its route's events are paced by them). */
  emittedAt?: number;
  emittedBytes?: number;
  /** The waypoints WAYPOINT_APPROACHING went out for (once each). */
  approached: string[];
  /** Bumped by every write; writes are conditional on the version read. */
  version: number;
}

const etasKey = (accountId: string, routeId: string): TableKey => ({
  pk: routeKeys.route(accountId, routeId).pk,
  sk: 'ETAS',
});

const etasCodec = codec<RouteEtas>({
  etas: { absent: [] },
  completion: { absent: null },
  emitted: { absent: [] },
  computedAt: {},
  pingRefreshAt: {},
  emittedAt: {},
  emittedBytes: {},
  approached: { absent: [] },
  version: { absent: 0 },
});

export function routeEtasItem(accountId: string, routeId: string, etas: RouteEtas): Item {
  return { ...etasKey(accountId, routeId), entity: 'ETAS', ...etasCodec.toItem(etas) };
}

export const getRouteEtas = (accountId: string, routeId: string): Promise<RouteEtas | undefined> =>
  getRecord(etasKey(accountId, routeId), etasCodec.fromItem);

/**
 * Replaces the route's ETAs with `etas` (and writes `events` with the route's next sequences) in one
 * transaction, on condition that no other write of the ETAs came since `previousVersion` was read (undefined:
 * the route had none) and that the route is still as `route` was read: 'written', or why not:
 * 'etas_changed', 'route_changed', 'event_raced' (another event of the route took the sequence), or
 * 'conflicted' (another transaction was writing one of its items at the same time).
 */
export async function replaceRouteEtas(
  route: RouteHeader,
  etas: RouteEtas,
  previousVersion: number | undefined,
  events: readonly SequencedEvent[] = [],
): Promise<'written' | 'etas_changed' | 'route_changed' | 'event_raced' | 'conflicted'> {
  const { accountId, routeId } = route;
  const eventItems = await sequencedEventsItems(events);
  return writeTransactionParts(
    [
      { items: [putRouteEtasItem(accountId, routeId, etas, previousVersion)], refusedAs: 'etas_changed' },
      { items: [routeUnchangedCheck(route)], refusedAs: 'route_changed' },
      // The event's put has no condition: only its sequence's can fail.
      { items: eventItems, refusedAs: 'event_raced' },
    ],
    { conflictAs: 'conflicted' },
  );
}

/** Transaction item replacing the ETAs unless another refresh wrote since `previousVersion` was read. */
function putRouteEtasItem(
  accountId: string,
  routeId: string,
  etas: RouteEtas,
  previousVersion: number | undefined,
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: routeEtasItem(accountId, routeId, etas),
      ...(previousVersion === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': previousVersion },
          }),
    },
  };
}

/**
 * Takes the route's once-a-minute ping refresh: true when no ping refreshed its ETAs since `cutoff`. The
 * version bump makes a refresh in flight that read the older row retry, so it cannot undo the mark.
 */
export async function takePingRefresh(
  accountId: string,
  routeId: string,
  now: number,
  cutoff: number,
): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: etasKey(accountId, routeId),
        UpdateExpression: 'SET ping_refresh_at = :now, version = version + :one',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(ping_refresh_at) OR ping_refresh_at <= :cutoff)',
        ExpressionAttributeValues: { ':now': now, ':cutoff': cutoff, ':one': 1 },
      }),
    ),
  );
}
