import { listActiveRoutesOfDriver, type RouteHeader } from '../data/routes';
import { ApiError, ConflictError, ValidationError } from '../shared/errors';
import { quote } from '../shared/quote';
import { type DriverRef, requireDriver } from './drivers';
import { computeAfterFinish } from './route-analytics';
import { refreshEtas } from './route-etas';
import { changeRoute, DriverGoneError, type RouteRef, rejectFinalized } from './routes';
import { trackingLinksOf } from './tracking-links';

/**
 * Route states (docs/api.md §4): imported (inactive) -> active -> started -> finalized. Each move is a
 * conditional write of the header (its version) with its event and the driver's route sets (changeRoute).
 */

function transitionRefused(route: RouteHeader, why: string): ConflictError {
  return new ConflictError('TRANSITION_NOT_ALLOWED', `route ${quote(route.routeId)} ${why}`);
}

/**
 * Starts an active route that has a driver (by that driver, or by API key); ROUTE_STARTED, with every
 * waypoint's tracking link; ETAs from now on.
 */
export async function startRoute(ref: RouteRef, at: number): Promise<RouteHeader> {
  let route: RouteHeader;
  try {
    route = await changeRoute(
      ref,
      (current) => {
        rejectFinalized(current);
        if (current.startedTimestamp !== undefined) throw transitionRefused(current, 'has already started');
        if (!current.isActive) throw transitionRefused(current, 'is not active; activate it first');
        if (!current.assignedDriverId) throw transitionRefused(current, 'has no driver; assign one first');
        return { startedTimestamp: at };
      },
      // The route joins the driver's started set (changeRoute), on condition that the driver still exists.
      (next) => ({
        accountId: next.accountId,
        dcId: next.dcId,
        routeId: next.routeId,
        type: 'ROUTE_STARTED',
        details: {
          driver_id: next.assignedDriverId as string,
          started_timestamp: at,
          waypoint_ids: next.waypointIds,
          tracking_links: trackingLinksOf(next),
        },
        occurredAt: Date.now(),
      }),
    );
  } catch (error) {
    // The driver was deleted since the route was assigned (a route assigned before drivers kept their sets).
    if (error instanceof DriverGoneError) {
      throw new ConflictError(
        'DRIVER_NOT_IN_DC',
        `the route's driver is no longer a driver of DC ${quote(ref.dcId)}`,
      );
    }
    throw error;
  }
  await refreshEtas(route, { at });
  return route;
}

/** Finalizes an active or started route; ROUTE_FINISHED; then computes its analytics. */
export async function finishRoute(ref: RouteRef, at: number): Promise<RouteHeader> {
  const route = await changeRoute(
    ref,
    (current) => {
      rejectFinalized(current);
      if (!current.isActive && current.startedTimestamp === undefined) {
        throw transitionRefused(current, 'is neither active nor started');
      }
      if (current.startedTimestamp !== undefined && at < current.startedTimestamp) {
        throw new ValidationError(
          `timestamp: ${at} is before the route started (${current.startedTimestamp})`,
        );
      }
      return { isFinalized: true, isActive: false, finalizedTimestamp: at };
    },
    // The route leaves its driver's sets in the same transaction (changeRoute).
    (next, previous) => ({
      accountId: next.accountId,
      dcId: next.dcId,
      routeId: next.routeId,
      type: 'ROUTE_FINISHED',
      details: { finalized_timestamp: at, driver_id: previous.assignedDriverId ?? null },
      occurredAt: Date.now(),
    }),
  );
  await computeAfterFinish(route);
  return route;
}

/**
 * Finalizes every active or started route of the driver: the started ones from the driver's own item
 * (read consistently), the active ones from the index. Returns the ids this call finalized; a route
 * finished or changed by someone else in the meantime is skipped.
 */
export async function finishRoutesOfDriver(
  driver: { accountId: string; dcId: string; driverId: string; startedRouteIds: readonly string[] },
  at: number,
): Promise<string[]> {
  const active = await listActiveRoutesOfDriver(driver.accountId, driver.dcId, driver.driverId);
  const routeIds = [...new Set([...driver.startedRouteIds, ...active.map((route) => route.routeId)])];
  const finished = await Promise.all(
    routeIds.map(async (routeId) => {
      try {
        await finishRoute({ ...driver, routeId }, at);
        return routeId;
      } catch (error) {
        if (error instanceof ApiError) return undefined;
        throw error;
      }
    }),
  );
  return finished.filter((routeId): routeId is string => routeId !== undefined);
}

/**
 * PATCH .../drivers/{driver_id}/finish-routes: every route of the driver finalized now; the ids this call
 * finalized. Here, not in drivers.ts: every driver endpoint imports that one, and finishing a route brings
 * its analytics, ETAs and events along.
 */
export async function finishDriverRoutes(ref: DriverRef): Promise<string[]> {
  return finishRoutesOfDriver(await requireDriver(ref), Date.now());
}
