import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { db } from '../../functions/data/client';
import { completionEstimate, computeEtas, type EtaStop, type LatLng } from '../../functions/domain/etas';
import { NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import type * as z from '../../functions/shared/zod';
import type { SampleRoute } from '../../local/app/sample-route';
import { apiCaller, type TestAccount } from './fixtures';
import { type ApiResponse, expectSuccess } from './http';
import type { TestApi } from './local-api';
import { exampleRoute, importRoute, readWaypointsAs } from './routes';
import { scanItems } from './table-scans';

export { expectedInvoices, importedWaypoint, trackingUrlUnder } from './routes';

/*
 * The driver app's tests' fixtures: a client of one account that creates drivers, imports routes and reads
 * what the API and the table show, the times the tests report, and the expected views (attempts, waypoints,
 * invoices, events, the ETA model of the contract).
 */

export type Route = z.infer<typeof routes.Route>;
export type Waypoint = z.infer<typeof routes.RouteWaypoint>;
export type Attempt = z.infer<typeof routes.Attempt>;
export type InvoiceStatus = z.infer<typeof routes.InvoiceStatus>;
export type ItemStatus = InvoiceStatus['items'][number]['status'];
export type AccountingRecord = z.infer<typeof routes.AccountingRecord>;
export type DriverRoute = z.infer<typeof driverApp.DriverRoute>;
export type CompletionTime = { type: 'ESTIMATED' | 'ACTUAL' | 'FINALIZED'; timestamp: number };
export type DriverLocation = { timestamp: number; location: LatLng } | null;

export const MINUTE = 60_000;
/** Three hours ago, on a whole second: every reported time of the tests is between BASE and now. */
export const BASE = Math.floor(Date.now() / 1000) * 1000 - 180 * MINUTE;
export const at = (minutes: number) => BASE + minutes * MINUTE;
/** Ten minutes ahead of the clock: refused (the API allows 5 minutes of clock skew). */
export const future = () => Date.now() + 10 * MINUTE;

/**
 * Starts `route` as its driver (`asDriver`) at minute 70, then records a SUCCESSFUL visit at each of its stops
 * at once (minute 80 on, ids `<idPrefix>-<index>`): each visit takes the route's next event sequence.
 */
export async function startAndVisitAllAtOnce(
  asDriver: (method: string, path: string, body?: unknown) => Promise<ApiResponse>,
  route: SampleRoute,
  idPrefix: string,
): Promise<void> {
  const started = await asDriver('POST', `/driver/routes/${route.id}/start`, { timestamp: at(70) });
  expect(started.status, started.text).toBe(200);
  const visits = await Promise.all(
    route.waypoints.map((waypoint, index) =>
      asDriver('POST', `/driver/routes/${route.id}/waypoints/${waypoint.id}/attempts`, {
        id: `${idPrefix}-${index}`,
        timestamp: at(80 + index),
        status: 'SUCCESSFUL',
        location: waypoint.location,
      }),
    ),
  );
  for (const visit of visits) expect(visit.status, visit.text).toBe(200);
}
export const FIVE_MINUTES = 5 * MINUTE;
export const NINETY_DAYS_S = 90 * 86_400;

export function routeOf(id: string, options: Parameters<typeof exampleRoute>[1] & { active?: boolean } = {}) {
  const route = exampleRoute(id, { startTime: BASE, ...options });
  return { ...route, activate_after_successful_import: options.active ?? true };
}

export interface AttemptBody {
  id: string;
  timestamp: number;
  status: 'SUCCESSFUL' | 'FAILED' | 'VISIT_LATER';
  reason?: { code: string; message: string };
  location?: LatLng;
  items?: { id: string; status: 'SUCCESSFUL' | 'FAILED'; reason?: { code: string; message: string } }[];
  proof_ids?: string[];
  signer_name?: string;
  scans?: { value: string; timestamp: number; item_id?: string }[];
  pin?: string;
  age_check?: { method: 'ID_CHECKED'; date_of_birth: string };
}

export const attemptPath = (routeId: string, waypointId: string) =>
  `/driver/routes/${routeId}/waypoints/${waypointId}/attempts`;

export interface EventItem {
  event_type: string;
  account_id: string;
  dc_id: string;
  route_id: string;
  details: Record<string, unknown>;
  occurred_at: number;
  /** The event's number among its route's events (none for a failed import's). */
  sequence?: number | null;
}

const EVENT_ORDER = [
  'ROUTE_CREATED',
  'ROUTE_STARTED',
  'WAYPOINT_STATUS_CHANGED',
  'ROUTE_ETAS_CHANGED',
  'ROUTE_FINISHED',
];

const routeData = (response: ApiResponse, endpoint: Parameters<typeof expectSuccess>[1]) =>
  (expectSuccess(response, endpoint) as { route: Route }).route;

/** What one account does and reads through the API (and, for events and traces, straight from the table). */
export function driverAppClient(api: TestApi, account: TestAccount) {
  const { request, asAccount, asDriver } = apiCaller(api.url, account);

  async function createDriver(dcId: string, driverId: string, loginToken?: string, key = account.key) {
    const response = await request('POST', `/dcs/${dcId}/drivers`, {
      key,
      body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: loginToken },
    });
    return (expectSuccess(response, drivers.createDriver) as { driver: { login_token: string } }).driver
      .login_token;
  }

  async function readRoute(dcId: string, routeId: string): Promise<Route> {
    return routeData(await asAccount('GET', `/dcs/${dcId}/routes/${routeId}`), routes.getRoute);
  }

  const readWaypoints = (dcId: string, routeId: string) => readWaypointsAs(asAccount, dcId, routeId);

  async function readWaypoint(dcId: string, routeId: string, waypointId: string): Promise<Waypoint> {
    const response = await asAccount('GET', `/dcs/${dcId}/routes/${routeId}/waypoints/${waypointId}`);
    return (expectSuccess(response, routes.getWaypoint) as { waypoint: Waypoint }).waypoint;
  }

  async function readInvoices(dcId: string, routeId: string): Promise<InvoiceStatus[]> {
    const response = await asAccount('GET', `/dcs/${dcId}/routes/${routeId}/invoices`);
    return (expectSuccess(response, routes.getInvoiceStatus) as { invoices: InvoiceStatus[] }).invoices;
  }

  async function readAccounting(dcId: string, routeId: string): Promise<AccountingRecord[]> {
    const response = await asAccount('GET', `/dcs/${dcId}/routes/${routeId}/accounting`);
    return (expectSuccess(response, routes.getRouteAccounting) as { records: AccountingRecord[] }).records;
  }

  async function readCompletion(dcId: string, routeId: string): Promise<CompletionTime> {
    const response = await asAccount('GET', `/dcs/${dcId}/routes/${routeId}/completion-time`);
    return expectSuccess(response, routes.getCompletionTime) as CompletionTime;
  }

  async function readActiveRouteIds(dcId: string, driverId: string): Promise<string[]> {
    const response = await asAccount('GET', `/dcs/${dcId}/drivers/${driverId}/active-routes`);
    const { active_routes } = expectSuccess(response, drivers.getDriverActiveRoutes) as {
      active_routes: { route_id: string }[];
    };
    return active_routes.map((route) => route.route_id);
  }

  async function readLocation(dcId: string, driverId: string): Promise<DriverLocation> {
    const response = await asAccount('GET', `/dcs/${dcId}/drivers/${driverId}/location`);
    return (expectSuccess(response, drivers.getDriverLocation) as { driver_location: DriverLocation })
      .driver_location;
  }

  async function driverRoutes(token: string): Promise<DriverRoute[]> {
    const response = await asDriver(token, 'GET', '/driver/routes');
    return (expectSuccess(response, driverApp.listDriverRoutes) as { routes: DriverRoute[] }).routes;
  }

  async function driverStart(token: string, routeId: string, timestamp: number): Promise<Route> {
    const response = await asDriver(token, 'POST', `/driver/routes/${routeId}/start`, { timestamp });
    return routeData(response, driverApp.startDriverRoute);
  }

  async function driverFinish(token: string, routeId: string, timestamp: number): Promise<Route> {
    const response = await asDriver(token, 'POST', `/driver/routes/${routeId}/finish`, { timestamp });
    return routeData(response, driverApp.finishDriverRoute);
  }

  async function driverAttempt(token: string, routeId: string, waypointId: string, body: AttemptBody) {
    const response = await asDriver(token, 'POST', attemptPath(routeId, waypointId), body);
    return (expectSuccess(response, driverApp.recordDriverAttempt) as { attempt: Attempt }).attempt;
  }

  async function driverLocation(token: string, timestamp: number, location: LatLng) {
    const response = await asDriver(token, 'POST', '/driver/location', { timestamp, location });
    expect(expectSuccess(response, driverApp.reportDriverLocation)).toEqual({});
  }

  /** The events written for a route of the account, read straight from the table, in the order they occurred. */
  async function eventsOf(routeId: string): Promise<EventItem[]> {
    const where = { entity: 'EVENT', account_id: account.accountId, route_id: routeId };
    const items = (await scanItems(where, api.tableName)) as EventItem[];
    // A route's events are numbered in the order they were written; events of one request can share a
    // millisecond, and a failed import's has no number: then the time, and the lifecycle order, decide.
    return items.sort(
      (a, b) =>
        (typeof a.sequence === 'number' && typeof b.sequence === 'number' ? a.sequence - b.sequence : 0) ||
        a.occurred_at - b.occurred_at ||
        EVENT_ORDER.indexOf(a.event_type) - EVENT_ORDER.indexOf(b.event_type),
    );
  }

  const eventTypes = async (routeId: string) => (await eventsOf(routeId)).map((event) => event.event_type);

  /** The location trace items of a driver, straight from the table. */
  async function traceOf(dcId: string, driverId: string): Promise<Record<string, number>[]> {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: api.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `TRACE#${account.accountId}/${dcId}/${driverId}` },
        ConsistentRead: true,
      }),
    );
    return Items;
  }

  return {
    account,
    request,
    asAccount,
    asDriver,
    importRoute: (dcId: string, route: unknown) => importRoute(api.url, account.key, dcId, route),
    createDriver,
    readRoute,
    readWaypoints,
    readWaypoint,
    readInvoices,
    readAccounting,
    readCompletion,
    readActiveRouteIds,
    readLocation,
    driverRoutes,
    driverStart,
    driverFinish,
    driverAttempt,
    driverLocation,
    eventsOf,
    eventTypes,
    traceOf,
  };
}

export type DriverAppClient = ReturnType<typeof driverAppClient>;

/** `list[index]`, which the test knows to be there. */
export function nth<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`no element ${index} in a list of ${list.length}`);
  return value;
}

/** What the API answers for an attempt sent with `body` (no scans) by `driverId` at a stop with `requirements`. */
export function attemptView(
  body: AttemptBody,
  driverId: string,
  requirements: Attempt['requirements'] = NO_REQUIREMENTS,
): Attempt {
  return {
    id: body.id,
    timestamp: body.timestamp,
    status: body.status,
    reason: body.reason ?? null,
    location: body.location ?? null,
    items: (body.items ?? []).map((item) => ({
      id: item.id,
      status: item.status,
      reason: item.reason ?? null,
    })),
    proof_ids: body.proof_ids ?? [],
    signer_name: body.signer_name ?? null,
    scans: [],
    requirements,
    pin_verified: false,
    age_check: null,
    driver_id: driverId,
  };
}

// ---------------------------------------------------------------------------------------------------
// The ETA model the contract describes: remaining stops in sequence from where the driver is.
// ---------------------------------------------------------------------------------------------------

export interface Etas {
  etas: (number | null)[];
  completion: number;
}

export function etasFrom(
  route: SampleRoute,
  departAt: number,
  origin: LatLng,
  done: ReadonlySet<number>,
): Etas {
  const stops: EtaStop[] = route.waypoints.map((waypoint) => ({
    id: waypoint.id,
    location: waypoint.location,
    serviceTimeMinutes: waypoint.service_time_minutes,
    timeWindows: waypoint.time_windows,
  }));
  const remaining = stops.filter((_, sequence) => !done.has(sequence));
  const computed = computeEtas({ departAt, origin, stops: remaining });
  return {
    etas: stops.map((stop) => computed.find((eta) => eta.waypointId === stop.id)?.eta ?? null),
    completion: completionEstimate(computed, remaining, route.end_warehouse.location) ?? departAt,
  };
}

/** True when some ETA still to come moved 5 minutes or more from the last set sent. */
export const movedEnough = (next: Etas, emitted: Etas) =>
  next.etas.some((eta, sequence) => {
    const previous = emitted.etas[sequence] ?? null;
    return eta !== null && (previous === null || Math.abs(eta - previous) >= FIVE_MINUTES);
  });

export const etasEventDetails = (route: SampleRoute, etas: Etas) => ({
  etas: route.waypoints.flatMap((waypoint, sequence) => {
    const eta = etas.etas[sequence];
    return eta === null ? [] : [{ waypoint_id: waypoint.id, eta_timestamp: eta }];
  }),
});
