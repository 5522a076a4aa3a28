import { haversineKm, type LatLng } from './etas';

/**
 * Arrival and departure detection from a driver's location pings (docs/api.md, "Arrivals and departures"):
 * pure, so that recorded traces test it without a table.
 *
 * A stop is ARRIVED when the driver's pings stay within `radiusMeters` of it for `dwellSeconds` (the
 * arrival is the first ping of that stay), and DEPARTED at the first ping after it farther than
 * `radiusMeters + marginMeters` (the margin is the hysteresis that keeps GPS jitter at the edge from ending a
 * visit). Any stop of the route may be arrived at, not only the next one, and one stop may be visited again
 * once left. The driver is at one stop at a time: while a visit is open no other stop is arrived at, and
 * among stops within the radius of a ping the nearest one is the candidate (a candidate stays one while the
 * pings stay within its radius, so jitter between two close stops does not restart the dwell).
 *
 * Everything is judged on the pings' own timestamps: detection replays a window of the trace in time order
 * (pings delivered late or out of order are in their place there), and what it finds is reconciled with the
 * visits already recorded, so each arrival and departure is raised once per visit whatever ping revealed it.
 */

export interface TracePoint extends LatLng {
  timestamp: number;
}

export interface Stop {
  id: string;
  location: LatLng;
}

/** A visit: when the driver arrived at a stop and, once known, when the driver left it. */
export interface Visit {
  waypointId: string;
  arrivedAt: number;
  departedAt?: number;
}

/** A DC's detection settings. */
export interface ArrivalSettings {
  radiusMeters: number;
  dwellSeconds: number;
  marginMeters: number;
}

export const DEFAULT_ARRIVAL_SETTINGS: ArrivalSettings = {
  radiusMeters: 100,
  dwellSeconds: 60,
  marginMeters: 50,
};

/**
 * Two pings within a stop's radius further apart than this do not make one stay: the driver may have left and
 * come back (a loop round the block) without a ping in between. A visit, once arrived, is not ended by a gap.
 */
export const MAX_DWELL_GAP_MS = 120_000;

/** A change to record: in time order, an arrival always before the departure of its visit. */
export type VisitChange =
  | { kind: 'arrived'; waypointId: string; at: number }
  | { kind: 'departed'; waypointId: string; arrivedAt: number; at: number };

/**
 * The stops sorted by latitude, so that a ping is compared with the stops of its latitude band only: a route
 * has up to 2,000 stops and a window a few hundred pings.
 */
export interface StopIndex {
  stops: readonly Stop[];
  latitudes: readonly number[];
}

const METERS_PER_DEGREE_LATITUDE = 111_195;

export function indexStops(stops: readonly Stop[]): StopIndex {
  const sorted = [...stops].sort((a, b) => a.location.latitude - b.location.latitude);
  return { stops: sorted, latitudes: sorted.map((stop) => stop.location.latitude) };
}

export const distanceMeters = (a: LatLng, b: LatLng): number => haversineKm(a, b) * 1000;

/** The first index whose latitude is at least `latitude`. */
function lowerBound(latitudes: readonly number[], latitude: number): number {
  let low = 0;
  let high = latitudes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((latitudes[middle] as number) < latitude) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The stops within `meters` of `point`, each with its distance. */
export function stopsWithin(
  index: StopIndex,
  point: LatLng,
  meters: number,
): { stop: Stop; meters: number }[] {
  const band = meters / METERS_PER_DEGREE_LATITUDE;
  const found: { stop: Stop; meters: number }[] = [];
  const end = lowerBound(index.latitudes, point.latitude + band + Number.EPSILON);
  for (let at = lowerBound(index.latitudes, point.latitude - band); at < end; at++) {
    const stop = index.stops[at] as Stop;
    const distance = distanceMeters(point, stop.location);
    if (distance <= meters) found.push({ stop, meters: distance });
  }
  return found;
}

/** The stop nearest to `point` within `meters`, if any. */
function nearestWithin(index: StopIndex, point: LatLng, meters: number): Stop | undefined {
  let best: { stop: Stop; meters: number } | undefined;
  for (const candidate of stopsWithin(index, point, meters))
    if (!best || candidate.meters < best.meters) best = candidate;
  return best?.stop;
}

/**
 * The visits the pings show, replayed in time order. `openAtStart` is a visit already recorded as open when
 * the first ping was taken (the window may start in the middle of it). A visit still open at the last ping
 * has no `departedAt`.
 */
export function replayVisits(
  points: readonly TracePoint[],
  index: StopIndex,
  settings: ArrivalSettings,
  openAtStart?: Visit,
): Visit[] {
  const radius = settings.radiusMeters;
  const leave = settings.radiusMeters + settings.marginMeters;
  const dwellMs = settings.dwellSeconds * 1000;
  const byId = new Map(index.stops.map((stop) => [stop.id, stop]));
  const visits: Visit[] = [];
  let open: { visit: Visit; stop: Stop } | undefined;
  const seeded = openAtStart && byId.get(openAtStart.waypointId);
  if (openAtStart && seeded) open = { visit: { ...openAtStart, departedAt: undefined }, stop: seeded };
  let candidate: { stop: Stop; since: number; lastAt: number } | undefined;

  for (const point of [...points].sort((a, b) => a.timestamp - b.timestamp)) {
    if (open) {
      if (point.timestamp <= open.visit.arrivedAt || distanceMeters(point, open.stop.location) <= leave)
        continue;
      visits.push({ ...open.visit, departedAt: point.timestamp });
      open = undefined;
      candidate = undefined;
    }
    const keeps =
      candidate &&
      point.timestamp - candidate.lastAt <= MAX_DWELL_GAP_MS &&
      distanceMeters(point, candidate.stop.location) <= radius;
    if (candidate && keeps) candidate.lastAt = point.timestamp;
    else {
      const nearest = nearestWithin(index, point, radius);
      candidate = nearest && { stop: nearest, since: point.timestamp, lastAt: point.timestamp };
    }
    if (candidate && candidate.lastAt - candidate.since >= dwellMs) {
      open = { visit: { waypointId: candidate.stop.id, arrivedAt: candidate.since }, stop: candidate.stop };
      candidate = undefined;
    }
  }
  if (open) visits.push(open.visit);
  return visits;
}

/** True when two visits of one stop overlap in time: the same stay, however much of it each saw. */
const sameStay = (a: Visit, b: Visit) =>
  a.waypointId === b.waypointId &&
  a.arrivedAt <= (b.departedAt ?? Number.POSITIVE_INFINITY) &&
  b.arrivedAt <= (a.departedAt ?? Number.POSITIVE_INFINITY);

/**
 * What the pings of a window show that `known` (the visits recorded so far, of this route) does not: new
 * arrivals, and departures from visits recorded as open. A recorded fact is never changed: a visit seen
 * again with another arrival time is the same visit. In time order.
 */
export function visitChanges(
  points: readonly TracePoint[],
  index: StopIndex,
  settings: ArrivalSettings,
  known: readonly Visit[],
): VisitChange[] {
  if (points.length === 0) return [];
  const first = Math.min(...points.map((point) => point.timestamp));
  const openAtStart = known.find(
    (visit) => visit.arrivedAt <= first && (visit.departedAt === undefined || visit.departedAt > first),
  );
  const changes: VisitChange[] = [];
  const recorded = known.map((visit) => ({ ...visit }));
  for (const visit of replayVisits(points, index, settings, openAtStart)) {
    const match = recorded.find((other) => sameStay(other, visit));
    if (!match) {
      // A stay that overlaps another stop's recorded visit would put the driver at two stops at once.
      if (recorded.some((other) => overlaps(other, visit))) continue;
      changes.push({ kind: 'arrived', waypointId: visit.waypointId, at: visit.arrivedAt });
      if (visit.departedAt !== undefined)
        changes.push({
          kind: 'departed',
          waypointId: visit.waypointId,
          arrivedAt: visit.arrivedAt,
          at: visit.departedAt,
        });
      recorded.push(visit);
    } else if (
      match.departedAt === undefined &&
      visit.departedAt !== undefined &&
      visit.departedAt > match.arrivedAt
    ) {
      changes.push({
        kind: 'departed',
        waypointId: match.waypointId,
        arrivedAt: match.arrivedAt,
        at: visit.departedAt,
      });
      match.departedAt = visit.departedAt;
    }
  }
  return changes.sort((a, b) => a.at - b.at || (a.kind === 'departed' ? -1 : 1));
}

const overlaps = (a: Visit, b: Visit) =>
  a.arrivedAt < (b.departedAt ?? Number.POSITIVE_INFINITY) &&
  b.arrivedAt < (a.departedAt ?? Number.POSITIVE_INFINITY);

/**
 * Whether a ping can change anything, from what is recorded alone: a ping within the radius of some stop
 * (an arrival may complete), or farther than radius plus margin from the stop of a visit recorded as open (a
 * departure). Any other ping cannot, and the window need not be read.
 */
export function mayChangeVisits(
  point: TracePoint,
  index: StopIndex,
  settings: ArrivalSettings,
  known: readonly Visit[],
): boolean {
  const open = known.filter((visit) => visit.departedAt === undefined && visit.arrivedAt < point.timestamp);
  if (open.length === 0) return stopsWithin(index, point, settings.radiusMeters).length > 0;
  // While a visit is open no other stop is arrived at: only leaving it changes anything.
  const leave = settings.radiusMeters + settings.marginMeters;
  const locations = new Map(index.stops.map((stop) => [stop.id, stop.location]));
  return open.some((visit) => {
    const location = locations.get(visit.waypointId);
    return location !== undefined && distanceMeters(point, location) > leave;
  });
}

/** How far back and ahead of a ping the window replayed for it reaches. */
export const windowAround = (timestamp: number, settings: ArrivalSettings) => {
  const reach = settings.dwellSeconds * 1000 + 10 * 60_000;
  return { from: timestamp - reach, to: timestamp + reach };
};

/**
 * Closed visits of a route that the driver's detection state keeps beside the open ones (domain/arrivals.ts):
 * enough for the window of a ping that comes in order, which reaches back the dwell time and 10 minutes (a
 * driver leaves one or two stops in that time), and few enough that the driver item, which every ping writes,
 * stays under the 1 KB of one write unit. The route keeps the record of every visit; a change that may meet
 * one of the visits left out (`mayMeetDroppedVisits`) is judged again against that record.
 */
export const KEPT_CLOSED_VISITS = 2;

/** One route's `visits` as the detection state keeps them: the open ones and the latest closed ones. */
export function keptVisits<V extends Visit>(visits: readonly V[]): V[] {
  const dropped = new Set(
    visits
      .filter((visit) => visit.departedAt !== undefined)
      .sort((a, b) => b.arrivedAt - a.arrivedAt)
      .slice(KEPT_CLOSED_VISITS),
  );
  return visits.filter((visit) => !dropped.has(visit));
}

/**
 * Whether `changes`, found against the visits the state kept (`kept`, one route's), may be wrong for want of
 * one it left out: a dropped visit arrived and ended before the oldest closed one kept (the driver is at one
 * stop at a time), so only a change of a visit arriving no later than that can be its stay seen again, or
 * overlap it. A ping that comes in order makes one only when its window (the dwell time and 10 minutes back)
 * holds the stays of more stops than are kept; a late ping from before the kept visits may.
 */
export function mayMeetDroppedVisits(changes: readonly VisitChange[], kept: readonly Visit[]): boolean {
  const closed = kept.filter((visit) => visit.departedAt !== undefined);
  if (closed.length < KEPT_CLOSED_VISITS) return false;
  const oldestKept = Math.min(...closed.map((visit) => visit.arrivedAt));
  return changes.some((change) => (change.kind === 'arrived' ? change.at : change.arrivedAt) <= oldestKept);
}

/** The visits known once `changes` are recorded: arrivals added, departures set on their visits. */
export function withChanges(known: readonly Visit[], changes: readonly VisitChange[]): Visit[] {
  const visits = known.map((visit) => ({ ...visit }));
  for (const change of changes) {
    if (change.kind === 'arrived') visits.push({ waypointId: change.waypointId, arrivedAt: change.at });
    else {
      const visit = visits.find(
        (other) => other.waypointId === change.waypointId && other.arrivedAt === change.arrivedAt,
      );
      if (visit) visit.departedAt = change.at;
    }
  }
  return visits;
}
