import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import {
  at,
  attemptPath,
  BASE,
  type DriverAppClient,
  driverAppClient,
  MINUTE,
  nth,
  type Route,
  routeOf,
} from '../support/driver-app';
import { once, type TestAccount, useTestApi } from '../support/fixtures';
import { type ApiResponse, expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';

/*
 * Who may act on a route (isolation between drivers and accounts), and the API key's side of a route's life:
 * start and finish by API key, and finishing all routes of a driver. Each describe's account, drivers and
 * routes are a fixture made once; a test does what it needs before it unless an earlier test did, so each
 * runs alone as well as with the others.
 */

const fx = useTestApi('driver-app-access');
/** Tests that import their own routes wait for the import worker (a cold start for the first). */
const WORLD_TIMEOUT_MS = 90_000;

/** A login token no other test's driver has (tokens are unique across accounts). */
const loginToken = (driverId: string) => strongToken(`${driverId}-${randomUUID()}`);

const routeData = (response: ApiResponse, endpoint: Parameters<typeof expectSuccess>[1]) =>
  (expectSuccess(response, endpoint) as { route: Route }).route;

describe('isolation between drivers and accounts', () => {
  const owner = { id: 'iso-owner', token: strongToken('iso-owner-login-token') };
  const colleague = { id: 'iso-colleague', token: strongToken('iso-colleague-login-token') };
  /** Globex's driver has the owner's id, in Globex's DC with the same id. */
  const stranger = { id: 'iso-owner', token: strongToken('iso-stranger-login-token') };
  const route = routeOf('iso-route', { waypoints: 2, driverId: owner.id });
  const dc2Route = routeOf('iso-dc2');
  const wp0 = nth(route.waypoints, 0);
  let c: DriverAppClient;
  let globex: TestAccount;
  let before: Route;

  beforeAll(async () => {
    c = driverAppClient(fx.api, await fx.account());
    globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
    await c.createDriver('dc-1', owner.id, owner.token);
    await c.createDriver('dc-1', colleague.id, colleague.token);
    await c.createDriver('dc-1', stranger.id, stranger.token, globex.key);
    await Promise.all([c.importRoute('dc-1', route), c.importRoute('dc-2', dc2Route)]);
    await c.driverStart(owner.token, route.id, at(10));
    before = await c.readRoute('dc-1', route.id);
  });

  it('shows the owner its route and the others nothing', async () => {
    expect((await c.driverRoutes(owner.token)).map((entry) => entry.id)).toEqual([route.id]);
    expect(await c.driverRoutes(colleague.token)).toEqual([]);
    expect(await c.driverRoutes(stranger.token)).toEqual([]);
  });

  it.each([
    ['a colleague of the same DC', colleague.token],
    ['a driver of another account with the same ids', stranger.token],
  ])('answers 404 with 3003 to %s on every route action', (_, token) => intrude(token));

  /** Every route action on the owner's route with another driver's token: each refused with 3003. */
  async function intrude(token: string) {
    const base = `/driver/routes/${route.id}`;
    const attempt = { id: 'intruder-visit', timestamp: at(20), status: 'SUCCESSFUL' };
    const cash = { id: 'intruder-cash', cash_received_cents: 1, cash_container_id: 'box' };
    expectError(await c.asDriver(token, 'POST', `${base}/start`, { timestamp: at(20) }), 404, 3003);
    expectError(await c.asDriver(token, 'POST', `${base}/waypoints/${wp0.id}/attempts`, attempt), 404, 3003);
    expectError(await c.asDriver(token, 'POST', `${base}/accounting`, cash), 404, 3003);
    expectError(await c.asDriver(token, 'POST', `${base}/finish`, { timestamp: at(20) }), 404, 3003);
  }

  it('leaves the owner’s route untouched after the intruders, and the owner can still work on it', async () => {
    await intrude(colleague.token);
    await intrude(stranger.token);
    expect(await c.readRoute('dc-1', route.id)).toEqual(before);
    expect((await c.readWaypoints('dc-1', route.id)).flatMap((waypoint) => waypoint.attempts)).toEqual([]);
    expect(await c.readAccounting('dc-1', route.id)).toEqual([]);
    // The intruders' ids were not taken either.
    const attempt = await c.driverAttempt(owner.token, route.id, wp0.id, {
      id: 'intruder-visit',
      timestamp: at(21),
      status: 'SUCCESSFUL',
    });
    expect(attempt).toMatchObject({ id: 'intruder-visit', driver_id: owner.id, timestamp: at(21) });
    const cash = { id: 'intruder-cash', cash_received_cents: 2, cash_container_id: 'box' };
    const response = await c.asDriver(owner.token, 'POST', `/driver/routes/${route.id}/accounting`, cash);
    expect(expectSuccess(response, driverApp.addDriverAccountingRecord)).toEqual({
      record: { ...cash, driver_id: owner.id },
    });
  });

  it('answers 403 to another account’s API key on the account’s DC paths', async () => {
    const asGlobex = (method: string, path: string) => c.request(method, path, { key: globex.key });
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
    expect((await c.readRoute('dc-1', route.id)).is_finalized).toBe(false);
    expect((await c.readRoute('dc-2', dc2Route.id)).started_timestamp).toBeNull();
  });
});

describe('start and finish by API key', { timeout: WORLD_TIMEOUT_MS }, () => {
  const driverId = 'key-driver';
  const patched = routeOf('key-patch', { driverId });
  const put = routeOf('key-put', { driverId, startTime: BASE + MINUTE });

  /** An account with the driver and both routes imported, made by the first test that asks. */
  const world = once(async () => {
    const c = driverAppClient(fx.api, await fx.account());
    const token = await c.createDriver('dc-1', driverId, loginToken(driverId));
    await Promise.all([patched, put].map((route) => c.importRoute('dc-1', route)));
    return { c, token };
  });
  const startPatched = (c: DriverAppClient) => c.asAccount('PATCH', `/dcs/dc-1/routes/${patched.id}/start`);
  const startPut = (c: DriverAppClient) =>
    c.asAccount('PUT', `/dcs/dc-1/routes/${put.id}/start`, { timestamp: at(30) });
  /** What a test needs done before it, done unless an earlier test did it. */
  async function ensureStarted(
    c: DriverAppClient,
    start: (c: DriverAppClient) => Promise<ApiResponse>,
    id: string,
  ) {
    if ((await c.readRoute('dc-1', id)).started_timestamp === null)
      routeData(await start(c), routes.startRoute);
  }

  it('starts with PATCH and no body at the present time', async () => {
    const { c } = await world();
    const before = Date.now();
    const route = routeData(await startPatched(c), routes.startRoute);
    const after = Date.now();
    expect(route).toMatchObject({ id: patched.id, version: 2, is_active: true, is_finalized: false });
    expect(route.started_timestamp).toBeGreaterThanOrEqual(before);
    expect(route.started_timestamp).toBeLessThanOrEqual(after);
    expect(await c.readRoute('dc-1', patched.id)).toEqual(route);
    const started = (await c.eventsOf(patched.id)).filter((event) => event.event_type === 'ROUTE_STARTED');
    expect(started.map((event) => event.details)).toEqual([
      {
        driver_id: driverId,
        started_timestamp: route.started_timestamp,
        // What the webhook body's tracking_url of each stop is derived from (event-catalog.ts).
        waypoint_ids: patched.waypoints.map((waypoint) => waypoint.id),
        tracking_links: { api_url: expect.any(String), key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
      },
    ]);
  });

  it('starts with PUT and a timestamp', async () => {
    const { c, token } = await world();
    await ensureStarted(c, startPatched, patched.id);
    const route = routeData(await startPut(c), routes.startRoute);
    expect(route).toMatchObject({ id: put.id, version: 2, started_timestamp: at(30) });
    expect((await c.driverRoutes(token)).map((entry) => [entry.id, entry.started_timestamp])).toEqual([
      [patched.id, expect.any(Number)],
      [put.id, at(30)],
    ]);
  });

  it('lets the driver work on a route started for them; unlisted items take the attempt’s outcome', async () => {
    const { c, token } = await world();
    await ensureStarted(c, startPut, put.id);
    const waypoint = nth(put.waypoints, 0);
    const [listed, unlisted] = nth(waypoint.invoices, 0).items.map((entry) => entry.id);
    const attempt = await c.driverAttempt(token, put.id, waypoint.id, {
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
    const items = nth(await c.readInvoices('dc-1', put.id), 0).items.map((entry) => [entry.id, entry.status]);
    expect(items).toEqual([
      [listed, { status: 'SUCCESSFUL', timestamp: at(31) }],
      [unlisted, { status: 'FAILED', timestamp: at(31), reason: { code: 'CLOSED', message: 'shop closed' } }],
    ]);
    expect(await c.readWaypoint('dc-1', put.id, waypoint.id)).toMatchObject({ status: 'FAILED', eta: null });
  });

  it('finishes with PATCH and a timestamp', async () => {
    const { c } = await world();
    await ensureStarted(c, startPut, put.id);
    const route = routeData(
      await c.asAccount('PATCH', `/dcs/dc-1/routes/${put.id}/finish`, { timestamp: at(50) }),
      routes.finishRoute,
    );
    expect(route).toMatchObject({
      version: 3,
      started_timestamp: at(30),
      is_finalized: true,
      finalized_timestamp: at(50),
    });
    expect(await c.readCompletion('dc-1', put.id)).toEqual({ type: 'FINALIZED', timestamp: at(50) });
    const finished = (await c.eventsOf(put.id)).filter((event) => event.event_type === 'ROUTE_FINISHED');
    expect(finished.map((event) => event.details)).toEqual([
      expect.objectContaining({ finalized_timestamp: at(50) }),
    ]);
  });

  it('finishes with PUT and no body at the present time', async () => {
    const { c, token } = await world();
    await ensureStarted(c, startPatched, patched.id);
    // The other route of the driver is done too: the driver's lists end empty.
    await ensureStarted(c, startPut, put.id);
    if (!(await c.readRoute('dc-1', put.id)).is_finalized) await c.driverFinish(token, put.id, at(50));
    const before = Date.now();
    const route = routeData(
      await c.asAccount('PUT', `/dcs/dc-1/routes/${patched.id}/finish`),
      routes.finishRoute,
    );
    const after = Date.now();
    expect(route).toMatchObject({ version: 3, is_finalized: true });
    expect(route.finalized_timestamp).toBeGreaterThanOrEqual(before);
    expect(route.finalized_timestamp).toBeLessThanOrEqual(after);
    expect(await c.readCompletion('dc-1', patched.id)).toEqual({
      type: 'FINALIZED',
      timestamp: route.finalized_timestamp,
    });
    expect(await c.driverRoutes(token)).toEqual([]);
    expect(await c.readActiveRouteIds('dc-1', driverId)).toEqual([]);
  });
});

describe('PATCH|PUT /dcs/{dc_id}/drivers/{driver_id}/finish-routes', { timeout: WORLD_TIMEOUT_MS }, () => {
  const driverId = 'fr-driver';
  const secondId = 'fr-driver-2';
  const active = routeOf('fr-active', { driverId });
  const started = routeOf('fr-started', { driverId, startTime: BASE + MINUTE });
  const inactive = routeOf('fr-inactive', { driverId, active: false });
  const done = routeOf('fr-done', { driverId });
  const secondStarted = routeOf('fr-second', { driverId: secondId });

  /** An account with both drivers and their routes (started, finished, left as the names say), made once. */
  const world = once(async () => {
    const c = driverAppClient(fx.api, await fx.account());
    const token = await c.createDriver('dc-1', driverId, loginToken(driverId));
    const secondToken = await c.createDriver('dc-1', secondId, loginToken(secondId));
    await Promise.all(
      [active, started, inactive, done, secondStarted].map((route) => c.importRoute('dc-1', route)),
    );
    await c.driverStart(token, started.id, at(10));
    await c.driverStart(token, done.id, at(10));
    await c.driverFinish(token, done.id, at(20));
    await c.driverStart(secondToken, secondStarted.id, at(15));
    return { c, token, secondToken };
  });

  it('finalizes the driver’s active and started routes with PATCH, and only those', async () => {
    const { c, token } = await world();
    expect(await c.readActiveRouteIds('dc-1', driverId)).toEqual([active.id, started.id]);
    const before = Date.now();
    const response = await c.asAccount('PATCH', `/dcs/dc-1/drivers/${driverId}/finish-routes`);
    const after = Date.now();
    const { finalized_route_ids } = expectSuccess(response, drivers.finishDriverRoutes) as {
      finalized_route_ids: string[];
    };
    expect([...finalized_route_ids].sort()).toEqual([active.id, started.id]);
    for (const id of [active.id, started.id]) {
      const route = await c.readRoute('dc-1', id);
      expect(route).toMatchObject({ is_finalized: true, is_active: false });
      expect(route.finalized_timestamp).toBeGreaterThanOrEqual(before);
      expect(route.finalized_timestamp).toBeLessThanOrEqual(after);
      expect(await c.eventTypes(id)).toContain('ROUTE_FINISHED');
    }
    expect(await c.readRoute('dc-1', inactive.id)).toMatchObject({ is_finalized: false, version: 1 });
    expect(await c.readRoute('dc-1', done.id)).toMatchObject({ finalized_timestamp: at(20), version: 3 });
    expect(await c.readRoute('dc-1', secondStarted.id)).toMatchObject({ is_finalized: false });
    expect(await c.readActiveRouteIds('dc-1', driverId)).toEqual([]);
    expect(await c.driverRoutes(token)).toEqual([]);
    expectError(
      await c.asDriver(token, 'POST', attemptPath(started.id, nth(started.waypoints, 0).id), {
        id: 'after-finish',
        timestamp: at(30),
        status: 'SUCCESSFUL',
      }),
      400,
      3012,
    );
  });

  it('finalizes nothing more when called again', async () => {
    const { c } = await world();
    expectSuccess(
      // Done by the test before, unless this one runs alone.
      await c.asAccount('PATCH', `/dcs/dc-1/drivers/${driverId}/finish-routes`),
      drivers.finishDriverRoutes,
    );
    const response = await c.asAccount('PUT', `/dcs/dc-1/drivers/${driverId}/finish-routes`);
    expect(expectSuccess(response, drivers.finishDriverRoutes)).toEqual({ finalized_route_ids: [] });
  });

  it('finalizes another driver’s started route with PUT', async () => {
    const { c, secondToken } = await world();
    const response = await c.asAccount('PUT', `/dcs/dc-1/drivers/${secondId}/finish-routes`);
    expect(expectSuccess(response, drivers.finishDriverRoutes)).toEqual({
      finalized_route_ids: [secondStarted.id],
    });
    expect(await c.readRoute('dc-1', secondStarted.id)).toMatchObject({
      is_finalized: true,
      started_timestamp: at(15),
      version: 3,
    });
    expect(await c.driverRoutes(secondToken)).toEqual([]);
  });

  it('lets a driver without active routes be deleted, and its token stops working', async () => {
    const { c, secondToken } = await world();
    expectSuccess(
      // Done by the test before, unless this one runs alone.
      await c.asAccount('PUT', `/dcs/dc-1/drivers/${secondId}/finish-routes`),
      drivers.finishDriverRoutes,
    );
    expect(
      expectSuccess(await c.asAccount('DELETE', `/dcs/dc-1/drivers/${secondId}`), drivers.deleteDriver),
    ).toEqual({});
    expectError(await c.asDriver(secondToken, 'GET', '/driver/routes'), 401, 1001);
  });

  it('answers 404 with 1003 for a driver that does not exist', async () => {
    const c = driverAppClient(fx.api, await fx.account());
    expectError(await c.asAccount('PATCH', '/dcs/dc-1/drivers/no-such-driver/finish-routes'), 404, 1003);
  });
});
