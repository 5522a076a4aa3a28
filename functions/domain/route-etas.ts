import { getDc } from '../data/accounts';
import { listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import { getRouteEtas, type RouteEtas, replaceRouteEtas } from '../data/route-etas';
import type { SequencedEvent } from '../data/route-event-sequences';
import type { WaypointRow } from '../data/route-rows';
import { getRouteHeader, type RouteHeader } from '../data/routes';
import { listRouteWaypoints } from '../data/waypoint-order';
import { settingsOf } from './dc-settings';
import { completionEstimate, computeEtas, type EtaStop, type LatLng } from './etas';
import { isDone, progressByWaypoint, progressOf } from './route-progress';
import { trackingLinksOf } from './tracking-links';

/** ROUTE_ETAS_CHANGED goes out only when some ETA moved this much since the last set sent (docs/api.md §7). */
export const ETA_CHANGE_THRESHOLD_MS = 5 * 60_000;
/** Location pings refresh a route's ETAs at most this often (docs/api.md §7). */
export const PING_REFRESH_INTERVAL_MS = 60_000;
/**
 * A large route's ROUTE_ETAS_CHANGED carry at most this many bytes of payload a second on average (docs/api.md
 * §7): after one of more than ETA_EVENT_UNPACED_BYTES the next goes out no sooner than its bytes allow, so a
 * 2,000-stop route's (about 110 KB with short ids) go out at most every two minutes, and the ETA events of a
 * busy account stay within a known rate whatever its routes' sizes. A change held back goes out with the
 * route's next refresh after that. Smaller ones (a 150-stop route's are about 8 KB) are not held back: pings
 * refresh a route at most once a minute.
 */
export const ETA_EVENT_BYTES_PER_SECOND = 1024;
export const ETA_EVENT_UNPACED_BYTES = 16 * 1024;

/** True when the route's last ROUTE_ETAS_CHANGED was long enough ago, by its size, for another at `at`. */
export function etaEventPaceAllows(stored: RouteEtas | undefined, at: number): boolean {
  const { emittedAt, emittedBytes } = stored ?? {};
  if (emittedAt === undefined || emittedBytes === undefined || emittedBytes <= ETA_EVENT_UNPACED_BYTES)
    return true;
  return at - emittedAt >= (emittedBytes / ETA_EVENT_BYTES_PER_SECOND) * 1000;
}
const MAX_REFRESH_ATTEMPTS = 4;

const stopOf = (waypoint: WaypointRow): EtaStop => ({
  id: waypoint.id,
  location: waypoint.location,
  serviceTimeMinutes: waypoint.serviceTimeMinutes,
  timeWindows: waypoint.timeWindows,
});

/**
 * ETAs of the waypoints still to visit (`waypoints` in visiting order), leaving `origin` at `departAt`; the
 * others (done) are null. The result is indexed by waypoint sequence.
 */
function etasFor(
  waypoints: readonly WaypointRow[],
  remaining: ReadonlySet<number>,
  departAt: number,
  origin: LatLng,
  end: LatLng | undefined,
  speedKmh: number | undefined,
): Pick<RouteEtas, 'etas' | 'completion'> {
  const stops = waypoints.filter((waypoint) => remaining.has(waypoint.sequence)).map(stopOf);
  const computed = computeEtas({ departAt, origin, stops, speedKmh });
  // Sized by the highest sequence: a cancelled waypoint leaves its sequence unused (null).
  const length = Math.max(-1, ...waypoints.map((waypoint) => waypoint.sequence)) + 1;
  const bySequence: (number | null)[] = Array.from({ length }, () => null);
  let index = 0;
  for (const waypoint of waypoints) {
    if (remaining.has(waypoint.sequence)) bySequence[waypoint.sequence] = computed[index++]?.eta ?? null;
  }
  return {
    etas: bySequence,
    completion: completionEstimate(computed, stops, end, speedKmh) ?? departAt,
  };
}

/** Planned ETAs, computed at import from the route's start time and start warehouse (or first stop). */
export function plannedEtas(
  route: Pick<RouteHeader, 'startTime' | 'startWarehouse' | 'endWarehouse'>,
  waypoints: readonly WaypointRow[],
  speedKmh: number | undefined,
): RouteEtas {
  const origin = route.startWarehouse?.location ?? waypoints[0]?.location ?? { latitude: 0, longitude: 0 };
  const all = new Set(waypoints.map((waypoint) => waypoint.sequence));
  const planned = etasFor(waypoints, all, route.startTime, origin, route.endWarehouse?.location, speedKmh);
  return { ...planned, emitted: planned.etas, computedAt: route.startTime, approached: [], version: 0 };
}

/** True when some waypoint still to visit has an ETA 5 minutes or more away from the last one sent. */
function movedEnough(next: readonly (number | null)[], emitted: readonly (number | null)[]): boolean {
  return next.some((eta, sequence) => {
    if (eta === null) return false;
    const previous = emitted[sequence];
    return previous === null || previous === undefined || Math.abs(eta - previous) >= ETA_CHANGE_THRESHOLD_MS;
  });
}

/**
 * The waypoints still to visit whose ETA is now within `withinMs` of `at` and that were not announced yet, each
 * with how many waypoints still to visit come before it in the route's order (`waypoints` as the route's
 * read gives them).
 */
export function approachingStops(
  waypoints: readonly WaypointRow[],
  etas: readonly (number | null)[],
  announced: readonly string[],
  { at, withinMs }: { at: number; withinMs: number },
): { waypointId: string; eta: number; stopsBefore: number }[] {
  const stops: { waypointId: string; eta: number; stopsBefore: number }[] = [];
  let before = 0;
  for (const waypoint of waypoints) {
    const eta = etas[waypoint.sequence];
    if (eta === null || eta === undefined) continue;
    if (eta - at <= withinMs && !announced.includes(waypoint.id))
      stops.push({ waypointId: waypoint.id, eta, stopsBefore: before });
    before++;
  }
  return stops;
}

/**
 * Recomputes a started route's ETAs from what happened so far: the waypoints not yet done, in visiting order,
 * from `origin` (where the driver is: the attempt's or ping's location, else the driver's latest, else
 * the start warehouse) at `at`. Writes them with ROUTE_ETAS_CHANGED (each with its waypoint's tracking link)
 * in the same transaction when some ETA moved by 5 minutes or more and the route's last one is far enough
 * behind for its size (ETA_EVENT_BYTES_PER_SECOND), and WAYPOINT_APPROACHING for each waypoint whose ETA came
 * within the DC's approaching_minutes (once per waypoint). Does nothing for a route that is not
 * running. Conditional on the ETA row's and the header's versions, so a concurrent refresh or change makes
 * this one start again.
 */
export async function refreshEtas(
  ref: { accountId: string; routeId: string },
  trigger: { at: number; origin?: LatLng },
): Promise<void> {
  for (let attempt = 1; attempt <= MAX_REFRESH_ATTEMPTS; attempt++) {
    const route = await getRouteHeader(ref.accountId, ref.routeId);
    if (!route || route.deleting || route.isFinalized || route.startedTimestamp === undefined) return;
    const [waypoints, attempts, stored, dc, driver] = await Promise.all([
      listRouteWaypoints(route),
      listAttempts(ref.accountId, ref.routeId),
      getRouteEtas(ref.accountId, ref.routeId),
      getDc(route.accountId, route.dcId),
      trigger.origin || !route.assignedDriverId
        ? undefined
        : getDriver(route.accountId, route.dcId, route.assignedDriverId),
    ]);
    const progress = progressByWaypoint(attempts);
    const remaining = new Set(
      waypoints.filter((waypoint) => !isDone(progressOf(progress, waypoint).status)).map((w) => w.sequence),
    );
    const origin = trigger.origin ??
      driver?.location ??
      route.startWarehouse?.location ??
      waypoints[0]?.location ?? { latitude: 0, longitude: 0 };
    const computed = etasFor(
      waypoints,
      remaining,
      trigger.at,
      origin,
      route.endWarehouse?.location,
      dc?.etaSpeedKmh,
    );
    const emitted = stored?.emitted ?? [];
    const now = Date.now();
    const emit = movedEnough(computed.etas, emitted) && etaEventPaceAllows(stored, now);
    const details = emit
      ? {
          etas: waypoints.flatMap((waypoint) => {
            const eta = computed.etas[waypoint.sequence];
            return eta === null || eta === undefined
              ? []
              : [{ waypoint_id: waypoint.id, eta_timestamp: eta }];
          }),
          tracking_links: trackingLinksOf(route),
        }
      : undefined;
    const approaching = approachingStops(waypoints, computed.etas, stored?.approached ?? [], {
      at: trigger.at,
      withinMs: settingsOf(dc).approachingMinutes * 60_000,
    });
    const next: RouteEtas = {
      ...computed,
      emitted: emit ? computed.etas : emitted,
      computedAt: trigger.at,
      pingRefreshAt: stored?.pingRefreshAt,
      emittedAt: details ? now : stored?.emittedAt,
      emittedBytes: details ? Buffer.byteLength(JSON.stringify(details)) : stored?.emittedBytes,
      approached: [...(stored?.approached ?? []), ...approaching.map((stop) => stop.waypointId)],
      version: (stored?.version ?? -1) + 1,
    };
    const etasEvent: SequencedEvent | undefined = details
      ? {
          accountId: route.accountId,
          dcId: route.dcId,
          routeId: route.routeId,
          type: 'ROUTE_ETAS_CHANGED',
          details,
          occurredAt: now,
        }
      : undefined;
    const approachEvents = approaching.map(
      (stop): SequencedEvent => ({
        accountId: route.accountId,
        dcId: route.dcId,
        routeId: route.routeId,
        type: 'WAYPOINT_APPROACHING',
        details: {
          waypoint_id: stop.waypointId,
          eta_timestamp: stop.eta,
          stops_before: stop.stopsBefore,
          tracking_links: trackingLinksOf(route),
        },
        occurredAt: Date.now(),
      }),
    );
    const events = [...(etasEvent ? [etasEvent] : []), ...approachEvents];
    const outcome = await replaceRouteEtas(route, next, stored?.version, events);
    // Otherwise a newer refresh, a change of the route, or another event of it came since they were read (or
    // was being written): start again.
    if (outcome === 'written') return;
  }
  // Every attempt lost to a newer refresh or change, which computed from newer facts: nothing is missing.
}

/**
 * Recomputes the ETAs after the route's waypoints changed: a started route's from now (refreshEtas), any
 * other's planned ones from its start. Conditional like refreshEtas; a route finished or gone has none to
 * recompute.
 */
export async function recomputeEtas(ref: { accountId: string; routeId: string }): Promise<void> {
  for (let attempt = 1; attempt <= MAX_REFRESH_ATTEMPTS; attempt++) {
    const route = await getRouteHeader(ref.accountId, ref.routeId);
    if (!route || route.deleting || route.isFinalized) return;
    if (route.startedTimestamp !== undefined) return refreshEtas(ref, { at: Date.now() });
    const [waypoints, stored, dc] = await Promise.all([
      listRouteWaypoints(route),
      getRouteEtas(ref.accountId, ref.routeId),
      getDc(route.accountId, route.dcId),
    ]);
    const planned = plannedEtas(route, waypoints, dc?.etaSpeedKmh);
    const next: RouteEtas = { ...planned, version: (stored?.version ?? -1) + 1 };
    const outcome = await replaceRouteEtas(route, next, stored?.version);
    if (outcome === 'written') return;
    // A transaction writing the same items at the same time fails a recomputation (a refresh starts again).
    if (outcome === 'conflicted') throw new Error("another transaction was writing the route's ETAs");
  }
}
