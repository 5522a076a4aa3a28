import { getDc } from '../data/accounts';
import { listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import { getRouteEtas } from '../data/route-etas';
import { getWaypointRow } from '../data/route-rows';
import { getRouteHeader, type RouteHeader, waypointSequencesOf } from '../data/routes';
import { getTrackingLookup, type TrackingLookup } from '../data/tracking-links';
import { appliedRequirements } from '../models/delivery-requirements';
import { TRACKING_TOKEN_PATTERN } from '../models/tracking-links';
import { ApiError } from '../shared/errors';
import { isDone, progressByWaypoint, type WaypointStatus } from './route-progress';
import { pinOfWaypoint } from './stop-pins';

/** A tracking link stops working this long after its waypoint was done or its route finished. */
export const TRACKING_LINK_LIFETIME_MS = 24 * 3_600_000;

/** The ETA window a customer is shown: this much either side of the ETA, widened to whole 5 minutes. */
const ETA_WINDOW_HALF_MS = 15 * 60_000;
const ETA_WINDOW_STEP_MS = 5 * 60_000;

/** Where the route stands, as its customers see it. */
export type TrackedRouteStatus = 'PLANNED' | 'STARTED' | 'FINISHED';

/**
 * What the tracking page of a waypoint shows its customer (docs/api.md, Tracking): its own stop and nothing of
 * any other, the driver by first name only and never where the driver is.
 */
export interface TrackedStop {
  dcName: string;
  /** The DC's IANA zone: the page writes times in it. */
  timeZone: string;
  stopName: string | null;
  address: string | null;
  status: WaypointStatus;
  routeStatus: TrackedRouteStatus;
  /** Expected arrival while the waypoint is to be visited on a route not finished; null otherwise. */
  eta: number | null;
  etaWindow: { start: number; end: number } | null;
  /** Waypoints still to visit before this one, while it is to be visited; null otherwise. */
  stopsBefore: number | null;
  /** The driver is close: WAYPOINT_APPROACHING went out for this waypoint, and it is still to be visited. */
  driverClose: boolean;
  /** When its final visit (SUCCESSFUL or FAILED) happened; null while it is not done. */
  completedAt: number | null;
  driverFirstName: string | null;
  /**
   * The code the customer gives the driver, for a stop that requires a PIN while its delivery is to come; null
   * otherwise. The page is the customer's own: the one holder of its token.
   */
  pin: string | null;
  /** When the link stops working, once the waypoint is done or the route finished; null before. */
  expiresAt: number | null;
}

const notFound = () =>
  new ApiError('TRACKING_LINK_NOT_FOUND', 'path.token: no waypoint has this tracking link');

/** What a tracking token names, and its route; 404 (7000) for a token no waypoint of a route has. */
export async function routeOfToken(token: string): Promise<{ lookup: TrackingLookup; route: RouteHeader }> {
  if (!TRACKING_TOKEN_PATTERN.test(token)) throw notFound();
  const lookup = await getTrackingLookup(token);
  if (!lookup) throw notFound();
  const route = await getRouteHeader(lookup.accountId, lookup.routeId);
  // A lookup outliving its route (a deletion under way), or one of an earlier route with the same id.
  if (!route || route.deleting || route.importTxid !== lookup.importTxid) throw notFound();
  return { lookup, route };
}

/**
 * The waypoint a tracking token names, as its customer may see it at `now`. 404 (7000) for a token no
 * waypoint has (a route deleted, or imported again since, included), 410 (7001) once the link expired.
 */
export async function trackedStop(token: string, now: number): Promise<TrackedStop> {
  const { lookup, route } = await routeOfToken(token);
  const { accountId, routeId, waypointSequence: sequence } = lookup;
  const [waypoint, attempts, etas, dc, driver] = await Promise.all([
    getWaypointRow(accountId, routeId, sequence),
    listAttempts(accountId, routeId, { first: sequence, last: sequence }),
    getRouteEtas(accountId, routeId),
    getDc(accountId, route.dcId),
    route.assignedDriverId ? getDriver(accountId, route.dcId, route.assignedDriverId) : undefined,
  ]);
  if (!waypoint || !dc) throw notFound();

  const progress = progressByWaypoint(attempts).get(waypoint.id);
  const status = progress?.status ?? 'PENDING';
  const completedAt = isDone(status) ? (progress?.attempts.at(-1)?.timestamp ?? null) : null;
  const ends = [completedAt, route.finalizedTimestamp ?? null].filter((at): at is number => at !== null);
  const expiresAt = ends.length > 0 ? Math.min(...ends) + TRACKING_LINK_LIFETIME_MS : null;
  if (expiresAt !== null && now >= expiresAt)
    throw new ApiError(
      'TRACKING_LINK_EXPIRED',
      `path.token: this tracking link expired at ${new Date(expiresAt).toISOString()}`,
    );

  const routeStatus: TrackedRouteStatus = route.isFinalized
    ? 'FINISHED'
    : route.startedTimestamp !== undefined
      ? 'STARTED'
      : 'PLANNED';
  const toVisit = !isDone(status) && routeStatus !== 'FINISHED';
  const eta = toVisit ? (etas?.etas[sequence] ?? null) : null;
  const pin =
    toVisit && appliedRequirements(route.defaultRequirements, waypoint.requirements).pin
      ? await pinOfWaypoint(accountId, routeId, sequence)
      : null;
  return {
    dcName: dc.name,
    timeZone: dc.timeZone,
    stopName: waypoint.name ?? null,
    address: waypoint.address ?? null,
    status,
    routeStatus,
    eta,
    etaWindow: eta === null ? null : etaWindowOf(eta),
    // The stored ETAs leave out the waypoints done: the others before this one (in visiting order) are still
    // to come.
    stopsBefore:
      eta === null || !etas ? null : stopsBeforeOf(waypointSequencesOf(route), sequence, etas.etas),
    driverClose:
      eta !== null && routeStatus === 'STARTED' && (etas?.approached.includes(waypoint.id) ?? false),
    completedAt,
    driverFirstName: driver ? firstNameOf(driver.name) : null,
    pin,
    expiresAt,
  };
}

/** The waypoints before `sequence` in the visiting order `order` that still have an ETA (are to be visited). */
function stopsBeforeOf(order: readonly number[], sequence: number, etas: readonly (number | null)[]): number {
  const position = order.indexOf(sequence);
  return order.slice(0, Math.max(0, position)).filter((other) => (etas[other] ?? null) !== null).length;
}

export function etaWindowOf(eta: number): { start: number; end: number } {
  return {
    start: Math.floor((eta - ETA_WINDOW_HALF_MS) / ETA_WINDOW_STEP_MS) * ETA_WINDOW_STEP_MS,
    end: Math.ceil((eta + ETA_WINDOW_HALF_MS) / ETA_WINDOW_STEP_MS) * ETA_WINDOW_STEP_MS,
  };
}

/** A driver's name is one text: its first word stands for the first name (`Ana María Ruiz` is `Ana`). */
export const firstNameOf = (name: string) => name.trim().split(/\s+/u)[0] ?? '';
