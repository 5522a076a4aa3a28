import { beforeAll, expect } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { queryItems } from '../../functions/data/client';
import { getRouteHeader, replaceRouteHeader, routeKeys } from '../../functions/data/routes';
import type * as z from '../../functions/shared/zod';
import { createTestAccount } from './accounts';
import { type TestAccount, type TestApiFixture, useTestApi } from './fixtures';
import { expectSuccess } from './http';
import { strongToken } from './login-tokens';
import { exampleRoute, importRoute, readWaypointsAs, routeUpdatedEventsOf } from './routes';

export type Route = z.infer<typeof routes.Route>;
export type Waypoint = z.infer<typeof routes.RouteWaypoint>;
/** A waypoint as the import takes it (exampleRoute). */
export type ImportedWaypoint = ReturnType<typeof exampleRoute>['waypoints'][number];

/** The default start of exampleRoute: 2026-11-23 07:00 in Chicago. */
export const START = Date.UTC(2026, 10, 23, 13, 0);

/** The smallest route the import accepts: every optional field absent. */
export function minimalRoute(id: string, startTime = START) {
  return {
    id,
    start_time: startTime,
    waypoints: [{ id: `${id}-wp-0`, location: { latitude: 41.9, longitude: -87.6 } }],
  };
}

/**
 * No endpoint starts a route yet (the driver app comes later), so "started" is written through the data
 * layer, exactly as the start endpoint will: set started_timestamp and bump the version.
 */
export async function markStartedThroughDataLayer(accountId: string, routeId: string, at = Date.now()) {
  const route = await getRouteHeader(accountId, routeId);
  if (!route) throw new Error(`no route ${routeId}`);
  const next = { ...route, startedTimestamp: at, version: route.version + 1 };
  expect(await replaceRouteHeader(next, route.version)).toBe(true);
}

/** A deletion cut short after its first step (the header marked `deleting`), written through the data layer. */
export async function markDeletingThroughDataLayer(accountId: string, routeId: string) {
  const route = await getRouteHeader(accountId, routeId);
  if (!route) throw new Error(`no route ${routeId}`);
  expect(
    await replaceRouteHeader({ ...route, deleting: true, version: route.version + 1 }, route.version),
  ).toBe(true);
}

/**
 * Waits until the deletion worker removed the route: its partition is empty, header included (the last
 * thing it deletes, after the rows and the claims).
 */
export async function waitUntilRemoved(accountId: string, routeId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = await queryItems(
      {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': routeKeys.route(accountId, routeId).pk },
        ConsistentRead: true,
      },
      1,
    );
    if (items.length === 0) return;
    expect(Date.now(), `route ${routeId} still not removed`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How `seedRoute` leaves the route: started through the data layer (at `started`) and/or finished. */
export interface SeedOptions {
  dcId?: string;
  started?: number;
  finished?: boolean;
}

/** The route calls of one account of a test file's API, asserting 200 and the response schema. */
export function routeCalls(fx: TestApiFixture, account: () => TestAccount) {
  const as = (method: string, path: string, body?: unknown) => fx.as(account().key, method, path, body);

  async function createDriver(dcId: string, driverId: string, key = account().key) {
    const response = await fx.request('POST', `/dcs/${dcId}/drivers`, {
      key,
      body: { driver_id: driverId, driver_name: `Driver ${driverId}` },
    });
    expectSuccess(response, drivers.createDriver);
  }

  async function readRoute(dcId: string, routeId: string, key = account().key): Promise<Route> {
    const response = await fx.request('GET', `/dcs/${dcId}/routes/${routeId}`, { key });
    return (expectSuccess(response, routes.getRoute) as { route: Route }).route;
  }

  const readWaypoints = (dcId: string, routeId: string) => readWaypointsAs(as, dcId, routeId);

  /** The ROUTE_UPDATED events of a route of the account, as stored. */
  const routeUpdatedEvents = (routeId: string) => routeUpdatedEventsOf(account().accountId, routeId);

  async function activeRouteIds(dcId: string, driverId: string): Promise<string[]> {
    const response = await as('GET', `/dcs/${dcId}/drivers/${driverId}/active-routes`);
    const { active_routes } = expectSuccess(response, drivers.getDriverActiveRoutes) as {
      active_routes: { route_id: string }[];
    };
    return active_routes.map((route) => route.route_id);
  }

  async function finishRoutesOf(dcId: string, driverId: string): Promise<string[]> {
    const response = await as('PATCH', `/dcs/${dcId}/drivers/${driverId}/finish-routes`);
    return (expectSuccess(response, drivers.finishDriverRoutes) as { finalized_route_ids: string[] })
      .finalized_route_ids;
  }

  /** A route changed by one of the change endpoints. */
  async function change(method: string, path: string, body?: unknown): Promise<Route> {
    const response = await as(method, path, body);
    return (expectSuccess(response, routes.activateRoute) as { route: Route }).route;
  }

  /**
   * Imports the active route `id` (exampleRoute) assigned to its own new driver `${id}-driver`, then
   * starts it through the data layer and/or finishes it with finish-routes, as `options` say.
   */
  async function seedRoute(id: string, { dcId = 'dc-1', started, finished }: SeedOptions = {}) {
    const driverId = `${id}-driver`;
    await createDriver(dcId, driverId);
    await importRoute(fx.api.url, account().key, dcId, exampleRoute(id, { driverId }));
    if (started !== undefined) await markStartedThroughDataLayer(account().accountId, id, started);
    if (finished) expect(await finishRoutesOf(dcId, driverId)).toEqual([id]);
    return { id, driverId, path: `/dcs/${dcId}/routes/${id}` };
  }

  /** A driver of dc-1 who can sign in to the driver app; `asDriver` calls as that driver. */
  async function createAppDriver(driverId: string) {
    const loginToken = strongToken(`${driverId}-login-token-0001`);
    const created = await as('POST', '/dcs/dc-1/drivers', {
      driver_id: driverId,
      driver_name: `Driver ${driverId}`,
      login_token: loginToken,
    });
    expectSuccess(created, drivers.createDriver);
    const asDriver = (method: string, path: string, payload?: unknown) =>
      fx.as(loginToken, method, path, payload);
    return { loginToken, asDriver };
  }

  /**
   * Imports the active route `id` of dc-1 with `waypoints` waypoints (exampleRoute) for its own new driver
   * `${id}-driver`, who can use the driver app (`asDriver`).
   */
  async function importForAppDriver(id: string, waypoints: number) {
    const driverId = `${id}-driver`;
    const { loginToken, asDriver } = await createAppDriver(driverId);
    const body = exampleRoute(id, { waypoints, driverId });
    await importRoute(fx.api.url, account().key, 'dc-1', body);
    return {
      body,
      driverId,
      loginToken,
      ids: body.waypoints.map((waypoint) => waypoint.id),
      asDriver,
      path: `/dcs/dc-1/routes/${id}`,
    };
  }

  /**
   * Imports the route `id` of three waypoints for its own app driver (importForAppDriver) and reads what a
   * client sees of it before its middle waypoint goes: the route, its waypoints and the middle one's tracking
   * link (a path on the API).
   */
  async function importBeforeMiddleGoes(id: string) {
    const imported = await importForAppDriver(id, 3);
    const waypoints = imported.body.waypoints as [ImportedWaypoint, ImportedWaypoint, ImportedWaypoint];
    const before = await readRoute('dc-1', id);
    const waypointsBefore = await readWaypoints('dc-1', id);
    const middleTrackingPath = String(waypointsBefore[1]?.tracking_url).slice(fx.api.url.length);
    return { ...imported, waypoints, before, waypointsBefore, middleTrackingPath };
  }

  return {
    asAcme: as,
    createDriver,
    readRoute,
    readWaypoints,
    routeUpdatedEvents,
    activeRouteIds,
    finishRoutesOf,
    change,
    seedRoute,
    createAppDriver,
    importForAppDriver,
    importBeforeMiddleGoes,
  };
}

/** A route of dc-1 that only the "route of another DC" checks read (as if it were in dc-2). */
export const SHARED = 'shared-1';
/** A driver of dc-1 the change endpoints may be asked to assign. */
export const SPARE_DRIVER = 'spare-driver';

/**
 * The accounts of a routes test file: Acme with dc-1 (Chicago) and dc-2 (Tokyo), the route SHARED and the
 * driver SPARE_DRIVER in dc-1; Globex with a DC with the same id as one of Acme's (DC ids, route ids and all
 * other ids are per account) and gx-1.
 */
export async function createRouteAccounts(fx: TestApiFixture) {
  const acme = await createTestAccount('Acme', [
    { dcId: 'dc-1', timeZone: 'America/Chicago' },
    { dcId: 'dc-2', timeZone: 'Asia/Tokyo' },
  ]);
  const globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }, { dcId: 'gx-1' }]);
  await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(SHARED));
  await routeCalls(fx, () => acme).createDriver('dc-1', SPARE_DRIVER);
  return { acme, globex };
}

/** The change endpoints of a route: method, the path after the route id, a body that passes validation. */
export const CHANGE_ENDPOINTS: [string, string, unknown?][] = [
  ['PATCH', '/activate'],
  ['PUT', '/activate'],
  ['PATCH', '/deactivate'],
  ['PUT', '/deactivate'],
  ['PATCH', '/driver-assignment', { driver_id: SPARE_DRIVER }],
  ['PUT', '/driver-assignment', { driver_id: SPARE_DRIVER }],
  ['DELETE', '/driver-assignment'],
  ['PATCH', '/vehicle-assignment', { vehicle_id: 'truck-9' }],
  ['PUT', '/vehicle-assignment', { vehicle_id: 'truck-9' }],
];

/**
 * The local API of a routes test file (`useTestApi`), its accounts made in a beforeAll (createRouteAccounts)
 * and the route calls as Acme (routeCalls). Call at the top of the file.
 */
export function useRoutesApi(name: string) {
  const fx = useTestApi(name);
  const accounts = {} as { acme: TestAccount; globex: TestAccount };
  beforeAll(async () => {
    Object.assign(accounts, await createRouteAccounts(fx));
  });
  return { fx, request: fx.request, accounts, ...routeCalls(fx, () => accounts.acme) };
}

type DriverCall = (
  method: string,
  path: string,
  payload?: unknown,
) => Promise<{ status: number; text: string }>;

/** The driver starts the route (a minute ago unless `startedAt`) and records one attempt at the waypoint. */
export async function startAndVisit(
  asDriver: DriverCall,
  routeId: string,
  waypointId: string,
  attempt: { id: string; status: string; timestamp?: number },
  startedAt = Date.now() - 60_000,
) {
  const started = await asDriver('POST', `/driver/routes/${routeId}/start`, { timestamp: startedAt });
  expect(started.status, started.text).toBe(200);
  const visit = await asDriver('POST', `/driver/routes/${routeId}/waypoints/${waypointId}/attempts`, {
    timestamp: Date.now() - 1_000,
    ...attempt,
  });
  expect(visit.status, visit.text).toBe(200);
}
