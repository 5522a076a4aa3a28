import type { RouteHeader } from '../data/routes';
import { ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';
import { refreshEtas } from './route-etas';
import {
  changeRoute,
  DriverGoneError,
  type RouteRef,
  rejectFinalized,
  requireRoute,
  transitionRefused,
} from './routes';
import { pinsOfRoute } from './stop-pins';
import { trackingLinksOf } from './tracking-links';

/*
 * The start of a route (docs/api.md §4: active -> started), apart from the other moves of ./route-lifecycle.ts:
 * its ROUTE_STARTED carries the codes of the stops that require a PIN, which only the two start functions may
 * open (KMS); a module the finish shares would carry the KMS client into the finish functions too.
 */

/**
 * Starts an active route that has a driver (by that driver, or by API key); ROUTE_STARTED, with every
 * waypoint's tracking link and the codes of the stops that require a PIN (read with the route's version, and
 * read again when the route changed before the start was written); ETAs from now on.
 */
export async function startRoute(ref: RouteRef, at: number): Promise<RouteHeader> {
  for (let attempt = 1; ; attempt++) {
    const seen = await requireRoute(ref);
    // A route that cannot start needs no code opened: its start is refused below.
    const startable = seen.startedTimestamp === undefined && !seen.isFinalized;
    const pins = startable ? await pinsOfRoute(ref.accountId, ref.routeId) : new Map<string, string>();
    try {
      const route = await startSeen(ref, at, seen.version, pins);
      await refreshEtas(route, { at });
      return route;
    } catch (error) {
      if (!(error instanceof PinsOutdated) || attempt >= MAX_START_ATTEMPTS) throw error;
    }
  }
}

/** How often a start reads the PINs again after the route changed under it. */
const MAX_START_ATTEMPTS = 5;

/** The route changed between the read of its PINs and the start's write: a revision may have drawn some. */
class PinsOutdated extends Error {}

async function startSeen(
  ref: RouteRef,
  at: number,
  seenVersion: number,
  pins: ReadonlyMap<string, string>,
): Promise<RouteHeader> {
  try {
    return await changeRoute(
      ref,
      (current) => {
        rejectFinalized(current);
        if (current.startedTimestamp !== undefined) throw transitionRefused(current, 'has already started');
        if (!current.isActive) throw transitionRefused(current, 'is not active; activate it first');
        if (!current.assignedDriverId) throw transitionRefused(current, 'has no driver; assign one first');
        if (current.version !== seenVersion) throw new PinsOutdated();
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
          // Beside waypoint_ids, in their order (a list of codes only: ids twice would not fit the event).
          ...(pins.size > 0 && { pins: next.waypointIds.map((id) => pins.get(id) ?? null) }),
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
}
