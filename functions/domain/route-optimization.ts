import { getDc } from '../data/accounts';
import { type Attempt, listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import {
  endOptimization,
  getOptimization,
  type Optimization,
  startOptimization,
} from '../data/optimizations';
import type { RouteHeader } from '../data/routes';
import { listRouteWaypoints, stopsInOrder } from '../data/waypoint-order';
import type { OptimizationMessage } from '../models/channels';
import * as channels from '../models/channels';
import { randomId } from '../shared/crypto';
import { ApiError, NotFoundError, OptimizationRunningError, ValidationError } from '../shared/errors';
import { logger } from '../shared/observability';
import { send } from '../shared/queues';
import { quote } from '../shared/quote';
import type { LatLng } from './etas';
import { OPTIMIZER_PARAMETERS, optimizeTour } from './optimizer/optimize';
import { figuresOf, problemOf, type RouteTour } from './optimizer/route-problem';
import { doneSequencesOf, reorderWaypoints } from './route-order';
import { type RouteRef, rejectFinalized, requireRoute } from './routes';

/**
 * Optimizations of a route's order (docs/api.md, "Optimizations"): POST .../optimizations records one PENDING
 * and queues it; the optimization worker proposes an order (the route optimizer, functions/domain/optimizer/)
 * and applies it when asked; GET .../optimizations/{id} reads it.
 */

/**
 * An optimization still PENDING this long after it was asked for is FAILED (3105): longer than its worker's
 * runs can take (the consumer's timeout, each of the queue's receives a visibility timeout apart).
 */
export const OPTIMIZATION_DEADLINE_MS = 15 * 60_000;

/**
 * Accepts an optimization of the route's order: refuses a route that is missing (3003), finished (3012) or
 * being revised (3102), a locked waypoint not on the route (3013) or named twice (1006), and a route another
 * optimization is running on (3104); records it PENDING with the route's lock, and queues it.
 */
export async function requestOptimization(
  ref: RouteRef,
  input: { apply: boolean; lockedWaypointIds: readonly string[] },
): Promise<string> {
  const route = await requireRoute(ref);
  rejectFinalized(route);
  const seen = new Set<string>();
  input.lockedWaypointIds.forEach((id, index) => {
    if (!route.waypointIds.includes(id))
      throw new ApiError(
        'NOT_ON_ROUTE',
        `locked_waypoint_ids.${index}: ${quote(id)} is not a waypoint of route ${quote(route.routeId)}`,
      );
    if (seen.has(id)) throw new ValidationError(`locked_waypoint_ids.${index}: ${quote(id)} is listed twice`);
    seen.add(id);
  });
  const now = Date.now();
  const optimization: Optimization = {
    accountId: ref.accountId,
    dcId: ref.dcId,
    routeId: ref.routeId,
    optimizationId: randomId('opt_'),
    status: 'PENDING',
    apply: input.apply,
    lockedWaypointIds: [...seen],
    createdAt: now,
    deadline: now + OPTIMIZATION_DEADLINE_MS,
  };
  const started = await startOptimization(optimization);
  if (started.outcome === 'running')
    throw new OptimizationRunningError(
      `route ${quote(ref.routeId)} is being optimized (optimization ${quote(started.optimizationId)}); read it, then ask again (Retry-After)`,
    );
  const message: OptimizationMessage = {
    account_id: ref.accountId,
    dc_id: ref.dcId,
    route_id: ref.routeId,
    optimization_id: optimization.optimizationId,
  };
  try {
    await send(channels.optimizations, message);
  } catch (error) {
    await endOptimization(
      optimization,
      failed('INTERNAL', 'the optimization could not be queued'),
      Date.now(),
    );
    throw error;
  }
  return optimization.optimizationId;
}

/** An optimization of the route as it stands: one still PENDING past its deadline is FAILED (3105). */
export async function optimizationOf(ref: RouteRef, optimizationId: string): Promise<Optimization> {
  await requireRoute(ref);
  const optimization = await getOptimization(ref.accountId, ref.routeId, optimizationId);
  if (!optimization || optimization.dcId !== ref.dcId)
    throw new NotFoundError(
      `optimization_id: optimization ${quote(optimizationId)} not found on route ${quote(ref.routeId)}`,
    );
  if (optimization.status === 'PENDING' && Date.now() >= optimization.deadline)
    return { ...optimization, ...abandoned() };
  return optimization;
}

const failed = (name: ConstructorParameters<typeof ApiError>[0], message: string) => {
  const error = new ApiError(name, message);
  return { status: 'FAILED' as const, error: { code: error.code, message: error.message } };
};

const abandoned = () =>
  failed('OPTIMIZATION_ABANDONED', 'the optimization could not finish; nothing was applied: ask again');

export type OptimizationOutcome = 'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED';

/**
 * The optimization worker's part; safe to run again (a run that finds it ended does nothing):
 * 1. proposes an order for the route as it is (proposeOrder) and its figures before and after;
 * 2. when asked to, applies it as the waypoint-order PUT does, unless the route changed since it was read
 *    (3106: its version, or a visit), and names the optimization in ROUTE_UPDATED;
 * 3. ends it SUCCEEDED, or FAILED with the code of a refusal (the route gone, finished, being revised, changed).
 * Any other error is thrown for SQS to run it again, but on the queue's last receive, which ends it FAILED
 * (3105): none stays PENDING.
 */
export async function runOptimization(
  message: OptimizationMessage,
  { lastReceive }: { lastReceive: boolean },
): Promise<OptimizationOutcome> {
  const optimization = await getOptimization(message.account_id, message.route_id, message.optimization_id);
  if (optimization?.status !== 'PENDING' || optimization.dcId !== message.dc_id) return 'ALREADY_FINISHED';
  const ref: RouteRef = { accountId: message.account_id, dcId: message.dc_id, routeId: message.route_id };
  const end = async (
    outcome: Parameters<typeof endOptimization>[1] & { status: 'SUCCEEDED' | 'FAILED' },
  ): Promise<OptimizationOutcome> =>
    (await endOptimization(optimization, outcome, Date.now())) ? outcome.status : 'ALREADY_FINISHED';
  try {
    const route = await requireRoute(ref);
    rejectFinalized(route);
    const proposal = await proposeOrder(route, optimization.lockedWaypointIds);
    if (optimization.apply) {
      await reorderWaypoints(ref, proposal.waypointIds, {
        asRead: { version: route.version, attempts: proposal.attempts, refusal: routeChanged },
        optimizationId: optimization.optimizationId,
      });
    }
    return await end({
      status: 'SUCCEEDED',
      waypointIds: proposal.waypointIds,
      before: proposal.before,
      after: proposal.after,
      applied: optimization.apply,
      stoppedByTimeLimit: proposal.stoppedByTimeLimit,
    });
  } catch (error) {
    if (error instanceof ApiError)
      return end({ status: 'FAILED', error: { code: error.code, message: error.message } });
    if (!lastReceive) throw error;
    logger.error('optimization failed on its last receive', {
      error,
      optimization_id: message.optimization_id,
    });
    return end(abandoned());
  }
}

const routeChanged = () =>
  new ApiError(
    'ROUTE_CHANGED_SINCE_OPTIMIZED',
    'the route changed after the optimization read it; its order was not applied: optimize again',
  );

/**
 * The order the route optimizer proposes for the route as it is: its waypoints still to visit (not done),
 * from where the route is (before its start, the start warehouse at its start time; after it, now, from the
 * driver's latest location, else the last waypoint done, else the start warehouse) to the end warehouse,
 * locked ones in their place. Done waypoints keep their places in the order; the others fill the rest.
 */
async function proposeOrder(route: RouteHeader, lockedIds: readonly string[]) {
  const started = route.startedTimestamp !== undefined;
  const [waypoints, attempts, dc, driver] = await Promise.all([
    listRouteWaypoints(route),
    listAttempts(route.accountId, route.routeId),
    getDc(route.accountId, route.dcId),
    started && route.assignedDriverId
      ? getDriver(route.accountId, route.dcId, route.assignedDriverId)
      : undefined,
  ]);
  const done = doneSequencesOf(route, attempts);
  const locked = new Set(lockedIds);
  const toVisit = waypoints.filter((waypoint) => !done.has(waypoint.sequence));
  const tour: RouteTour = {
    departAt: started ? Date.now() : route.startTime,
    origin: started
      ? (driver?.location ?? lastDoneLocation(waypoints, attempts, done) ?? route.startWarehouse?.location)
      : route.startWarehouse?.location,
    end: route.endWarehouse?.location,
    stops: toVisit.map((waypoint) => ({
      location: waypoint.location,
      serviceTimeMinutes: waypoint.serviceTimeMinutes,
      timeWindows: waypoint.timeWindows,
      locked: locked.has(waypoint.id),
    })),
    speedKmh: dc?.etaSpeedKmh,
  };
  const problem = problemOf(tour);
  const result = optimizeTour(problem, OPTIMIZER_PARAMETERS);
  const visitOrder = result.order.map((index) => toVisit[index]?.id as string);
  const moving = new Set(visitOrder);
  let next = 0;
  const waypointIds = stopsInOrder(route).map((stop) =>
    moving.has(stop.id) ? (visitOrder[next++] as string) : stop.id,
  );
  return {
    waypointIds,
    attempts: attempts.length,
    before: figuresOf(
      tour,
      problem,
      toVisit.map((_, index) => index),
      result.before,
    ),
    after: figuresOf(tour, problem, result.order, result.after),
    stoppedByTimeLimit: result.stoppedByTimeLimit,
  };
}

/** Where the driver was last seen doing a waypoint: the latest final attempt's location, else its waypoint's. */
function lastDoneLocation(
  waypoints: readonly { id: string; sequence: number; location: LatLng }[],
  attempts: readonly Attempt[],
  done: ReadonlySet<number>,
): LatLng | undefined {
  const last = attempts.filter((attempt) => done.has(attempt.sequence)).at(-1);
  if (!last) return undefined;
  return last.location ?? waypoints.find((waypoint) => waypoint.id === last.waypointId)?.location;
}
