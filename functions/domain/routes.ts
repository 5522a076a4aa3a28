import { deleteRouteAnalytics } from '../data/analytics';
import { type Claim, releaseClaims } from '../data/claims';
import { deleteAll } from '../data/client';
import { getDriver, type SetChange } from '../data/drivers';
import { cutToBudget, type Page, type SizedPageRequest } from '../data/pagination';
import type { SequencedEvent } from '../data/route-event-sequences';
import { type DriverSetsChange, type RouteChangeWrites, writeRouteChange } from '../data/route-header-writes';
import { listRouteRows, type WaypointRow } from '../data/route-rows';
import { rowShardsOf } from '../data/route-shards';
import {
  deleteRouteHeader,
  getRouteHeader,
  listRoutesOfDate,
  type RouteHeader,
  routeOfDateKeyOf,
  waypointSequenceOfKey,
} from '../data/routes';
import { trackingLookupKeys } from '../data/tracking-links';
import type { DeletionMessage } from '../models/channels';
import * as channels from '../models/channels';
import { ApiError, ConflictError, RouteBeingRevisedError } from '../shared/errors';
import { send } from '../shared/queues';
import { quote } from '../shared/quote';

export type { RouteHeader, WaypointRow };

export interface RouteRef {
  accountId: string;
  dcId: string;
  routeId: string;
  /** Set when a driver asks: only the routes assigned to that driver exist for them. */
  driverId?: string;
}

/** How often a change re-reads and retries after another writer bumped the version in between. */
const MAX_CHANGE_ATTEMPTS = 5;

/** A short random pause before a retry, so writers that collided do not collide again in lockstep. */
export const pauseBeforeRetry = (attempt: number) =>
  attempt === 1
    ? Promise.resolve()
    : new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

function routeNotFound(ref: RouteRef): ApiError {
  return new ApiError('ROUTE_NOT_FOUND', `route ${quote(ref.routeId)} not found in DC ${quote(ref.dcId)}`);
}

/** The header of a route of this DC, including one being deleted (only the deletion itself wants that). */
async function findRoute(ref: RouteRef): Promise<RouteHeader | undefined> {
  const route = await getRouteHeader(ref.accountId, ref.routeId);
  return route && route.dcId === ref.dcId ? route : undefined;
}

/**
 * The route's header; ROUTE_NOT_FOUND (3003) when it does not exist, is another DC's, is being deleted, or (for
 * a driver) is not assigned to the driver asking.
 */
export async function requireRoute(ref: RouteRef): Promise<RouteHeader> {
  const route = await findRoute(ref);
  const hidden = ref.driverId !== undefined && route?.assignedDriverId !== ref.driverId;
  if (!route || route.deleting || hidden) throw routeNotFound(ref);
  return route;
}

export const getRoute = (ref: RouteRef) => requireRoute(ref);

/**
 * One page of the routes whose start time falls on `localDate` in the DC's zone, by start time (then id):
 * the order of the date index.
 */
export async function routesOfDate(
  accountId: string,
  dcId: string,
  localDate: string,
  page: SizedPageRequest<RouteHeader>,
): Promise<Page<RouteHeader>> {
  const routes = await listRoutesOfDate(accountId, dcId, localDate, page);
  const shown = { ...routes, items: routes.items.filter((route) => !route.deleting) };
  return cutToBudget(shown, page.bytesOf, routeOfDateKeyOf);
}

type HeaderChange = Partial<
  Pick<
    RouteHeader,
    'isActive' | 'assignedDriverId' | 'vehicleId' | 'startedTimestamp' | 'isFinalized' | 'finalizedTimestamp'
  >
>;

/** Raised when a header change would make a route the route of a driver that no longer exists. */
export class DriverGoneError extends Error {
  constructor(readonly driverId: string) {
    super(`driver '${driverId}' no longer exists`);
  }
}

/** The driver whose assigned set holds the route: its driver while the route is unfinished and not being deleted. */
const holderOf = (route: RouteHeader) =>
  route.isFinalized || route.deleting ? undefined : route.assignedDriverId;
/** The driver whose started set holds the route: its driver while the route has started and not finished. */
const starterOf = (route: RouteHeader) =>
  route.startedTimestamp === undefined ? undefined : holderOf(route);

/**
 * The drivers' route sets a header change touches: the route leaves the sets of the driver that held it and
 * joins those of the driver that holds it now (one change per driver). A driver in `gone` (deleted while a
 * route from before the sets still named it) has nothing to take the route off.
 */
function driverSide(previous: RouteHeader, next: RouteHeader, gone: ReadonlySet<string>): DriverSetsChange[] {
  const changes = new Map<string, { assigned?: SetChange; started?: SetChange }>();
  const note = (driverId: string | undefined, set: 'assigned' | 'started', how: SetChange) => {
    if (driverId === undefined) return;
    changes.set(driverId, { ...changes.get(driverId), [set]: how });
  };
  for (const [set, of] of [
    ['assigned', holderOf],
    ['started', starterOf],
  ] as const) {
    if (of(previous) === of(next)) continue;
    note(of(previous), set, 'remove');
    note(of(next), set, 'add');
  }
  return [...changes]
    .map(([driverId, change]) => ({ driverId, ...change }))
    .filter((side) => adds(side) || !gone.has(side.driverId));
}

const adds = (side: DriverSetsChange) => side.assigned === 'add' || side.started === 'add';

/**
 * Replaces the header `previous` with `next` (unless its version changed, or another event of the route took
 * the sequence `also.event` read: false), together with the drivers' route sets the change touches
 * (driverSide) and `also`, in one transaction. Throws DriverGoneError when the driver the route would join
 * does not exist.
 */
export async function writeHeader(
  next: RouteHeader,
  previous: RouteHeader,
  also: Omit<RouteChangeWrites, 'driverSets'> = {},
): Promise<boolean> {
  const gone = new Set<string>();
  for (;;) {
    const driverSets = driverSide(previous, next, gone);
    const written = await writeRouteChange(next, previous.version, { ...also, driverSets });
    if (written.outcome !== 'driver_gone') return written.outcome === 'written';
    const { driverId } = written;
    if (driverSets.some((side) => side.driverId === driverId && adds(side)))
      throw new DriverGoneError(driverId);
    gone.add(driverId);
  }
}

/**
 * Applies one change to a route's header:
 * 1. reads the header (404 when gone);
 * 2. `decide` checks the rules against it (throwing 3011/3012 ...) and returns the fields to set;
 * 3. when no field changes, returns the route as it is (no version bump);
 * 4. otherwise writes the header with `version + 1`, together with the drivers' route sets it changes
 *    (writeHeader) and the change's event (`eventOf`) in one transaction, on condition that
 *    the version is still the one read; a lost race starts again from 1, so every rule is checked against
 *    the state it changes.
 */
export async function changeRoute(
  ref: RouteRef,
  decide: (route: RouteHeader) => HeaderChange,
  eventOf?: (next: RouteHeader, previous: RouteHeader) => SequencedEvent,
): Promise<RouteHeader> {
  for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt++) {
    await pauseBeforeRetry(attempt);
    const current = await requireRoute(ref);
    const change = decide(current);
    const changed = (Object.keys(change) as (keyof HeaderChange)[]).some(
      (key) => change[key] !== current[key],
    );
    if (!changed) return current;
    const next: RouteHeader = { ...current, ...change, version: current.version + 1 };
    if (await writeHeader(next, current, { event: eventOf?.(next, current) })) return next;
  }
  throw new Error(`route '${ref.routeId}' kept changing under ${MAX_CHANGE_ATTEMPTS} attempts to change it`);
}

/**
 * Refuses any change of a finished route (3012), and of one a revision is being applied to (3102): every
 * change of a route calls this first.
 */
export function rejectFinalized(route: RouteHeader): void {
  if (route.isFinalized) {
    throw new ConflictError('ROUTE_FINALIZED', `route ${quote(route.routeId)} is already finished`);
  }
  if (route.revisionTxid !== undefined) throw new RouteBeingRevisedError(route.routeId, route.revisionTxid);
}

/**
 * Refuses what a driver records on a route that is not underway: finished or being revised (rejectFinalized),
 * or not started yet (3011).
 */
export function rejectUnlessUnderway(route: RouteHeader): void {
  rejectFinalized(route);
  if (route.startedTimestamp === undefined) throw transitionRefused(route, 'has not started; start it first');
}

/** 3011: the route's state does not allow the change (`why` says what it is). */
export function transitionRefused(route: RouteHeader, why: string): ConflictError {
  return new ConflictError('TRANSITION_NOT_ALLOWED', `route ${quote(route.routeId)} ${why}`);
}

function rejectStarted(route: RouteHeader, what: string): void {
  if (route.startedTimestamp !== undefined) {
    throw new ConflictError(
      'TRANSITION_NOT_ALLOWED',
      `route ${quote(route.routeId)} has started; cannot ${what}`,
    );
  }
}

/** Activates a route: with a driver, it shows among the driver's active routes. */
export function activateRoute(ref: RouteRef): Promise<RouteHeader> {
  return changeRoute(ref, (route) => {
    rejectFinalized(route);
    return { isActive: true };
  });
}

/** Deactivates a route that has neither started nor finished. */
export function deactivateRoute(ref: RouteRef): Promise<RouteHeader> {
  return changeRoute(ref, (route) => {
    rejectFinalized(route);
    rejectStarted(route, 'deactivate it');
    return { isActive: false };
  });
}

/** Assigns a driver of the route's DC (3010 otherwise) to a route that has neither started nor finished. */
export async function assignDriver(ref: RouteRef, driverId: string): Promise<RouteHeader> {
  // State first: a finished or started route answers the same whichever driver is asked for.
  const route = await requireRoute(ref);
  rejectFinalized(route);
  rejectStarted(route, 'change its driver');
  const notInDc = new ConflictError(
    'DRIVER_NOT_IN_DC',
    `driver_id: ${quote(driverId)} is not a driver of DC ${quote(ref.dcId)}`,
  );
  if (!(await getDriver(ref.accountId, ref.dcId, driverId))) throw notInDc;
  try {
    // The route joins the driver's assigned set in the same transaction, on condition that the driver
    // still exists: a deletion in between either sees the route there or makes this fail.
    return await changeRoute(ref, (current) => {
      rejectFinalized(current);
      rejectStarted(current, 'change its driver');
      return { assignedDriverId: driverId };
    });
  } catch (error) {
    if (error instanceof DriverGoneError) throw notInDc;
    throw error;
  }
}

/** Removes the driver from a route that has neither started nor finished. */
export function unassignDriver(ref: RouteRef): Promise<RouteHeader> {
  return changeRoute(ref, (route) => {
    rejectFinalized(route);
    rejectStarted(route, 'remove its driver');
    return { assignedDriverId: undefined };
  });
}

/** Assigns a vehicle to a route that has not finished (a started route may change trucks). */
export function assignVehicle(ref: RouteRef, vehicleId: string): Promise<RouteHeader> {
  return changeRoute(ref, (route) => {
    rejectFinalized(route);
    return { vehicleId };
  });
}

/**
 * Deletes a route; the answer does not wait for its rows (up to ~100,000 of them):
 * 1. refuses a started, unfinished route (3011);
 * 2. marks the header `deleting` (a version bump): it leaves both indexes, every read and change answers 404;
 * 3. queues the rest for the deletion worker (removeDeletedRoute), which frees the ids once the rows are gone.
 * A DELETE that finds the header already marked queues the deletion again and succeeds: the worker is
 * idempotent, and a deletion whose message ended in the DLQ starts again. When the message cannot be
 * queued, a mark made by this call is taken back, so the route is whole again and the error (500) true.
 */
export async function deleteRoute(ref: RouteRef): Promise<void> {
  const { route, markedNow } = await markDeleting(ref);
  const message: DeletionMessage = { account_id: ref.accountId, route_id: ref.routeId };
  try {
    await send(channels.deletions, message);
  } catch (error) {
    if (markedNow) await unmarkDeleting(route);
    throw error;
  }
}

/** Takes a deletion mark back: the route is whole again, and its driver's again (or unassigned, if gone). */
async function unmarkDeleting(route: RouteHeader): Promise<void> {
  const restored: RouteHeader = { ...route, deleting: undefined, version: route.version + 1 };
  try {
    await writeHeader(restored, route);
  } catch (error) {
    if (!(error instanceof DriverGoneError)) throw error;
    await writeHeader({ ...restored, assignedDriverId: undefined }, route);
  }
}

async function markDeleting(ref: RouteRef): Promise<{ route: RouteHeader; markedNow: boolean }> {
  for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt++) {
    await pauseBeforeRetry(attempt);
    const current = await findRoute(ref);
    if (!current) throw routeNotFound(ref);
    if (current.deleting) return { route: current, markedNow: false };
    if (current.startedTimestamp !== undefined && !current.isFinalized) {
      throw new ConflictError(
        'TRANSITION_NOT_ALLOWED',
        `route ${quote(ref.routeId)} has started and is not finished; it cannot be deleted`,
      );
    }
    const next: RouteHeader = { ...current, deleting: true, version: current.version + 1 };
    if (await writeHeader(next, current)) return { route: next, markedNow: true };
  }
  throw new Error(`route '${ref.routeId}' kept changing under ${MAX_CHANGE_ATTEMPTS} attempts to delete it`);
}

/** Rows read, claims released and rows deleted at a time. */
const ROWS_PER_CHUNK = 1000;

export type RouteRemovalOutcome = 'REMOVED' | 'CONTINUED' | 'NOTHING_TO_REMOVE';

/**
 * The deletion worker's part; safe to run again for the same message:
 * 1. a chunk at a time, releases the waypoint, invoice, item and accounting record claims the route's
 *    import holds, deletes its waypoints' tracking links, then those rows. Past `rowsPerMessage` rows it
 *    queues the route again and stops:
 *    the rest is a fresh message, so a huge route never runs into the worker's timeout;
 * 2. deletes a finished route's analytics, so exports no longer show it;
 * 3. releases the route id's claim, then deletes the header.
 * The route id is released only once the rows are gone: whoever takes it next writes rows into the same
 * partition, and must not find ours there (or have its own deleted by us). A header that is gone, or not
 * marked (the id was imported again since, or the DELETE took its mark back), leaves nothing to remove.
 */
export async function removeDeletedRoute(
  message: DeletionMessage,
  options: { rowsPerMessage: number },
): Promise<RouteRemovalOutcome> {
  const { account_id: accountId, route_id: routeId } = message;
  const route = await getRouteHeader(accountId, routeId);
  if (!route?.deleting) return 'NOTHING_TO_REMOVE';
  let removed = 0;
  for (;;) {
    const rows = await listRouteRows(rowShardsOf(route), ROWS_PER_CHUNK);
    if (rows.length === 0) break;
    if (removed >= options.rowsPerMessage) {
      await send(channels.deletions, message);
      return 'CONTINUED';
    }
    const rowClaims = rows.flatMap((row): Claim[] => (row.claim ? [row.claim] : []));
    await releaseClaims(accountId, rowClaims, route.importTxid);
    // A waypoint's tracking link goes before its row, which names it: a retry still finds the row.
    if (route.trackingKey !== undefined) {
      const waypoints = rows.flatMap(({ key, claim }) => {
        const sequence = waypointSequenceOfKey(key);
        return claim?.kind === 'WAYPOINT' && sequence !== undefined ? [{ id: claim.id, sequence }] : [];
      });
      await deleteAll(
        trackingLookupKeys(
          { trackingKey: route.trackingKey, sequencedTokensFrom: route.sequencedTokensFrom },
          waypoints,
        ),
      );
    }
    await deleteAll(rows.map((row) => row.key));
    removed += rows.length;
  }
  if (route.isFinalized)
    await deleteRouteAnalytics({ accountId, dcId: route.dcId, localDate: route.localDate, routeId });
  await releaseClaims(accountId, [{ kind: 'ROUTE', id: routeId }], route.importTxid);
  await deleteRouteHeader(accountId, routeId);
  return 'REMOVED';
}
