import { type Attempt, listAttempts } from '../data/attempts';
import { lastEventSequence } from '../data/route-event-sequences';
import { writeRouteChange } from '../data/route-header-writes';
import type { RouteHeader } from '../data/routes';
import { type OrderedStop, orderFields, stopsInOrder } from '../data/waypoint-order';
import { ApiError, ValidationError } from '../shared/errors';
import { quote } from '../shared/quote';
import { noChanges } from './route-diff';
import { recomputeEtas } from './route-etas';
import { isDone, progressByWaypoint, progressOf } from './route-progress';
import { pauseBeforeRetry, type RouteRef, rejectFinalized, requireRoute } from './routes';

/** How often a reorder reads again after another change of the route (or a visit) came in between. */
const MAX_REORDER_ATTEMPTS = 5;

/**
 * The stops of `route` in the order `waypointIds` gives, which must name every waypoint of the route once:
 * an id listed twice or missing is 1006, one the route does not have 3013, each naming it.
 */
export function orderOfIds(route: RouteHeader, waypointIds: readonly string[]): OrderedStop[] {
  const stops = new Map(stopsInOrder(route).map((stop) => [stop.id, stop]));
  const seen = new Set<string>();
  const order = waypointIds.map((id, index) => {
    const stop = stops.get(id);
    if (!stop)
      throw new ApiError(
        'NOT_ON_ROUTE',
        `waypoint_ids.${index}: ${quote(id)} is not a waypoint of route ${quote(route.routeId)}`,
      );
    if (seen.has(id)) throw new ValidationError(`waypoint_ids.${index}: ${quote(id)} is listed twice`);
    seen.add(id);
    return stop;
  });
  const missing = route.waypointIds.find((id) => !seen.has(id));
  if (missing !== undefined)
    throw new ValidationError(
      `waypoint_ids: misses ${quote(missing)}; list every waypoint of the route once (${route.waypointIds.length})`,
    );
  return order;
}

/**
 * Refuses an order that moves a waypoint whose visit is done (`done` holds their sequences) from its place
 * (3100, naming the first such waypoint and where it was).
 */
export function keepDoneInPlace(
  current: readonly OrderedStop[],
  order: readonly OrderedStop[],
  done: ReadonlySet<number>,
): void {
  const moved = current.findIndex((stop, index) => done.has(stop.sequence) && order[index]?.id !== stop.id);
  if (moved < 0) return;
  const stop = current[moved] as OrderedStop;
  throw new ApiError(
    'WAYPOINT_VISITED',
    `waypoint_ids.${moved}: waypoint ${quote(stop.id)} was visited (its visit is done) and keeps its place; ${quote(order[moved]?.id ?? '')} is listed there`,
  );
}

/** The sequences of the route's waypoints whose visit is done (their latest attempt SUCCESSFUL or FAILED). */
export function doneSequencesOf(route: RouteHeader, attempts: readonly Attempt[]): Set<number> {
  const progress = progressByWaypoint(attempts);
  return new Set(
    stopsInOrder(route).flatMap((stop) => (isDone(progressOf(progress, stop).status) ? [stop.sequence] : [])),
  );
}

/** What asked for an order: a client's list (the waypoint-order PUT), or an optimization applied. */
export interface ReorderOptions {
  /**
   * The route as an optimization read it: refuse (`refusal`) instead of reading again when its version or the
   * number of its attempts is no longer the one read.
   */
  asRead?: { version: number; attempts: number; refusal: () => ApiError };
  /** The optimization whose order it is (ROUTE_UPDATED names it). */
  optimizationId?: string;
}

/**
 * Gives the route's waypoints the order `waypointIds` (every waypoint of the route, once):
 * 1. reads the header (3003), refuses a finished route or one being revised (3012, 3102) and a list that is
 *    not the route's waypoints (orderOfIds);
 * 2. reads the route's last event sequence, then its attempts: a waypoint whose visit is done keeps its place
 *    (3100); the same order again changes nothing (no new version, no event);
 * 3. writes the header with the new order (version + 1) and ROUTE_UPDATED (`order_changed: true`) in one
 *    transaction, on condition that the version and the event sequence are still the ones read: a change or a
 *    visit in between (a visit takes the next event sequence) makes it start again from 1, so a waypoint
 *    done meanwhile is never moved;
 * 4. recomputes the ETAs (planned ones before the start, from now after it).
 * No row moves: the order is the header's list (docs/architecture.md, "A route's order").
 */
export async function reorderWaypoints(
  ref: RouteRef,
  waypointIds: readonly string[],
  options: ReorderOptions = {},
): Promise<RouteHeader> {
  for (let attempt = 1; attempt <= MAX_REORDER_ATTEMPTS; attempt++) {
    await pauseBeforeRetry(attempt);
    const route = await requireRoute(ref);
    if (options.asRead && route.version !== options.asRead.version) throw options.asRead.refusal();
    rejectFinalized(route);
    const order = orderOfIds(route, waypointIds);
    const current = stopsInOrder(route);
    const lastSequence = await lastEventSequence(route.accountId, route.routeId);
    const attempts = await listAttempts(route.accountId, route.routeId);
    if (options.asRead && attempts.length !== options.asRead.attempts) throw options.asRead.refusal();
    keepDoneInPlace(current, order, doneSequencesOf(route, attempts));
    if (order.every((stop, index) => stop.id === current[index]?.id)) return route;

    const next: RouteHeader = { ...route, ...orderFields(order), version: route.version + 1 };
    const written = await writeRouteChange(next, route.version, {
      event: {
        accountId: route.accountId,
        dcId: route.dcId,
        routeId: route.routeId,
        type: 'ROUTE_UPDATED',
        details: {
          version: next.version,
          changes: noChanges(),
          order_changed: true,
          ...(options.optimizationId ? { optimization_id: options.optimizationId } : {}),
        },
        occurredAt: Date.now(),
      },
      eventAfterSequence: lastSequence,
    });
    if (written.outcome !== 'written') continue;
    await recomputeEtas(ref);
    return next;
  }
  throw new Error(
    `route '${ref.routeId}' kept changing under ${MAX_REORDER_ATTEMPTS} attempts to reorder it`,
  );
}
