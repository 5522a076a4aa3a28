import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { db } from '../../functions/data/client';
import { completionEstimate, computeEtas, type EtaStop, type LatLng } from '../../functions/domain/etas';
import type { SampleRoute } from '../../local/sample-route';
import { createTestAccount } from '../support/accounts';
import { type ApiResponse, type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute } from '../support/routes';

type Route = z.infer<typeof routes.Route>;
type Waypoint = z.infer<typeof routes.Waypoint>;
type Attempt = z.infer<typeof routes.Attempt>;
type InvoiceStatus = z.infer<typeof routes.InvoiceStatus>;
type ItemStatus = InvoiceStatus['items'][number]['status'];
type AccountingRecord = z.infer<typeof routes.AccountingRecord>;
type DriverRoute = z.infer<typeof driverApp.DriverRoute>;
type CompletionTime = { type: 'ESTIMATED' | 'ACTUAL' | 'FINALIZED'; timestamp: number };
type DriverLocation = { timestamp: number; location: LatLng } | null;

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: acme.key, body });
/** A call of the driver app, signed with a login token. */
const asDriver = (token: string, method: string, path: string, body?: unknown) =>
  request(method, path, { key: token, body });

const MINUTE = 60_000;
/** Three hours ago, on a whole second: every reported time of the tests is between BASE and now. */
const BASE = Math.floor(Date.now() / 1000) * 1000 - 180 * MINUTE;
const at = (minutes: number) => BASE + minutes * MINUTE;
/** Ten minutes ahead of the clock: refused (the API allows 5 minutes of clock skew). */
const future = () => Date.now() + 10 * MINUTE;

const FIVE_MINUTES = 5 * MINUTE;
const NINETY_DAYS_S = 90 * 86_400;

beforeAll(async () => {
  api = await startTestApi('driver-app');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
  // Globex has a DC with the same id as one of Acme's: every id is per account.
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

async function createDriver(dcId: string, driverId: string, loginToken?: string, key = acme.key) {
  const response = await request('POST', `/dcs/${dcId}/drivers`, {
    key,
    body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: loginToken },
  });
  return (expectSuccess(response, drivers.createDriver) as { driver: { login_token: string } }).driver
    .login_token;
}

function routeOf(id: string, options: Parameters<typeof exampleRoute>[1] & { active?: boolean } = {}) {
  const route = exampleRoute(id, { startTime: BASE, ...options });
  return { ...route, activate_after_successful_import: options.active ?? true };
}

async function readRoute(dcId: string, routeId: string, key = acme.key): Promise<Route> {
  const response = await request('GET', `/dcs/${dcId}/routes/${routeId}`, { key });
  return (expectSuccess(response, routes.getRoute) as { route: Route }).route;
}

async function readWaypoints(dcId: string, routeId: string): Promise<Waypoint[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/waypoints`);
  return (expectSuccess(response, routes.listWaypoints) as { waypoints: Waypoint[] }).waypoints;
}

async function readWaypoint(dcId: string, routeId: string, waypointId: string): Promise<Waypoint> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/waypoints/${waypointId}`);
  return (expectSuccess(response, routes.getWaypoint) as { waypoint: Waypoint }).waypoint;
}

async function readInvoices(dcId: string, routeId: string): Promise<InvoiceStatus[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/invoices`);
  return (expectSuccess(response, routes.getInvoiceStatus) as { invoices: InvoiceStatus[] }).invoices;
}

async function readAccounting(dcId: string, routeId: string): Promise<AccountingRecord[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/accounting`);
  return (expectSuccess(response, routes.getRouteAccounting) as { records: AccountingRecord[] }).records;
}

async function readCompletion(dcId: string, routeId: string): Promise<CompletionTime> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/completion-time`);
  return expectSuccess(response, routes.getCompletionTime) as CompletionTime;
}

async function readActiveRouteIds(dcId: string, driverId: string): Promise<string[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/drivers/${driverId}/active-routes`);
  const { active_routes } = expectSuccess(response, drivers.getDriverActiveRoutes) as {
    active_routes: { route_id: string }[];
  };
  return active_routes.map((route) => route.route_id);
}

async function readLocation(dcId: string, driverId: string): Promise<DriverLocation> {
  const response = await asAcme('GET', `/dcs/${dcId}/drivers/${driverId}/location`);
  return (expectSuccess(response, drivers.getDriverLocation) as { driver_location: DriverLocation })
    .driver_location;
}

async function driverRoutes(token: string): Promise<DriverRoute[]> {
  const response = await asDriver(token, 'GET', '/driver/routes');
  return (expectSuccess(response, driverApp.listDriverRoutes) as { routes: DriverRoute[] }).routes;
}

const routeData = (response: ApiResponse, endpoint: Parameters<typeof expectSuccess>[1]) =>
  (expectSuccess(response, endpoint) as { route: Route }).route;

async function driverStart(token: string, routeId: string, timestamp: number): Promise<Route> {
  const response = await asDriver(token, 'POST', `/driver/routes/${routeId}/start`, { timestamp });
  return routeData(response, driverApp.startDriverRoute);
}

async function driverFinish(token: string, routeId: string, timestamp: number): Promise<Route> {
  const response = await asDriver(token, 'POST', `/driver/routes/${routeId}/finish`, { timestamp });
  return routeData(response, driverApp.finishDriverRoute);
}

interface AttemptBody {
  id: string;
  timestamp: number;
  status: 'SUCCESSFUL' | 'FAILED' | 'VISIT_LATER';
  reason?: { code: string; message: string };
  location?: LatLng;
  items?: { id: string; status: 'SUCCESSFUL' | 'FAILED'; reason?: { code: string; message: string } }[];
}

const attemptPath = (routeId: string, waypointId: string) =>
  `/driver/routes/${routeId}/waypoints/${waypointId}/attempts`;

async function driverAttempt(
  token: string,
  routeId: string,
  waypointId: string,
  body: AttemptBody,
): Promise<Attempt> {
  const response = await asDriver(token, 'POST', attemptPath(routeId, waypointId), body);
  return (expectSuccess(response, driverApp.recordDriverAttempt) as { attempt: Attempt }).attempt;
}

async function driverLocation(token: string, timestamp: number, location: LatLng) {
  const response = await asDriver(token, 'POST', '/driver/location', { timestamp, location });
  expect(expectSuccess(response, driverApp.reportDriverLocation)).toEqual({});
}

/** `list[index]`, which the test knows to be there. */
function nth<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`no element ${index} in a list of ${list.length}`);
  return value;
}

/** What the API answers for an attempt sent with `body` by `driverId`. */
function attemptView(body: AttemptBody, driverId: string): Attempt {
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
    driver_id: driverId,
  };
}

interface EventItem {
  event_type: string;
  account_id: string;
  dc_id: string;
  route_id: string;
  details: Record<string, unknown>;
  occurred_at: number;
}

const EVENT_ORDER = [
  'ROUTE_CREATED',
  'ROUTE_STARTED',
  'WAYPOINT_STATUS_CHANGED',
  'ROUTE_ETAS_CHANGED',
  'ROUTE_FINISHED',
];

/** The events written for a route, read straight from the table, in the order they occurred. */
async function eventsOf(accountId: string, routeId: string): Promise<EventItem[]> {
  const items: EventItem[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: api.tableName,
        FilterExpression: 'entity = :entity AND account_id = :account AND route_id = :route',
        ExpressionAttributeValues: { ':entity': 'EVENT', ':account': accountId, ':route': routeId },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...((page.Items ?? []) as EventItem[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  // Events of one request can share a millisecond: then the lifecycle order decides.
  return items.sort(
    (a, b) =>
      a.occurred_at - b.occurred_at || EVENT_ORDER.indexOf(a.event_type) - EVENT_ORDER.indexOf(b.event_type),
  );
}

const eventTypes = async (accountId: string, routeId: string) =>
  (await eventsOf(accountId, routeId)).map((event) => event.event_type);

/** The waypoint fields the import sets, as every waypoint read shows them. */
function importedWaypoint(route: SampleRoute, sequence: number) {
  const waypoint = nth(route.waypoints, sequence);
  return {
    id: waypoint.id,
    sequence,
    customer_id: waypoint.customer_id,
    name: waypoint.name,
    address: waypoint.address,
    location: waypoint.location,
    service_time_minutes: waypoint.service_time_minutes,
    time_windows: waypoint.time_windows,
    invoice_ids: waypoint.invoices.map((invoice) => invoice.id),
  };
}

/** The invoices of a route as the invoice read shows them, with the items' statuses given by id. */
function expectedInvoices(route: SampleRoute, statuses: Record<string, ItemStatus>): InvoiceStatus[] {
  return route.waypoints.flatMap((waypoint) =>
    waypoint.invoices.map((invoice) => ({
      id: invoice.id,
      payment_method: invoice.payment_method,
      invoice_name_attributes: invoice.invoice_name_attributes,
      items: invoice.items.map((item) => ({
        id: item.id,
        sku: item.sku ?? null,
        name: item.name ?? null,
        quantity: item.quantity,
        total_price_cents: item.total_price_cents,
        currency: item.currency,
        status: statuses[item.id] ?? null,
      })),
    })),
  );
}

// ---------------------------------------------------------------------------------------------------
// The ETA model the contract describes: remaining stops in sequence from where the driver is.
// ---------------------------------------------------------------------------------------------------

interface Etas {
  etas: (number | null)[];
  completion: number;
}

function etasFrom(route: SampleRoute, departAt: number, origin: LatLng, done: ReadonlySet<number>): Etas {
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
const movedEnough = (next: Etas, emitted: Etas) =>
  next.etas.some((eta, sequence) => {
    const previous = emitted.etas[sequence] ?? null;
    return eta !== null && (previous === null || Math.abs(eta - previous) >= FIVE_MINUTES);
  });

const etasEventDetails = (route: SampleRoute, etas: Etas) => ({
  etas: route.waypoints.flatMap((waypoint, sequence) => {
    const eta = etas.etas[sequence];
    return eta === null ? [] : [{ waypoint_id: waypoint.id, eta_timestamp: eta }];
  }),
});

// ---------------------------------------------------------------------------------------------------
// 1. A whole delivery day
// ---------------------------------------------------------------------------------------------------

describe('a whole delivery day through the driver app', () => {
  const driverId = 'day-driver';
  const token = 'day-driver-login-token-01';
  const day = routeOf('day-1', { waypoints: 3, driverId });
  /** A second active route of the driver, planned for tomorrow and imported first. */
  const tomorrow = routeOf('day-2', { waypoints: 1, driverId, startTime: BASE + 24 * 60 * MINUTE });
  const warehouse = day.start_warehouse.location;
  const wp = (sequence: number) => nth(day.waypoints, sequence);
  const item = (w: number, t: number) => nth(nth(wp(w).invoices, 0).items, t).id;

  /** What every read must show, updated as the day goes on. */
  const state = {
    status: ['PENDING', 'PENDING', 'PENDING'] as Waypoint['status'][],
    attempts: [[], [], []] as Attempt[][],
    items: {} as Record<string, ItemStatus>,
    etas: etasFrom(day, BASE, warehouse, new Set()),
    emitted: etasFrom(day, BASE, warehouse, new Set()),
    done: new Set<number>(),
    /** The event types expected so far, in order; the details are checked at the end. */
    events: ['ROUTE_CREATED'] as string[],
    etaEvents: [] as Etas[],
  };

  /** Recomputes the ETAs as an action at `timestamp` from `origin` does; expects an event when they moved. */
  function refresh(timestamp: number, origin: LatLng) {
    state.etas = etasFrom(day, timestamp, origin, state.done);
    if (movedEnough(state.etas, state.emitted)) {
      state.emitted = state.etas;
      state.events.push('ROUTE_ETAS_CHANGED');
      state.etaEvents.push(state.etas);
      return true;
    }
    return false;
  }

  async function expectReadsMatchState() {
    const waypoints = await readWaypoints('dc-1', day.id);
    const expected = day.waypoints.map((_, sequence) => ({
      ...importedWaypoint(day, sequence),
      status: state.status[sequence],
      eta: state.done.has(sequence) ? null : state.etas.etas[sequence],
      attempts: state.attempts[sequence],
    }));
    expect(waypoints).toEqual(expected);
    for (const waypoint of expected) {
      expect(await readWaypoint('dc-1', day.id, waypoint.id)).toEqual(waypoint);
    }
    expect(await readInvoices('dc-1', day.id)).toEqual(expectedInvoices(day, state.items));
    expect(await eventTypes(acme.accountId, day.id)).toEqual(state.events);
    return waypoints;
  }

  /** The driver app's view of the route is the API key's reads put together. */
  async function expectDriverViewMatchesReads(listed: DriverRoute | undefined) {
    const [route, waypoints, invoices] = await Promise.all([
      readRoute('dc-1', day.id),
      readWaypoints('dc-1', day.id),
      readInvoices('dc-1', day.id),
    ]);
    expect(listed).toEqual({
      ...route,
      waypoints: waypoints.map((waypoint) => ({
        ...waypoint,
        invoices: invoices.filter((invoice) => waypoint.invoice_ids.includes(invoice.id)),
      })),
    });
  }

  let imported: Route;
  let started: Route;

  beforeAll(async () => {
    expect(await createDriver('dc-1', driverId, token)).toBe(token);
    await importRoute(api.url, acme.key, 'dc-1', tomorrow);
    await importRoute(api.url, acme.key, 'dc-1', day);
  });

  it('shows the imported route with planned ETAs and an estimated completion', async () => {
    imported = await readRoute('dc-1', day.id);
    expect(imported).toMatchObject({
      id: day.id,
      assigned_driver_id: driverId,
      start_time: BASE,
      version: 1,
      is_active: true,
      is_finalized: false,
      started_timestamp: null,
      finalized_timestamp: null,
    });
    const waypoints = await expectReadsMatchState();
    // Planned from the start warehouse at start_time: nobody waits before the window opens at +1 h.
    expect(waypoints.map((waypoint) => waypoint.eta)).toEqual(state.etas.etas);
    expect(nth(waypoints, 0).eta).toBe(at(60));
    expect(await readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
    expect(await readAccounting('dc-1', day.id)).toEqual([]);
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([day.id, tomorrow.id]);
    expect(await readLocation('dc-1', driverId)).toBeNull();
  });

  it('lists the driver’s active routes by start time, in full', async () => {
    const listed = await driverRoutes(token);
    expect(listed.map((route) => route.id)).toEqual([day.id, tomorrow.id]);
    await expectDriverViewMatchesReads(nth(listed, 0));
    expect(nth(nth(nth(listed, 0).waypoints, 0).invoices, 0).items.map((entry) => entry.status)).toEqual([
      null,
      null,
    ]);
  });

  it('keeps the newest location when an older ping arrives later, and traces every ping', async () => {
    await driverLocation(token, at(5), warehouse);
    await driverLocation(token, at(2), { latitude: 40.1, longitude: -88.2 });
    const latest = { timestamp: at(5), location: warehouse };
    expect(await readLocation('dc-1', driverId)).toEqual(latest);
    const bulk = await asAcme('GET', `/dcs/dc-1/drivers/${driverId}/driver_bulk_info`);
    expect(expectSuccess(bulk, drivers.getDriverBulkInfo)).toEqual({
      driver: { id: driverId, name: `Driver ${driverId}`, login_token: token },
      driver_location: latest,
    });
  });

  it('refuses to delete the driver while it has active routes (2001)', async () => {
    expectError(await asAcme('DELETE', `/dcs/dc-1/drivers/${driverId}`), 400, 2001);
    expect(await driverRoutes(token)).toHaveLength(2);
  });

  it('starts the route as the driver: started_timestamp, version 2, ROUTE_STARTED and moved ETAs', async () => {
    started = await driverStart(token, day.id, at(70));
    expect(started).toEqual({
      ...imported,
      started_timestamp: at(70),
      version: 2,
      is_active: true,
      is_finalized: false,
    });
    expect(await readRoute('dc-1', day.id)).toEqual(started);
    state.events.push('ROUTE_STARTED');
    // From the warehouse (where the driver last was) at the start: 70 minutes later than planned.
    expect(refresh(at(70), warehouse)).toBe(true);
    await expectReadsMatchState();
    expect(await readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([day.id, tomorrow.id]);
    const listed = await driverRoutes(token);
    expect(listed.map((route) => [route.id, route.started_timestamp])).toEqual([
      [day.id, at(70)],
      [tomorrow.id, null],
    ]);
  });

  it('takes a ping that leaves the ETAs where they are without a ROUTE_ETAS_CHANGED', async () => {
    await driverLocation(token, at(70), warehouse);
    expect(refresh(at(70), warehouse)).toBe(false);
    await expectReadsMatchState();
  });

  it('records waypoint 0 SUCCESSFUL: every item delivered, ETAs of the rest move', async () => {
    const body: AttemptBody = {
      id: 'visit-0',
      timestamp: at(80),
      status: 'SUCCESSFUL',
      location: wp(0).location,
    };
    const attempt = await driverAttempt(token, day.id, wp(0).id, body);
    expect(attempt).toEqual(attemptView(body, driverId));
    state.status[0] = 'SUCCESSFUL';
    state.attempts[0] = [attempt];
    state.done.add(0);
    for (const t of [0, 1]) state.items[item(0, t)] = { status: 'SUCCESSFUL', timestamp: at(80) };
    state.events.push('WAYPOINT_STATUS_CHANGED');
    expect(refresh(at(80), wp(0).location)).toBe(true);
    await expectReadsMatchState();
    expect(await readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
  });

  it('answers a repeated attempt id with the first attempt and writes nothing', async () => {
    const again = await driverAttempt(token, day.id, wp(0).id, {
      id: 'visit-0',
      timestamp: at(81),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'shop closed' },
    });
    expect(again).toEqual(nth(nth(state.attempts, 0), 0));
    await expectReadsMatchState();
    expect((await readRoute('dc-1', day.id)).version).toBe(2);
  });

  it('records waypoint 2 VISIT_LATER (skipping 1): listed items decided, the others still pending', async () => {
    const body: AttemptBody = {
      id: 'visit-2a',
      timestamp: at(82),
      status: 'VISIT_LATER',
      location: wp(2).location,
      items: [{ id: item(2, 0), status: 'FAILED', reason: { code: 'NO_ONE', message: 'nobody to sign' } }],
    };
    const attempt = await driverAttempt(token, day.id, wp(2).id, body);
    expect(attempt).toEqual(attemptView(body, driverId));
    state.status[2] = 'VISIT_LATER';
    state.attempts[2] = [attempt];
    state.items[item(2, 0)] = {
      status: 'FAILED',
      timestamp: at(82),
      reason: { code: 'NO_ONE', message: 'nobody to sign' },
    };
    state.events.push('WAYPOINT_STATUS_CHANGED');
    // Waypoints 1 and 2 stay to visit, in sequence; both move by about 2 minutes: no ROUTE_ETAS_CHANGED.
    expect(refresh(at(82), wp(2).location)).toBe(false);
    const waypoints = await expectReadsMatchState();
    expect(waypoints.map((waypoint) => waypoint.status)).toEqual(['SUCCESSFUL', 'PENDING', 'VISIT_LATER']);
    expect(nth(waypoints, 2).eta).toBeGreaterThan(nth(waypoints, 1).eta as number);
    const listed = await driverRoutes(token);
    expect(listed.map((route) => route.id)).toEqual([day.id, tomorrow.id]);
    await expectDriverViewMatchesReads(listed[0]);
    expect(await readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
  });

  it('records the second visit of waypoint 2 SUCCESSFUL: still ESTIMATED while waypoint 1 is pending', async () => {
    const body: AttemptBody = {
      id: 'visit-2b',
      timestamp: at(92),
      status: 'SUCCESSFUL',
      location: wp(2).location,
    };
    const attempt = await driverAttempt(token, day.id, wp(2).id, body);
    expect(attempt).toEqual(attemptView(body, driverId));
    state.status[2] = 'SUCCESSFUL';
    state.attempts[2] = [...nth(state.attempts, 2), attempt];
    state.done.add(2);
    for (const t of [0, 1]) state.items[item(2, t)] = { status: 'SUCCESSFUL', timestamp: at(92) };
    state.events.push('WAYPOINT_STATUS_CHANGED');
    expect(refresh(at(92), wp(2).location)).toBe(true);
    const waypoints = await expectReadsMatchState();
    expect(nth(waypoints, 2).attempts.map((entry) => entry.id)).toEqual(['visit-2a', 'visit-2b']);
    expect(await readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
  });

  it('records waypoint 1 FAILED, one item for its own reason, the other delivered: completion ACTUAL', async () => {
    const body: AttemptBody = {
      id: 'visit-1',
      timestamp: at(100),
      status: 'FAILED',
      reason: { code: 'PARTIAL', message: 'part of the delivery refused' },
      location: wp(1).location,
      items: [
        { id: item(1, 0), status: 'FAILED', reason: { code: 'DAMAGED', message: 'box crushed' } },
        { id: item(1, 1), status: 'SUCCESSFUL' },
      ],
    };
    const attempt = await driverAttempt(token, day.id, wp(1).id, body);
    expect(attempt).toEqual(attemptView(body, driverId));
    state.status[1] = 'FAILED';
    state.attempts[1] = [attempt];
    state.done.add(1);
    state.items[item(1, 0)] = {
      status: 'FAILED',
      timestamp: at(100),
      reason: { code: 'DAMAGED', message: 'box crushed' },
    };
    state.items[item(1, 1)] = { status: 'SUCCESSFUL', timestamp: at(100) };
    state.events.push('WAYPOINT_STATUS_CHANGED');
    // Nothing is left to visit: no ETA to send.
    expect(refresh(at(100), wp(1).location)).toBe(false);
    const waypoints = await expectReadsMatchState();
    expect(waypoints.map((waypoint) => [waypoint.status, waypoint.eta])).toEqual([
      ['SUCCESSFUL', null],
      ['FAILED', null],
      ['SUCCESSFUL', null],
    ]);
    // The last waypoint done (1), not the last in sequence (2, done at +92 min).
    expect(await readCompletion('dc-1', day.id)).toEqual({ type: 'ACTUAL', timestamp: at(100) });
    expect((await readRoute('dc-1', day.id)).version).toBe(2);
  });

  it('records cash with the driver from the token; a retry is harmless; the read lists them in order', async () => {
    const first = { id: 'cash-day-b', cash_received_cents: 12_345, cash_container_id: 'box-1' };
    const second = { id: 'cash-day-a', cash_received_cents: 0, cash_container_id: 'box-2' };
    for (const body of [first, second, first]) {
      const response = await asDriver(token, 'POST', `/driver/routes/${day.id}/accounting`, body);
      expect(expectSuccess(response, driverApp.addDriverAccountingRecord)).toEqual({
        record: { ...body, driver_id: driverId },
      });
    }
    expect(await readAccounting('dc-1', day.id)).toEqual([
      { ...first, driver_id: driverId },
      { ...second, driver_id: driverId },
    ]);
  });

  it('finishes the route: FINALIZED completion, version 3, gone from the driver’s lists', async () => {
    const finished = await driverFinish(token, day.id, at(120));
    expect(finished).toEqual({
      ...started,
      version: 3,
      is_active: false,
      is_finalized: true,
      finalized_timestamp: at(120),
    });
    expect(await readRoute('dc-1', day.id)).toEqual(finished);
    state.events.push('ROUTE_FINISHED');
    await expectReadsMatchState();
    expect(await readCompletion('dc-1', day.id)).toEqual({ type: 'FINALIZED', timestamp: at(120) });
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([tomorrow.id]);
    expect((await driverRoutes(token)).map((route) => route.id)).toEqual([tomorrow.id]);
  });

  it('answers a retry of an attempt or cash record stored before the finish, and refuses new ones (3012)', async () => {
    const visit = state.attempts[1]?.[0];
    const retried = await asDriver(token, 'POST', attemptPath(day.id, wp(1).id), {
      id: 'visit-1',
      timestamp: at(100),
      status: 'FAILED',
      reason: { code: 'PARTIAL', message: 'part of the delivery refused' },
    });
    expect(expectSuccess(retried, driverApp.recordDriverAttempt)).toEqual({ attempt: visit });
    const cash = { id: 'cash-day-b', cash_received_cents: 12_345, cash_container_id: 'box-1' };
    const cashRetry = await asDriver(token, 'POST', `/driver/routes/${day.id}/accounting`, cash);
    expect(expectSuccess(cashRetry, driverApp.addDriverAccountingRecord)).toEqual({
      record: { ...cash, driver_id: driverId },
    });

    const newVisit = { id: 'visit-late', timestamp: at(121), status: 'SUCCESSFUL' };
    expectError(await asDriver(token, 'POST', attemptPath(day.id, wp(1).id), newVisit), 400, 3012);
    const otherCash = { ...cash, cash_received_cents: 1 };
    expectError(await asDriver(token, 'POST', `/driver/routes/${day.id}/accounting`, otherCash), 400, 3012);
    await expectReadsMatchState();
  });

  it('keeps the newest location after the day, and the whole trace with a 90-day expiry', async () => {
    await driverLocation(token, at(125), { latitude: 41.9, longitude: -87.7 });
    await driverLocation(token, at(115), { latitude: 41.95, longitude: -87.75 });
    const latest = { timestamp: at(125), location: { latitude: 41.9, longitude: -87.7 } };
    expect(await readLocation('dc-1', driverId)).toEqual(latest);
    const bulk = await asAcme('GET', `/dcs/dc-1/drivers/${driverId}/driver_bulk_info`);
    expect(
      (expectSuccess(bulk, drivers.getDriverBulkInfo) as { driver_location: DriverLocation }).driver_location,
    ).toEqual(latest);
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: api.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `TRACE#${acme.accountId}/dc-1/${driverId}` },
        ConsistentRead: true,
      }),
    );
    const pings: [number, LatLng][] = [
      [at(2), { latitude: 40.1, longitude: -88.2 }],
      [at(5), warehouse],
      [at(70), warehouse],
      [at(115), { latitude: 41.95, longitude: -87.75 }],
      [at(125), { latitude: 41.9, longitude: -87.7 }],
    ];
    expect(
      Items.map((entry) => [entry.timestamp, { latitude: entry.latitude, longitude: entry.longitude }]).sort(
        (a, b) => (a[0] as number) - (b[0] as number),
      ),
    ).toEqual(pings);
    for (const entry of Items) {
      const expiry = Math.floor(entry.timestamp / 1000) + NINETY_DAYS_S;
      expect(Math.abs(entry.expires_at - expiry)).toBeLessThanOrEqual(86_400);
    }
  });

  it('wrote each change’s event with its details, in the order they happened', async () => {
    const events = await eventsOf(acme.accountId, day.id);
    expect(events.map((event) => event.event_type)).toEqual([
      'ROUTE_CREATED',
      'ROUTE_STARTED',
      'ROUTE_ETAS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_ETAS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_ETAS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_FINISHED',
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ account_id: acme.accountId, dc_id: 'dc-1', route_id: day.id });
      expect(event.occurred_at).toEqual(expect.any(Number));
    }
    const ofType = (type: string) => events.filter((event) => event.event_type === type);
    expect(ofType('ROUTE_STARTED').map((event) => event.details)).toEqual([
      { driver_id: driverId, started_timestamp: at(70) },
    ]);
    expect(ofType('WAYPOINT_STATUS_CHANGED').map((event) => event.details)).toEqual([
      { waypoint_id: wp(0).id, status: 'SUCCESSFUL', attempt_id: 'visit-0', timestamp: at(80) },
      { waypoint_id: wp(2).id, status: 'VISIT_LATER', attempt_id: 'visit-2a', timestamp: at(82) },
      { waypoint_id: wp(2).id, status: 'SUCCESSFUL', attempt_id: 'visit-2b', timestamp: at(92) },
      { waypoint_id: wp(1).id, status: 'FAILED', attempt_id: 'visit-1', timestamp: at(100) },
    ]);
    expect(ofType('ROUTE_ETAS_CHANGED').map((event) => event.details)).toEqual(
      state.etaEvents.map((etas) => etasEventDetails(day, etas)),
    );
    // The first set (at the start) names all three waypoints; the last only the one still to visit.
    expect(state.etaEvents.map((etas) => etas.etas.filter((eta) => eta !== null).length)).toEqual([3, 2, 1]);
    expect(ofType('ROUTE_FINISHED').map((event) => event.details)).toEqual([
      expect.objectContaining({ finalized_timestamp: at(120) }),
    ]);
    // Tomorrow's route only has its creation.
    expect(await eventTypes(acme.accountId, tomorrow.id)).toEqual(['ROUTE_CREATED']);
  });
});

// ---------------------------------------------------------------------------------------------------
// 2. Every error code
// ---------------------------------------------------------------------------------------------------

describe('driver app errors', () => {
  const driverId = 'err-driver';
  const token = 'err-driver-login-token-01';
  const startedRoute = routeOf('err-started', { waypoints: 2, driverId });
  const activeRoute = routeOf('err-active', { driverId });
  const inactiveRoute = routeOf('err-inactive', { driverId, active: false });
  const noDriverRoute = routeOf('err-nodriver');
  const finalRoute = routeOf('err-final', { driverId });
  const wp0 = nth(startedRoute.waypoints, 0);
  const driverPaths = (routeId: string, waypointId: string): [string, string, unknown][] => [
    ['GET', '/driver/routes', undefined],
    ['POST', `/driver/routes/${routeId}/start`, { timestamp: at(10) }],
    ['POST', attemptPath(routeId, waypointId), { id: 'a-x', timestamp: at(11), status: 'SUCCESSFUL' }],
    [
      'POST',
      `/driver/routes/${routeId}/accounting`,
      { id: 'c-x', cash_received_cents: 1, cash_container_id: 'b' },
    ],
    ['POST', '/driver/location', { timestamp: at(12), location: { latitude: 1, longitude: 2 } }],
    ['POST', `/driver/routes/${routeId}/finish`, { timestamp: at(13) }],
  ];

  beforeAll(async () => {
    await createDriver('dc-1', driverId, token);
    await Promise.all(
      [startedRoute, activeRoute, inactiveRoute, noDriverRoute, finalRoute].map((route) =>
        importRoute(api.url, acme.key, 'dc-1', route),
      ),
    );
    await driverStart(token, startedRoute.id, at(10));
    await driverStart(token, finalRoute.id, at(10));
    await driverFinish(token, finalRoute.id, at(20));
  });

  describe('401 with 1001', () => {
    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s without a header',
      async (method, path, body) => {
        expectError(await request(method, path, { body }), 401, 1001);
      },
    );

    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s with an unknown token',
      async (method, path, body) => {
        expectError(await request(method, path, { key: 'no-such-login-token', body }), 401, 1001);
      },
    );

    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s with an API key',
      async (method, path, body) => {
        expectError(await request(method, path, { key: acme.key, body }), 401, 1001);
      },
    );

    it('refuses the token without the Bearer scheme', async () => {
      expectError(await request('GET', '/driver/routes', { headers: { Authorization: token } }), 401, 1001);
      expectError(
        await request('GET', '/driver/routes', { headers: { Authorization: `Basic ${token}` } }),
        401,
        1001,
      );
    });

    it('never lets a second driver share a token (same DC, or another account): the first keeps it', async () => {
      const createTwin = (dcId: string, driverId: string, loginToken: string, key = acme.key) =>
        request('POST', `/dcs/${dcId}/drivers`, {
          key,
          body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: loginToken },
        });
      await createDriver('dc-1', 'twin-a', 'twin-shared-token-1');
      expectError(await createTwin('dc-1', 'twin-b', 'twin-shared-token-1'), 400, 2002);
      expect(await driverRoutes('twin-shared-token-1')).toEqual([]);
      await driverLocation('twin-shared-token-1', at(1), { latitude: 1, longitude: 1 });
      expect(await readLocation('dc-1', 'twin-a')).toMatchObject({ timestamp: at(1) });
      expectError(await asAcme('GET', '/dcs/dc-1/drivers/twin-b'), 404, 1003);

      await createDriver('dc-1', 'twin-c', 'twin-shared-token-2');
      expectError(await createTwin('dc-1', 'twin-c', 'twin-shared-token-2', globex.key), 400, 2002);
      expect(await driverRoutes('twin-shared-token-2')).toEqual([]);
    });

    it('refuses a login token on the public API', async () => {
      expectError(await request('GET', '/dcs/dc-1/drivers', { key: token }), 401, 1001);
      expectError(await request('GET', `/dcs/dc-1/routes/${startedRoute.id}`, { key: token }), 401, 1001);
      expectError(
        await request('PATCH', `/dcs/dc-1/routes/${activeRoute.id}/start`, { key: token }),
        401,
        1001,
      );
      expect((await readRoute('dc-1', activeRoute.id)).started_timestamp).toBeNull();
    });

    it('refuses the token of a deleted driver on the very next request', async () => {
      const gone = await createDriver('dc-1', 'soon-gone', 'soon-gone-login-token');
      expect(await driverRoutes(gone)).toEqual([]);
      expect(
        expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/soon-gone'), drivers.deleteDriver),
      ).toEqual({});
      expectError(await asDriver(gone, 'GET', '/driver/routes'), 401, 1001);
      expectError(
        await asDriver(gone, 'POST', '/driver/location', {
          timestamp: at(1),
          location: { latitude: 1, longitude: 1 },
        }),
        401,
        1001,
      );
    });
    it('refuses a deleted driver’s pings at once though the ping path caches token lookups', async () => {
      const traceOf = async (driverId: string) => {
        const { Items = [] } = await db.send(
          new QueryCommand({
            TableName: api.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `TRACE#${acme.accountId}/dc-1/${driverId}` },
            ConsistentRead: true,
          }),
        );
        return Items.map((item) => item.timestamp);
      };
      const ping = (loginToken: string, timestamp: number) =>
        asDriver(loginToken, 'POST', '/driver/location', {
          timestamp,
          location: { latitude: 41.5, longitude: -87.5 },
        });
      await createDriver('dc-1', 'pinger', 'pinger-token-first');
      await driverLocation('pinger-token-first', at(1), { latitude: 41.5, longitude: -87.5 });
      expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/pinger'), drivers.deleteDriver);
      expectError(await ping('pinger-token-first', at(2)), 401, 1001);
      expect(await traceOf('pinger')).toEqual([at(1)]);

      // The same driver id again with another token: the old token names the id, but not this driver.
      await createDriver('dc-1', 'pinger', 'pinger-token-second');
      expectError(await ping('pinger-token-first', at(3)), 401, 1001);
      await driverLocation('pinger-token-second', at(4), { latitude: 41.5, longitude: -87.5 });
      expect(await readLocation('dc-1', 'pinger')).toEqual({
        timestamp: at(4),
        location: { latitude: 41.5, longitude: -87.5 },
      });
      expect(await traceOf('pinger')).toEqual([at(1), at(4)]);
    });
  });

  describe('404 with 3003', () => {
    it.each(
      driverPaths('no-such-route', 'no-such-route-wp-0').filter(([, path]) => path.includes('no-such')),
    )('%s %s for a route that does not exist', async (method, path, body) => {
      expect(expectError(await asDriver(token, method, path, body), 404, 3003)).toContain('no-such-route');
    });

    it('answers 3003 for a route of the DC assigned to no driver', async () => {
      const routeId = noDriverRoute.id;
      expectError(
        await asDriver(token, 'POST', `/driver/routes/${routeId}/start`, { timestamp: at(5) }),
        404,
        3003,
      );
      expectError(
        await asDriver(token, 'POST', `/driver/routes/${routeId}/finish`, { timestamp: at(5) }),
        404,
        3003,
      );
      expect((await readRoute('dc-1', routeId)).version).toBe(1);
    });
  });

  describe('400 with 3011', () => {
    it('refuses to start an inactive route', async () => {
      const response = await asDriver(token, 'POST', `/driver/routes/${inactiveRoute.id}/start`, {
        timestamp: at(30),
      });
      expectError(response, 400, 3011);
      expectError(await asAcme('PATCH', `/dcs/dc-1/routes/${inactiveRoute.id}/start`), 400, 3011);
      expect(await readRoute('dc-1', inactiveRoute.id)).toMatchObject({
        version: 1,
        started_timestamp: null,
      });
    });

    it('refuses to start a route twice, as the driver and by API key', async () => {
      const response = await asDriver(token, 'POST', `/driver/routes/${startedRoute.id}/start`, {
        timestamp: at(31),
      });
      expectError(response, 400, 3011);
      expectError(
        await asAcme('PUT', `/dcs/dc-1/routes/${startedRoute.id}/start`, { timestamp: at(31) }),
        400,
        3011,
      );
      expect(await readRoute('dc-1', startedRoute.id)).toMatchObject({
        version: 2,
        started_timestamp: at(10),
      });
      expect(
        (await eventTypes(acme.accountId, startedRoute.id)).filter((type) => type === 'ROUTE_STARTED'),
      ).toHaveLength(1);
    });

    it('refuses to start a route without a driver', async () => {
      expectError(await asAcme('PATCH', `/dcs/dc-1/routes/${noDriverRoute.id}/start`), 400, 3011);
      expectError(
        await asAcme('PUT', `/dcs/dc-1/routes/${noDriverRoute.id}/start`, { timestamp: at(1) }),
        400,
        3011,
      );
      expect((await readRoute('dc-1', noDriverRoute.id)).started_timestamp).toBeNull();
    });

    it('refuses an attempt on a route that has not started', async () => {
      const waypointId = nth(activeRoute.waypoints, 0).id;
      const response = await asDriver(token, 'POST', attemptPath(activeRoute.id, waypointId), {
        id: 'early-visit',
        timestamp: at(30),
        status: 'SUCCESSFUL',
      });
      expectError(response, 400, 3011);
      expect((await readWaypoint('dc-1', activeRoute.id, waypointId)).attempts).toEqual([]);
    });
  });

  describe('400 with 3012 on a finished route', () => {
    const path = `/driver/routes/${finalRoute.id}`;

    it.each([
      ['start', 'POST', `${path}/start`, { timestamp: at(30) }],
      ['finish', 'POST', `${path}/finish`, { timestamp: at(30) }],
      [
        'an attempt',
        'POST',
        `${path}/waypoints/${nth(finalRoute.waypoints, 0).id}/attempts`,
        { id: 'late-visit', timestamp: at(30), status: 'SUCCESSFUL' },
      ],
      [
        'cash',
        'POST',
        `${path}/accounting`,
        { id: 'late-cash', cash_received_cents: 5, cash_container_id: 'b' },
      ],
    ])('refuses %s from the driver', async (_, method, route, body) => {
      expectError(await asDriver(token, method, route, body), 400, 3012);
    });

    it.each([
      ['PATCH', 'activate'],
      ['PUT', 'activate'],
      ['PATCH', 'start'],
      ['PUT', 'finish'],
    ])('refuses %s …/%s by API key', async (method, action) => {
      expectError(await asAcme(method, `/dcs/dc-1/routes/${finalRoute.id}/${action}`), 400, 3012);
    });

    it('changed nothing on the finished route', async () => {
      expect(await readRoute('dc-1', finalRoute.id)).toMatchObject({
        version: 3,
        is_finalized: true,
        started_timestamp: at(10),
        finalized_timestamp: at(20),
      });
      expect((await readWaypoints('dc-1', finalRoute.id)).flatMap((waypoint) => waypoint.attempts)).toEqual(
        [],
      );
      expect(await readAccounting('dc-1', finalRoute.id)).toEqual([]);
      expect(
        (await eventTypes(acme.accountId, finalRoute.id)).filter((type) => type !== 'ROUTE_ETAS_CHANGED'),
      ).toEqual(['ROUTE_CREATED', 'ROUTE_STARTED', 'ROUTE_FINISHED']);
    });
  });

  describe('400 with 3013', () => {
    const otherWaypointItem = nth(nth(nth(startedRoute.waypoints, 1).invoices, 0).items, 0).id;

    it.each([
      ['an unknown waypoint', 'no-such-waypoint', {}],
      ['a waypoint of another route', nth(activeRoute.waypoints, 0).id, {}],
      ['an unknown item', wp0.id, { items: [{ id: 'no-such-item', status: 'SUCCESSFUL' }] }],
      ['an item of another waypoint', wp0.id, { items: [{ id: otherWaypointItem, status: 'SUCCESSFUL' }] }],
    ])('refuses an attempt naming %s', async (what, waypointId, extra) => {
      const response = await asDriver(token, 'POST', attemptPath(startedRoute.id, waypointId), {
        id: `bad-${what.replaceAll(' ', '-')}`,
        timestamp: at(40),
        status: 'SUCCESSFUL',
        ...extra,
      });
      expectError(response, 400, 3013);
    });

    it('wrote no attempt and no event for them', async () => {
      const waypoints = await readWaypoints('dc-1', startedRoute.id);
      expect(waypoints.map((waypoint) => [waypoint.status, waypoint.attempts])).toEqual([
        ['PENDING', []],
        ['PENDING', []],
      ]);
      expect(await eventTypes(acme.accountId, startedRoute.id)).not.toContain('WAYPOINT_STATUS_CHANGED');
    });
  });

  describe('400 with 3014', () => {
    const record = { id: 'cash-err-1', cash_received_cents: 700, cash_container_id: 'box-9' };

    it('takes a record, and the same record again', async () => {
      for (let i = 0; i < 2; i++) {
        const response = await asDriver(
          token,
          'POST',
          `/driver/routes/${startedRoute.id}/accounting`,
          record,
        );
        expect(expectSuccess(response, driverApp.addDriverAccountingRecord)).toEqual({
          record: { ...record, driver_id: driverId },
        });
      }
    });

    it.each([
      ['other cents', { cash_received_cents: 701 }],
      ['another container', { cash_container_id: 'box-10' }],
    ])('refuses the id again with %s', async (_, change) => {
      const response = await asDriver(token, 'POST', `/driver/routes/${startedRoute.id}/accounting`, {
        ...record,
        ...change,
      });
      expect(expectError(response, 400, 3014)).toContain(record.id);
    });

    it('refuses the id on another route of the account, even with the same content', async () => {
      const response = await asDriver(token, 'POST', `/driver/routes/${activeRoute.id}/accounting`, record);
      expectError(response, 400, 3014);
      expect(await readAccounting('dc-1', activeRoute.id)).toEqual([]);
      expect(await readAccounting('dc-1', startedRoute.id)).toEqual([{ ...record, driver_id: driverId }]);
    });
  });

  describe('400 with 1006', () => {
    it('refuses a FAILED attempt without a reason', async () => {
      const response = await asDriver(token, 'POST', attemptPath(startedRoute.id, wp0.id), {
        id: 'no-reason',
        timestamp: at(41),
        status: 'FAILED',
      });
      expect(expectError(response, 400, 1006)).toContain('reason');
    });

    it('refuses an unknown attempt status', async () => {
      const response = await asDriver(token, 'POST', attemptPath(startedRoute.id, wp0.id), {
        id: 'bad-status',
        timestamp: at(41),
        status: 'DELIVERED',
      });
      expect(expectError(response, 400, 1006)).toContain('status');
    });

    it.each([
      [
        'an attempt',
        () => [
          attemptPath(startedRoute.id, wp0.id),
          { id: 'future-visit', timestamp: future(), status: 'SUCCESSFUL' },
        ],
      ],
      ['a start', () => [`/driver/routes/${activeRoute.id}/start`, { timestamp: future() }]],
      ['a finish', () => [`/driver/routes/${startedRoute.id}/finish`, { timestamp: future() }]],
      [
        'a location',
        () => ['/driver/location', { timestamp: future(), location: { latitude: 1, longitude: 1 } }],
      ],
    ] as [string, () => [string, unknown]][])(
      'refuses %s more than 5 minutes in the future',
      async (_, make) => {
        const [path, body] = make();
        expect(expectError(await asDriver(token, 'POST', path, body), 400, 1006)).toContain('timestamp');
      },
    );

    it('refuses a future timestamp on the API key’s start and finish', async () => {
      const body = { timestamp: future() };
      expectError(await asAcme('PATCH', `/dcs/dc-1/routes/${activeRoute.id}/start`, body), 400, 1006);
      expectError(await asAcme('PUT', `/dcs/dc-1/routes/${startedRoute.id}/finish`, body), 400, 1006);
    });

    it('changed nothing: no attempt, no location, the routes as they were', async () => {
      expect((await readWaypoints('dc-1', startedRoute.id)).flatMap((waypoint) => waypoint.attempts)).toEqual(
        [],
      );
      expect(await readLocation('dc-1', driverId)).toBeNull();
      expect(await readRoute('dc-1', activeRoute.id)).toMatchObject({ version: 1, started_timestamp: null });
      expect(await readRoute('dc-1', startedRoute.id)).toMatchObject({ version: 2, is_finalized: false });
    });

    it('takes a timestamp within the 5 minutes of allowed clock skew', async () => {
      const skewed = Date.now() + 3 * MINUTE;
      await driverLocation(token, skewed, { latitude: 3, longitude: 4 });
      expect(await readLocation('dc-1', driverId)).toEqual({
        timestamp: skewed,
        location: { latitude: 3, longitude: 4 },
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// 3. Isolation
// ---------------------------------------------------------------------------------------------------

describe('isolation between drivers and accounts', () => {
  const owner = { id: 'iso-owner', token: 'iso-owner-login-token' };
  const colleague = { id: 'iso-colleague', token: 'iso-colleague-login-token' };
  /** Globex's driver has the owner's id, in Globex's DC with the same id. */
  const stranger = { id: 'iso-owner', token: 'iso-stranger-login-token' };
  const route = routeOf('iso-route', { waypoints: 2, driverId: owner.id });
  const dc2Route = routeOf('iso-dc2');
  const wp0 = nth(route.waypoints, 0);
  let before: Route;

  beforeAll(async () => {
    await createDriver('dc-1', owner.id, owner.token);
    await createDriver('dc-1', colleague.id, colleague.token);
    await createDriver('dc-1', stranger.id, stranger.token, globex.key);
    await Promise.all([
      importRoute(api.url, acme.key, 'dc-1', route),
      importRoute(api.url, acme.key, 'dc-2', dc2Route),
    ]);
    await driverStart(owner.token, route.id, at(10));
    before = await readRoute('dc-1', route.id);
  });

  it('shows the owner its route and the others nothing', async () => {
    expect((await driverRoutes(owner.token)).map((entry) => entry.id)).toEqual([route.id]);
    expect(await driverRoutes(colleague.token)).toEqual([]);
    expect(await driverRoutes(stranger.token)).toEqual([]);
  });

  it.each([
    ['a colleague of the same DC', colleague.token],
    ['a driver of another account with the same ids', stranger.token],
  ])('answers 404 with 3003 to %s on every route action', async (_, token) => {
    const base = `/driver/routes/${route.id}`;
    const attempt = { id: 'intruder-visit', timestamp: at(20), status: 'SUCCESSFUL' };
    const cash = { id: 'intruder-cash', cash_received_cents: 1, cash_container_id: 'box' };
    expectError(await asDriver(token, 'POST', `${base}/start`, { timestamp: at(20) }), 404, 3003);
    expectError(await asDriver(token, 'POST', `${base}/waypoints/${wp0.id}/attempts`, attempt), 404, 3003);
    expectError(await asDriver(token, 'POST', `${base}/accounting`, cash), 404, 3003);
    expectError(await asDriver(token, 'POST', `${base}/finish`, { timestamp: at(20) }), 404, 3003);
  });

  it('left the owner’s route untouched, and the owner can still work on it', async () => {
    expect(await readRoute('dc-1', route.id)).toEqual(before);
    expect((await readWaypoints('dc-1', route.id)).flatMap((waypoint) => waypoint.attempts)).toEqual([]);
    expect(await readAccounting('dc-1', route.id)).toEqual([]);
    // The intruders' ids were not taken either.
    const attempt = await driverAttempt(owner.token, route.id, wp0.id, {
      id: 'intruder-visit',
      timestamp: at(21),
      status: 'SUCCESSFUL',
    });
    expect(attempt).toMatchObject({ id: 'intruder-visit', driver_id: owner.id, timestamp: at(21) });
    const cash = { id: 'intruder-cash', cash_received_cents: 2, cash_container_id: 'box' };
    const response = await asDriver(owner.token, 'POST', `/driver/routes/${route.id}/accounting`, cash);
    expect(expectSuccess(response, driverApp.addDriverAccountingRecord)).toEqual({
      record: { ...cash, driver_id: owner.id },
    });
  });

  it('answers 403 to another account’s API key on the account’s DC paths', async () => {
    const asGlobex = (method: string, path: string) => request(method, path, { key: globex.key });
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/waypoints'],
      ['GET', '/completion-time'],
      ['PATCH', '/start'],
      ['PUT', '/finish'],
    ] as const) {
      expectError(await asGlobex(method, `/dcs/dc-2/routes/${dc2Route.id}${suffix}`), 403, 1002);
    }
    expectError(await asGlobex('GET', '/dcs/dc-2/drivers'), 403, 1002);
    expectError(await asGlobex('PATCH', `/dcs/dc-2/drivers/${owner.id}/finish-routes`), 403, 1002);
    // In its own DC with the same id, Acme's route does not exist for Globex.
    expectError(await asGlobex('GET', `/dcs/dc-1/routes/${route.id}`), 404, 3003);
    expectError(await asGlobex('PATCH', `/dcs/dc-1/routes/${route.id}/finish`), 404, 3003);
    expect((await readRoute('dc-1', route.id)).is_finalized).toBe(false);
    expect((await readRoute('dc-2', dc2Route.id)).started_timestamp).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------
// 4. Start and finish by API key; finish-routes
// ---------------------------------------------------------------------------------------------------

describe('start and finish by API key', () => {
  const driverId = 'key-driver';
  const token = 'key-driver-login-token';
  const patched = routeOf('key-patch', { driverId });
  const put = routeOf('key-put', { driverId, startTime: BASE + MINUTE });

  beforeAll(async () => {
    await createDriver('dc-1', driverId, token);
    await Promise.all([patched, put].map((route) => importRoute(api.url, acme.key, 'dc-1', route)));
  });

  it('starts with PATCH and no body at the present time', async () => {
    const before = Date.now();
    const route = routeData(await asAcme('PATCH', `/dcs/dc-1/routes/${patched.id}/start`), routes.startRoute);
    const after = Date.now();
    expect(route).toMatchObject({ id: patched.id, version: 2, is_active: true, is_finalized: false });
    expect(route.started_timestamp).toBeGreaterThanOrEqual(before);
    expect(route.started_timestamp).toBeLessThanOrEqual(after);
    expect(await readRoute('dc-1', patched.id)).toEqual(route);
    const started = (await eventsOf(acme.accountId, patched.id)).filter(
      (event) => event.event_type === 'ROUTE_STARTED',
    );
    expect(started.map((event) => event.details)).toEqual([
      { driver_id: driverId, started_timestamp: route.started_timestamp },
    ]);
  });

  it('starts with PUT and a timestamp', async () => {
    const route = routeData(
      await asAcme('PUT', `/dcs/dc-1/routes/${put.id}/start`, { timestamp: at(30) }),
      routes.startRoute,
    );
    expect(route).toMatchObject({ id: put.id, version: 2, started_timestamp: at(30) });
    expect((await driverRoutes(token)).map((entry) => [entry.id, entry.started_timestamp])).toEqual([
      [patched.id, expect.any(Number)],
      [put.id, at(30)],
    ]);
  });

  it('lets the driver work on a route started for them; unlisted items take the attempt’s outcome', async () => {
    const waypoint = nth(put.waypoints, 0);
    const [listed, unlisted] = nth(waypoint.invoices, 0).items.map((entry) => entry.id);
    const attempt = await driverAttempt(token, put.id, waypoint.id, {
      id: 'key-visit',
      timestamp: at(31),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'shop closed' },
      // A reason on a delivered item is not an item failure: the invoice read shows none.
      items: [
        { id: listed as string, status: 'SUCCESSFUL', reason: { code: 'NOTE', message: 'left at door' } },
      ],
    });
    expect(attempt).toMatchObject({ id: 'key-visit', status: 'FAILED', driver_id: driverId });
    const items = nth(await readInvoices('dc-1', put.id), 0).items.map((entry) => [entry.id, entry.status]);
    expect(items).toEqual([
      [listed, { status: 'SUCCESSFUL', timestamp: at(31) }],
      [unlisted, { status: 'FAILED', timestamp: at(31), reason: { code: 'CLOSED', message: 'shop closed' } }],
    ]);
    expect(await readWaypoint('dc-1', put.id, waypoint.id)).toMatchObject({ status: 'FAILED', eta: null });
  });

  it('finishes with PATCH and a timestamp', async () => {
    const route = routeData(
      await asAcme('PATCH', `/dcs/dc-1/routes/${put.id}/finish`, { timestamp: at(50) }),
      routes.finishRoute,
    );
    expect(route).toMatchObject({
      version: 3,
      started_timestamp: at(30),
      is_finalized: true,
      finalized_timestamp: at(50),
    });
    expect(await readCompletion('dc-1', put.id)).toEqual({ type: 'FINALIZED', timestamp: at(50) });
    const finished = (await eventsOf(acme.accountId, put.id)).filter(
      (event) => event.event_type === 'ROUTE_FINISHED',
    );
    expect(finished.map((event) => event.details)).toEqual([
      expect.objectContaining({ finalized_timestamp: at(50) }),
    ]);
  });

  it('finishes with PUT and no body at the present time', async () => {
    const before = Date.now();
    const route = routeData(await asAcme('PUT', `/dcs/dc-1/routes/${patched.id}/finish`), routes.finishRoute);
    const after = Date.now();
    expect(route).toMatchObject({ version: 3, is_finalized: true });
    expect(route.finalized_timestamp).toBeGreaterThanOrEqual(before);
    expect(route.finalized_timestamp).toBeLessThanOrEqual(after);
    expect(await readCompletion('dc-1', patched.id)).toEqual({
      type: 'FINALIZED',
      timestamp: route.finalized_timestamp,
    });
    expect(await driverRoutes(token)).toEqual([]);
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([]);
  });
});

describe('PATCH|PUT /dcs/{dc_id}/drivers/{driver_id}/finish-routes', () => {
  const driverId = 'fr-driver';
  const token = 'fr-driver-login-token';
  const secondId = 'fr-driver-2';
  const secondToken = 'fr-driver-2-login-token';
  const active = routeOf('fr-active', { driverId });
  const started = routeOf('fr-started', { driverId, startTime: BASE + MINUTE });
  const inactive = routeOf('fr-inactive', { driverId, active: false });
  const done = routeOf('fr-done', { driverId });
  const secondStarted = routeOf('fr-second', { driverId: secondId });

  beforeAll(async () => {
    await createDriver('dc-1', driverId, token);
    await createDriver('dc-1', secondId, secondToken);
    await Promise.all(
      [active, started, inactive, done, secondStarted].map((route) =>
        importRoute(api.url, acme.key, 'dc-1', route),
      ),
    );
    await driverStart(token, started.id, at(10));
    await driverStart(token, done.id, at(10));
    await driverFinish(token, done.id, at(20));
    await driverStart(secondToken, secondStarted.id, at(15));
  });

  it('finalizes the driver’s active and started routes with PATCH, and only those', async () => {
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([active.id, started.id]);
    const before = Date.now();
    const response = await asAcme('PATCH', `/dcs/dc-1/drivers/${driverId}/finish-routes`);
    const after = Date.now();
    const { finalized_route_ids } = expectSuccess(response, drivers.finishDriverRoutes) as {
      finalized_route_ids: string[];
    };
    expect([...finalized_route_ids].sort()).toEqual([active.id, started.id]);
    for (const id of [active.id, started.id]) {
      const route = await readRoute('dc-1', id);
      expect(route).toMatchObject({ is_finalized: true, is_active: false });
      expect(route.finalized_timestamp).toBeGreaterThanOrEqual(before);
      expect(route.finalized_timestamp).toBeLessThanOrEqual(after);
      expect(await eventTypes(acme.accountId, id)).toContain('ROUTE_FINISHED');
    }
    expect(await readRoute('dc-1', inactive.id)).toMatchObject({ is_finalized: false, version: 1 });
    expect(await readRoute('dc-1', done.id)).toMatchObject({ finalized_timestamp: at(20), version: 3 });
    expect(await readRoute('dc-1', secondStarted.id)).toMatchObject({ is_finalized: false });
    expect(await readActiveRouteIds('dc-1', driverId)).toEqual([]);
    expect(await driverRoutes(token)).toEqual([]);
    expectError(
      await asDriver(token, 'POST', attemptPath(started.id, nth(started.waypoints, 0).id), {
        id: 'after-finish',
        timestamp: at(30),
        status: 'SUCCESSFUL',
      }),
      400,
      3012,
    );
  });

  it('finalizes nothing more when called again', async () => {
    const response = await asAcme('PUT', `/dcs/dc-1/drivers/${driverId}/finish-routes`);
    expect(expectSuccess(response, drivers.finishDriverRoutes)).toEqual({ finalized_route_ids: [] });
  });

  it('finalizes another driver’s started route with PUT', async () => {
    const response = await asAcme('PUT', `/dcs/dc-1/drivers/${secondId}/finish-routes`);
    expect(expectSuccess(response, drivers.finishDriverRoutes)).toEqual({
      finalized_route_ids: [secondStarted.id],
    });
    expect(await readRoute('dc-1', secondStarted.id)).toMatchObject({
      is_finalized: true,
      started_timestamp: at(15),
      version: 3,
    });
    expect(await driverRoutes(secondToken)).toEqual([]);
  });

  it('lets a driver without active routes be deleted, and its token stops working', async () => {
    expect(
      expectSuccess(await asAcme('DELETE', `/dcs/dc-1/drivers/${secondId}`), drivers.deleteDriver),
    ).toEqual({});
    expectError(await asDriver(secondToken, 'GET', '/driver/routes'), 401, 1001);
  });

  it('answers 404 with 1003 for a driver that does not exist', async () => {
    expectError(await asAcme('PATCH', '/dcs/dc-1/drivers/no-such-driver/finish-routes'), 404, 1003);
  });
});
