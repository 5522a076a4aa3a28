/**
 * Estimated arrival times (docs/architecture.md, Decisions): the remaining stops in visiting order from where the driver is now (or the
 * start warehouse). Travel is the great-circle distance times a road factor over a flat speed, then a stop
 * may wait for its time window to open, then it takes its service time. Pure: no I/O, no clock.
 */

export interface LatLng {
  latitude: number;
  longitude: number;
}

export interface EtaStop {
  id: string;
  location: LatLng;
  /** >= 0 */
  serviceTimeMinutes: number;
  /** Epoch ms; each start < end, in any order, possibly none. */
  timeWindows: { start: number; end: number }[];
}

export interface EtaInput {
  /** Epoch ms: when the driver leaves `origin`. */
  departAt: number;
  /** The driver's latest location, the start warehouse, or the first stop. */
  origin: LatLng;
  /** The remaining stops in visiting order. */
  stops: readonly EtaStop[];
  /** Defaults to DEFAULT_SPEED_KMH. */
  speedKmh?: number;
}

export interface StopEta {
  waypointId: string;
  /** When the driver gets to the stop. */
  arrival: number;
  /** When service starts: the arrival, or later when the stop's time window has not opened yet. */
  eta: number;
  /** When the driver leaves: eta plus the service time. */
  departure: number;
}

export const DEFAULT_SPEED_KMH = 30;
/** Roads are not straight lines: scale the great-circle distance up to approximate the driven one. */
export const ROAD_FACTOR = 1.3;

/** Mean earth radius (IUGG). */
const EARTH_RADIUS_KM = 6371.0088;
const MS_PER_HOUR = 3_600_000;
const MS_PER_MINUTE = 60_000;

const toRadians = (degrees: number) => (degrees * Math.PI) / 180;

export function haversineKm(a: LatLng, b: LatLng): number {
  const dLat = toRadians(b.latitude - a.latitude);
  const dLng = toRadians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(a.latitude)) * Math.cos(toRadians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  // Rounding can push h a hair above 1 for near-antipodal points, where asin would return NaN.
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** A zero, negative or non-finite speed would give infinite, negative or NaN times: refuse it up front. */
function checkSpeed(speedKmh: number): void {
  if (!Number.isFinite(speedKmh) || speedKmh <= 0) {
    throw new RangeError(`speedKmh must be a positive finite number, got ${speedKmh}`);
  }
}

/**
 * The service's travel model: how far the driver drives from `a` to `b` (travelMeters) and how long it takes
 * (travelMillis), the great-circle distance times ROAD_FACTOR at a flat speed. The ETAs, the analytics' planned
 * figures and the route optimizer all use these two, so they are the one place a road-network source (a route
 * matrix such as Amazon Location Service's, or an OSRM table) would plug in: the optimizer only needs a
 * time between every two places of a route, and assumes it the same both ways.
 */
export function travelMeters(a: LatLng, b: LatLng): number {
  return haversineKm(a, b) * ROAD_FACTOR * 1000;
}

export function travelMillis(a: LatLng, b: LatLng, speedKmh: number): number {
  checkSpeed(speedKmh);
  // Whole milliseconds, so every time derived from it stays an integer epoch.
  return Math.round(((haversineKm(a, b) * ROAD_FACTOR) / speedKmh) * MS_PER_HOUR);
}

/** When service can start for a driver arriving at `arrival`. */
function serviceStart(arrival: number, windows: EtaStop['timeWindows']): number {
  if (windows.length === 0) return arrival;
  if (windows.some((w) => w.start <= arrival && arrival < w.end)) return arrival;
  // Windows come in any order: wait for the earliest one still to open.
  const upcoming = windows.filter((w) => w.start > arrival).map((w) => w.start);
  // Every window has already closed: the driver is late and serves on arrival rather than waiting for nothing.
  return upcoming.length > 0 ? Math.min(...upcoming) : arrival;
}

const serviceMillis = (stop: EtaStop) => Math.round(stop.serviceTimeMinutes * MS_PER_MINUTE);

export function computeEtas(input: EtaInput): StopEta[] {
  const speed = input.speedKmh ?? DEFAULT_SPEED_KMH;
  checkSpeed(speed);
  const etas: StopEta[] = [];
  let t = input.departAt;
  let position = input.origin;
  for (const stop of input.stops) {
    const arrival = t + travelMillis(position, stop.location, speed);
    const eta = serviceStart(arrival, stop.timeWindows);
    const departure = eta + serviceMillis(stop);
    etas.push({ waypointId: stop.id, arrival, eta, departure });
    t = departure;
    position = stop.location;
  }
  return etas;
}

/**
 * Completion estimate: departure from the last stop, plus travel to `end` when given. undefined for no stops.
 * The last stop's location is looked up by id in `stops`, so `stops` may be the whole route or just the stops
 * the ETAs were computed for.
 */
export function completionEstimate(
  etas: readonly StopEta[],
  stops: readonly EtaStop[],
  end: LatLng | undefined,
  speedKmh: number = DEFAULT_SPEED_KMH,
): number | undefined {
  checkSpeed(speedKmh);
  const last = etas.at(-1);
  if (last === undefined) return undefined;
  if (end === undefined) return last.departure;
  const lastStop = stops.find((stop) => stop.id === last.waypointId);
  if (lastStop === undefined) throw new Error(`No stop ${last.waypointId} among the stops given`);
  return last.departure + travelMillis(lastStop.location, end, speedKmh);
}
