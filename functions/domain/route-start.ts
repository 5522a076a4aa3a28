import type { RouteHeader } from '../data/routes';
import { ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';
import { refreshEtas } from './route-etas';
import { changeRoute, DriverGoneError, type RouteRef, rejectFinalized, transitionRefused } from './routes';
import { trackingLinksOf } from './tracking-links';

/*
 * The start of a route (docs/api.md §4: active -> started), apart from the other moves of ./route-lifecycle.ts,
 * whose finish reads drivers and computes analytics: the start functions bundle none of that.
 */

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
