import { listActiveRoutesOfDriver, type RouteHeader } from '../data/routes';
import { ApiError, ValidationError } from '../shared/errors';
import { type DriverRef, requireDriver } from './drivers';
import { computeAfterFinish } from './route-analytics';
import { changeRoute, type RouteRef, rejectFinalized, transitionRefused } from './routes';

/**
 * Route states (docs/api.md §4): imported (inactive) -> active -> started -> finalized. Each move is a
 * conditional write of the header (its version) with its event and the driver's route sets (changeRoute).
 * The start is in ./route-start.ts: the start functions bundle nothing of the finish (drivers, analytics).
 */

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
