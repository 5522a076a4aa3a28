import { tokenSequence, trackingToken } from '../models/tracking-links';
import { sha256Hex } from '../shared/crypto';
import { type Item, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import type { TransactItem } from './routes';
import type { TableKey } from './table-schema';

/**
 * The lookup of a tracking token (models/tracking-links.ts): one item per waypoint of a route with a tracking
 * key, keyed by the SHA-256 of the waypoint's token, as every secret is looked up (API keys, login tokens): a
 * token is found with one GetItem and no item holds it. The tokens are not hashes only, though: waypoint reads
 * show them, so the route's header keeps the key they are derived from (as a driver item keeps its login
 * token, which driver reads show). Written with the route's rows, deleted with them (a failed import's, a
 * deleted route's).
 */
export interface TrackingLookup {
  accountId: string;
  dcId: string;
  routeId: string;
  waypointId: string;
  /** The waypoint's position in the route (its row's key). */
  waypointSequence: number;
  /** The import that made the route: a lookup left from an earlier route with the same id names another. */
  importTxid: string;
}

const lookupKey = (token: string): TableKey => ({ pk: `TRACKING#${sha256Hex(token)}`, sk: 'TRACKING' });

const lookupCodec = codec<TrackingLookup>({
  accountId: {},
  dcId: {},
  routeId: {},
  waypointId: {},
  waypointSequence: {},
  importTxid: {},
});

/** The route's tracking key and what its lookups name. */
export interface TrackedRoute {
  accountId: string;
  dcId: string;
  routeId: string;
  importTxid: string;
  trackingKey: string;
  /** From which sequence on tokens derive from sequences too (RouteHeader.sequencedTokensFrom). */
  sequencedTokensFrom?: number;
}

/** What derives the tokens of a route's waypoints. */
export type TokenKeys = Pick<TrackedRoute, 'trackingKey' | 'sequencedTokensFrom'>;

/** A waypoint of a route as its token names it: its id and sequence. */
export interface TrackedWaypoint {
  id: string;
  sequence: number;
}

const tokenOf = (route: TokenKeys, { id, sequence }: TrackedWaypoint) =>
  trackingToken(route.trackingKey, id, tokenSequence(route.sequencedTokensFrom, sequence));

/** The lookup items of an imported route's waypoints (ids in sequence), to write with its rows. */
export const trackingLookupItems = (route: TrackedRoute, waypointIds: readonly string[]): Item[] =>
  trackingLookupItemsAt(
    route,
    waypointIds.map((id, sequence) => ({ id, sequence })),
  );

/** The lookup items of these waypoints of the route, each under its sequence (waypoints a revision adds). */
export function trackingLookupItemsAt(route: TrackedRoute, waypoints: readonly TrackedWaypoint[]): Item[] {
  const { accountId, dcId, routeId, importTxid } = route;
  return waypoints.map((waypoint) => ({
    ...lookupKey(tokenOf(route, waypoint)),
    entity: 'TRACKING_LINK',
    ...lookupCodec.toItem({
      accountId,
      dcId,
      routeId,
      waypointId: waypoint.id,
      waypointSequence: waypoint.sequence,
      importTxid,
    }),
  }));
}

/** The keys of the lookup items of these waypoints of a route. */
export const trackingLookupKeys = (route: TokenKeys, waypoints: readonly TrackedWaypoint[]): TableKey[] =>
  waypoints.map((waypoint) => lookupKey(tokenOf(route, waypoint)));

/** Transaction items deleting the lookups of these waypoints (a cancelled waypoint's link stops working). */
export const deleteTrackingLookupItems = (
  route: TokenKeys,
  waypoints: readonly TrackedWaypoint[],
): TransactItem[] =>
  trackingLookupKeys(route, waypoints).map((Key) => ({ Delete: { TableName: tableName(), Key } }));

/** What a token names, or undefined when no route's waypoint has it. */
export async function getTrackingLookup(token: string): Promise<TrackingLookup | undefined> {
  return getRecord(lookupKey(token), lookupCodec.fromItem);
}
