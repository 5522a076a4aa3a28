import type { DriverLocation } from '../data/drivers';
import { pageTracePoints, TRACE_RETENTION_DAYS } from '../data/location-trace';
import type { Page, PageRequest } from '../data/pagination';
import { listWaypointRows } from '../data/route-rows';
import { listVisits } from '../data/route-visits';
import { ValidationError } from '../shared/errors';
import { type DriverRef, requireDriver } from './drivers';
import { type RouteRef, requireRoute } from './routes';

/**
 * Where a driver went (docs/api.md, Location history): the trace of the driver's pings, kept 90 days, read a
 * page at a time in time order; for a route, the trace of its driver from its start to its end, with the
 * arrivals and departures detected on it.
 */

const DAY_MS = 86_400_000;

export { TRACE_RETENTION_DAYS };

/** A page of the driver's pings between `from` and `to` (inclusive; the last day to now when absent). */
export async function driverLocations(
  ref: DriverRef,
  range: { from?: number; to?: number },
  page: PageRequest,
  now = Date.now(),
): Promise<Page<DriverLocation>> {
  const to = range.to ?? now;
  const from = range.from ?? to - DAY_MS;
  if (from > to) throw new ValidationError('query.from: must not be after query.to');
  await requireDriver(ref);
  return pageTracePoints(ref, from, to, page);
}

/** An arrival or a departure at a waypoint, where the waypoint is. */
export interface VisitPoint {
  kind: 'ARRIVED' | 'DEPARTED';
  waypointId: string;
  timestamp: number;
  location: { latitude: number; longitude: number };
}

export interface RouteTrack {
  routeId: string;
  driverId: string | null;
  startedAt: number | null;
  endedAt: number | null;
  points: Page<DriverLocation>;
  /** On the first page only: every arrival and departure on the route, in time order. */
  visits: VisitPoint[];
}

/**
 * A page of the trace of the route's driver from the route's start to its end (now while it runs); empty
 * before the start or without a driver.
 */
export async function routeTrack(ref: RouteRef, page: PageRequest, now = Date.now()): Promise<RouteTrack> {
  const route = await requireRoute(ref);
  const driverId = route.assignedDriverId ?? null;
  const startedAt = route.startedTimestamp ?? null;
  const endedAt = route.finalizedTimestamp ?? null;
  const base = { routeId: route.routeId, driverId, startedAt, endedAt };
  if (driverId === null || startedAt === null) return { ...base, points: { items: [] }, visits: [] };
  const driver = { accountId: route.accountId, dcId: route.dcId, driverId };
  const firstPage = page.nextToken === undefined;
  const [points, visits, waypoints] = await Promise.all([
    pageTracePoints(driver, startedAt, endedAt ?? now, page),
    firstPage ? listVisits(route.accountId, route.routeId) : [],
    firstPage ? listWaypointRows(route.accountId, route.routeId).then((rows) => rows.items) : [],
  ]);
  const locations = new Map(waypoints.map((waypoint) => [waypoint.id, waypoint.location]));
  const visitPoints = visits.flatMap((visit): VisitPoint[] => {
    const location = locations.get(visit.waypointId);
    if (!location) return [];
    const at = { waypointId: visit.waypointId, location };
    return [
      { kind: 'ARRIVED', timestamp: visit.arrivedAt, ...at },
      ...(visit.departedAt === undefined
        ? []
        : [{ kind: 'DEPARTED' as const, timestamp: visit.departedAt, ...at }]),
    ];
  });
  return { ...base, points, visits: visitPoints.sort((a, b) => a.timestamp - b.timestamp) };
}
