import { getDc } from '../data/accounts';
import { type Driver, type DriverLocation, getDriver, type RecentVisit } from '../data/drivers';
import { listTracePoints } from '../data/location-trace';
import type { SequencedEvent } from '../data/route-event-sequences';
import { listWaypointRows } from '../data/route-rows';
import { listVisits, recordVisits, type VisitRecord, type VisitWrites } from '../data/route-visits';
import {
  indexStops,
  keptVisits,
  mayChangeVisits,
  mayMeetDroppedVisits,
  type StopIndex,
  type TracePoint,
  type Visit,
  type VisitChange,
  visitChanges,
  windowAround,
  withChanges,
} from './arrival-detection';
import { type DcSettings, settingsOf } from './dc-settings';

/**
 * Arrival and departure detection on a driver's pings (docs/api.md, "Arrivals and departures"): the use case
 * around the pure detection (./arrival-detection.ts). Its state is the driver's recent visits (each started
 * route's open visits and latest closed ones, KEPT_CLOSED_VISITS), on the driver item every ping updates and
 * reads back anyway, kept small so that the item stays one write unit; a ping that cannot change a visit (far
 * from every stop, or still at the stop of an open visit) costs nothing more. One that may reads a window of
 * the driver's trace, and only one that shows an arrival or a departure writes: the visit, the driver's recent
 * visits and the events, in one transaction. A late ping whose changes reach back past the recent visits is
 * judged again against the route's record of visits. A DC whose settings turn detection off costs a ping one
 * read of the DC a minute.
 */

/** A route's stops and its DC's settings are read at most this often per route and function instance. */
const STOPS_KEPT_MS = 60_000;
const MAX_ATTEMPTS = 4;

interface RouteStops {
  readAt: number;
  index: StopIndex;
  sequences: ReadonlyMap<string, number>;
  settings: DcSettings;
}
const stopsOfRoutes = new Map<string, RouteStops>();

/**
 * The stops of a route and its DC's settings, as read within the last minute: a route revised meanwhile is
 * seen a minute late at most, and a ping missed then is seen again by the next ones' windows.
 */
async function routeStops(
  accountId: string,
  dcId: string,
  routeId: string,
  now: number,
): Promise<RouteStops> {
  const key = `${accountId}/${routeId}`;
  const kept = stopsOfRoutes.get(key);
  if (kept && now - kept.readAt < STOPS_KEPT_MS) return kept;
  const settings = settingsOf(await getDc(accountId, dcId));
  // A DC that turned detection off has its route's stops read by no ping.
  const waypoints = settings.arrivalDetection ? (await listWaypointRows(accountId, routeId)).items : [];
  const read: RouteStops = {
    readAt: now,
    index: indexStops(waypoints.map((waypoint) => ({ id: waypoint.id, location: waypoint.location }))),
    sequences: new Map(waypoints.map((waypoint) => [waypoint.id, waypoint.sequence])),
    settings,
  };
  stopsOfRoutes.set(key, read);
  return read;
}

/** Detects arrivals and departures on each started route of `driver` (as the ping's update answered it). */
export async function detectVisits(driver: Driver, point: DriverLocation, now = Date.now()): Promise<void> {
  await Promise.all(driver.startedRouteIds.map((routeId) => detectOnRoute(driver, routeId, point, now)));
}

const knownOn = (driver: Driver, routeId: string): Visit[] =>
  driver.recentVisits.filter((visit) => visit.routeId === routeId);

async function detectOnRoute(read: Driver, routeId: string, point: DriverLocation, now: number) {
  const stops = await routeStops(read.accountId, read.dcId, routeId, now);
  const { index, settings } = stops;
  if (!settings.arrivalDetection) return;
  let driver: Driver | undefined = read;
  let window: TracePoint[] | undefined;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS && driver?.startedRouteIds.includes(routeId); attempt++) {
    let known = knownOn(driver, routeId);
    if (!mayChangeVisits(point, index, settings, known)) return;
    window ??= await windowOf(driver, point, settings);
    let changes = visitChanges(window, index, settings, known);
    if (changes.length === 0) return;
    if (mayMeetDroppedVisits(changes, known)) {
      known = await recordedVisits(driver, routeId);
      changes = visitChanges(window, index, settings, known);
      if (changes.length === 0) return;
    }
    const outcome = await recordVisits(
      driver,
      routeId,
      visitWrites(driver, stops, known, changes),
      recentVisits(driver, routeId, changes),
      changes.map((change) => eventOf(driver as Driver, routeId, change)),
    );
    if (outcome === 'recorded') return;
    // Another ping's detection (or event of the route) came first: judge again on what it recorded.
    driver = await getDriver(read.accountId, read.dcId, read.driverId);
  }
}

/**
 * Every visit of the route that the driver's detection recorded (the recent visits are the latest of them),
 * read when a late ping reaches back past the recent ones. Any change of them also changes the recent visits,
 * so the write that follows fails if one is recorded meanwhile.
 */
async function recordedVisits(driver: Driver, routeId: string): Promise<Visit[]> {
  const visits = await listVisits(driver.accountId, routeId);
  return visits
    .filter((visit) => visit.driverId === driver.driverId)
    .map(({ waypointId, arrivedAt, departedAt }) => ({ waypointId, arrivedAt, departedAt }));
}

/** The stored pings of the window around `point`, and `point` (stored at the same time, maybe not yet). */
async function windowOf(driver: Driver, point: DriverLocation, settings: DcSettings): Promise<TracePoint[]> {
  const { from, to } = windowAround(point.timestamp, settings);
  const stored = await listTracePoints(driver, from, to);
  return stored.some((other) => other.timestamp === point.timestamp) ? stored : [...stored, point];
}

/** The visit rows to write: each arrival (with its departure when the same window showed it), each departure. */
function visitWrites(driver: Driver, stops: RouteStops, known: Visit[], changes: VisitChange[]): VisitWrites {
  const record = (waypointId: string, arrivedAt: number, departedAt?: number): VisitRecord => ({
    waypointId,
    sequence: stops.sequences.get(waypointId) as number,
    driverId: driver.driverId,
    arrivedAt,
    departedAt,
  });
  const departures = new Map(
    changes.flatMap((change) =>
      change.kind === 'departed' ? [[`${change.waypointId}@${change.arrivedAt}`, change.at] as const] : [],
    ),
  );
  const arrived = changes.flatMap((change) =>
    change.kind === 'arrived'
      ? [record(change.waypointId, change.at, departures.get(`${change.waypointId}@${change.at}`))]
      : [],
  );
  const departed = changes.flatMap((change) =>
    change.kind === 'departed' &&
    known.some((visit) => visit.waypointId === change.waypointId && visit.arrivedAt === change.arrivedAt)
      ? [record(change.waypointId, change.arrivedAt, change.at)]
      : [],
  );
  return { arrived, departed };
}

/** The driver's recent visits after `changes`: its started routes' only, and of this route the ones kept. */
function recentVisits(driver: Driver, routeId: string, changes: VisitChange[]): RecentVisit[] {
  const others = driver.recentVisits.filter(
    (visit) => visit.routeId !== routeId && driver.startedRouteIds.includes(visit.routeId),
  );
  const ofRoute = keptVisits(withChanges(knownOn(driver, routeId), changes));
  return [...others, ...ofRoute.map((visit) => ({ routeId, ...visit }))];
}

function eventOf(driver: Driver, routeId: string, change: VisitChange): SequencedEvent {
  const where = { accountId: driver.accountId, dcId: driver.dcId, routeId, occurredAt: Date.now() };
  if (change.kind === 'arrived')
    return {
      ...where,
      type: 'WAYPOINT_ARRIVED',
      details: { waypoint_id: change.waypointId, driver_id: driver.driverId, arrived_timestamp: change.at },
    };
  return {
    ...where,
    type: 'WAYPOINT_DEPARTED',
    details: {
      waypoint_id: change.waypointId,
      driver_id: driver.driverId,
      arrived_timestamp: change.arrivedAt,
      departed_timestamp: change.at,
      dwell_seconds: Math.floor((change.at - change.arrivedAt) / 1000),
    },
  };
}
