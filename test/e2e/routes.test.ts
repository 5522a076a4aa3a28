import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { queryItems } from '../../functions/data/client';
import { getRouteHeader, replaceRouteHeader, routeKeys } from '../../functions/data/routes';
import { computeEtas } from '../../functions/domain/etas';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { exampleRoute, importedWaypoint, importRoute } from '../support/routes';

type Route = z.infer<typeof routes.Route>;
type Waypoint = z.infer<typeof routes.Waypoint>;

const fx = useTestApi('routes');
const { request } = fx;
let acme: TestAccount;
let globex: TestAccount;

const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);

/** The default start of exampleRoute: 2026-11-23 07:00 in Chicago (dc-1). */
const START = Date.UTC(2026, 10, 23, 13, 0);
/** Routes imported into dc-2 (Tokyo) outside the find_by_date tests start on a day those tests do not read. */
const TOKYO_OTHER_DAY = Date.UTC(2026, 0, 15, 3, 0);
/** A route of dc-1 that only the "route of another DC" checks read (as if it were in dc-2). */
const SHARED = 'shared-1';

beforeAll(async () => {
  acme = await createTestAccount('Acme', [
    { dcId: 'dc-1', timeZone: 'America/Chicago' },
    { dcId: 'dc-2', timeZone: 'Asia/Tokyo' },
  ]);
  // Globex has a DC with the same id as one of Acme's: DC ids, route ids and all other ids are per account.
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }, { dcId: 'gx-1' }]);
  await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(SHARED));
});

async function createDriver(dcId: string, driverId: string, key = acme.key) {
  const response = await request('POST', `/dcs/${dcId}/drivers`, {
    key,
    body: { driver_id: driverId, driver_name: `Driver ${driverId}` },
  });
  expectSuccess(response, drivers.createDriver);
}

/** The smallest route the import accepts: every optional field absent. */
function minimalRoute(id: string, startTime = START) {
  return {
    id,
    start_time: startTime,
    waypoints: [{ id: `${id}-wp-0`, location: { latitude: 41.9, longitude: -87.6 } }],
  };
}

async function readRoute(dcId: string, routeId: string, key = acme.key): Promise<Route> {
  const response = await request('GET', `/dcs/${dcId}/routes/${routeId}`, { key });
  return (expectSuccess(response, routes.getRoute) as { route: Route }).route;
}

async function activeRouteIds(dcId: string, driverId: string): Promise<string[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/drivers/${driverId}/active-routes`);
  const { active_routes } = expectSuccess(response, drivers.getDriverActiveRoutes) as {
    active_routes: { route_id: string }[];
  };
  return active_routes.map((route) => route.route_id);
}

async function finishRoutesOf(dcId: string, driverId: string): Promise<string[]> {
  const response = await asAcme('PATCH', `/dcs/${dcId}/drivers/${driverId}/finish-routes`);
  return (expectSuccess(response, drivers.finishDriverRoutes) as { finalized_route_ids: string[] })
    .finalized_route_ids;
}

/** A route changed by one of the change endpoints; asserts 200 and the response schema. */
async function change(method: string, path: string, body?: unknown): Promise<Route> {
  const response = await asAcme(method, path, body);
  return (expectSuccess(response, routes.activateRoute) as { route: Route }).route;
}

/**
 * No endpoint starts a route yet (the driver app comes later), so "started" is written through the data
 * layer, exactly as the start endpoint will: set started_timestamp and bump the version.
 */
async function markStartedThroughDataLayer(accountId: string, routeId: string, at = Date.now()) {
  const route = await getRouteHeader(accountId, routeId);
  if (!route) throw new Error(`no route ${routeId}`);
  const next = { ...route, startedTimestamp: at, version: route.version + 1 };
  expect(await replaceRouteHeader(next, route.version)).toBe(true);
}

/** A deletion cut short after its first step (the header marked `deleting`), written through the data layer. */
async function markDeletingThroughDataLayer(accountId: string, routeId: string) {
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
async function waitUntilRemoved(accountId: string, routeId: string, timeoutMs = 20_000) {
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

/**
 * The answers every route-scoped endpoint shares: 401, 403, 404 (3003) for an unknown route and for a
 * route of another DC of the same account, and 1006 for a malformed route id.
 */
function answersTheCommonErrors(method: string, suffix: string, body?: unknown) {
  const path = (dcId: string, routeId: string) => `/dcs/${dcId}/routes/${routeId}${suffix}`;

  it('answers 401 with 1001 without a key and with an unknown key', async () => {
    expectError(await request(method, path('dc-1', SHARED), { body }), 401, 1001);
    expectError(await request(method, path('dc-1', SHARED), { key: 'drs_unknown', body }), 401, 1001);
  });

  it('answers 403 with 1002 for another account’s DC and for a DC that does not exist', async () => {
    expectError(await asAcme(method, path('gx-1', SHARED), body), 403, 1002);
    expectError(await asAcme(method, path('no-such-dc', SHARED), body), 403, 1002);
    expectError(await request(method, path('dc-2', SHARED), { key: globex.key, body }), 403, 1002);
  });

  it('answers 404 with 3003 for an unknown route and for a route of another DC of the account', async () => {
    expect(expectError(await asAcme(method, path('dc-1', 'no-such-route'), body), 404, 3003)).toContain(
      'no-such-route',
    );
    expectError(await asAcme(method, path('dc-2', SHARED), body), 404, 3003);
  });

  it('answers 404 with 3003 to another account for a route id only this account has', async () => {
    expectError(await request(method, path('dc-1', SHARED), { key: globex.key, body }), 404, 3003);
  });

  it('rejects a malformed route id with 1006 naming the path parameter', async () => {
    expect(expectError(await asAcme(method, path('dc-1', '%20bad-id'), body), 400, 1006)).toContain(
      'path.route_id',
    );
    expectError(await asAcme(method, path('dc-1', 'x'.repeat(129)), body), 400, 1006);
  });
}

describe('GET /dcs/{dc_id}/routes/{route_id}', () => {
  it('returns every field with the imported values, version 1 and the waypoint ids in order', async () => {
    await createDriver('dc-1', 'get-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...exampleRoute('get-1', { waypoints: 3, driverId: 'get-driver' }),
      start_warehouse: { id: 'wh-start', location: { latitude: 41.85, longitude: -87.65 } },
      end_warehouse: { id: 'wh-end', location: { latitude: 41.86, longitude: -87.66 } },
    });
    expect(await readRoute('dc-1', 'get-1')).toEqual({
      id: 'get-1',
      name: 'Route get-1',
      assigned_driver_id: 'get-driver',
      start_time: START,
      start_warehouse_id: 'wh-start',
      end_warehouse_id: 'wh-end',
      vehicle_id: 'truck-get-1',
      version: 1,
      waypoint_ids: ['get-1-wp-0', 'get-1-wp-1', 'get-1-wp-2'],
      is_active: true,
      is_finalized: false,
      started_timestamp: null,
      finalized_timestamp: null,
    });
  });

  it('answers null for every absent optional field; the name defaults to the id and the route is inactive', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute('get-minimal'));
    expect(await readRoute('dc-1', 'get-minimal')).toEqual({
      id: 'get-minimal',
      name: 'get-minimal',
      assigned_driver_id: null,
      start_time: START,
      start_warehouse_id: null,
      end_warehouse_id: null,
      vehicle_id: null,
      version: 1,
      waypoint_ids: ['get-minimal-wp-0'],
      is_active: false,
      is_finalized: false,
      started_timestamp: null,
      finalized_timestamp: null,
    });
  });

  it('follows activate_after_successful_import', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...exampleRoute('get-inactive'),
      activate_after_successful_import: false,
    });
    expect((await readRoute('dc-1', 'get-inactive')).is_active).toBe(false);
    expect((await readRoute('dc-1', SHARED)).is_active).toBe(true);
  });

  answersTheCommonErrors('GET', '');
});

describe('GET /dcs/{dc_id}/routes/find_by_date/{date}', () => {
  const ids = (response: Awaited<ReturnType<typeof asAcme>>) =>
    (expectSuccess(response, routes.findRoutesByDate) as { routes: Route[] }).routes.map((route) => route.id);

  beforeAll(async () => {
    // Chicago is UTC-6 in November, Tokyo UTC+9.
    const imports: [string, string, number][] = [
      ['dc-1', 'chi-late', Date.UTC(2026, 10, 23, 5, 30)], // 2026-11-22 23:30 in Chicago
      ['dc-1', 'chi-noon', Date.UTC(2026, 10, 22, 18, 0)], // 2026-11-22 12:00
      ['dc-1', 'chi-early', Date.UTC(2026, 10, 22, 6, 0)], // 2026-11-22 00:00, the first instant of the day
      ['dc-1', 'chi-before', Date.UTC(2026, 10, 22, 5, 59)], // 2026-11-21 23:59
      ['dc-2', 'tyo-afternoon', Date.UTC(2026, 10, 23, 5, 30)], // 2026-11-23 14:30 in Tokyo
      ['dc-2', 'tyo-early', Date.UTC(2026, 10, 22, 15, 30)], // 2026-11-23 00:30
      ['dc-2', 'tyo-before', Date.UTC(2026, 10, 22, 14, 30)], // 2026-11-22 23:30
    ];
    // One at a time: the import worker takes them in any order, and the order must come from the read.
    for (const [dcId, id, startTime] of imports) {
      await importRoute(fx.api.url, acme.key, dcId, exampleRoute(id, { startTime }));
    }
  });

  it('returns the routes whose start falls on the DC-local date, by start time, as full routes', async () => {
    const response = await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22');
    expect(ids(response)).toEqual(['chi-early', 'chi-noon', 'chi-late']);
    const { routes: found } = expectSuccess(response, routes.findRoutesByDate) as { routes: Route[] };
    expect(found[0]).toEqual(await readRoute('dc-1', 'chi-early'));
  });

  it('reads the date in each DC’s own zone: the same instant is another date in Tokyo', async () => {
    expect(ids(await asAcme('GET', '/dcs/dc-2/routes/find_by_date/2026-11-23'))).toEqual([
      'tyo-early',
      'tyo-afternoon',
    ]);
    expect(ids(await asAcme('GET', '/dcs/dc-2/routes/find_by_date/2026-11-22'))).toEqual(['tyo-before']);
    expect(ids(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-21'))).toContain('chi-before');
  });

  it('returns an empty list for a day without routes (29 February of a leap year included)', async () => {
    expect(ids(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-24'))).toEqual([]);
    expect(ids(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2028-02-29'))).toEqual([]);
  });

  it('lists inactive routes too, and no longer lists a deleted route', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...exampleRoute('chi-gone', { startTime: Date.UTC(2026, 10, 25, 15, 0) }),
      activate_after_successful_import: false,
    });
    expect(ids(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-25'))).toEqual(['chi-gone']);
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/chi-gone'), routes.deleteRoute);
    expect(ids(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-25'))).toEqual([]);
  });

  it('shows another account only its own routes in its DC with the same id', async () => {
    await importRoute(
      fx.api.url,
      globex.key,
      'dc-1',
      exampleRoute('chi-noon', { startTime: Date.UTC(2026, 10, 22, 20, 0) }),
    );
    const theirs = await request('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22', { key: globex.key });
    expect(ids(theirs)).toEqual(['chi-noon']);
    const ours = await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22');
    expect(ids(ours)).toEqual(['chi-early', 'chi-noon', 'chi-late']);
  });

  it.each(['2026-02-30', '2026-13-01', '2025-02-29', 'tomorrow', '2026-1-01', '20261122'])(
    'rejects the date %s with 1006 naming path.date',
    async (date) => {
      const response = await asAcme('GET', `/dcs/dc-1/routes/find_by_date/${date}`);
      expect(expectError(response, 400, 1006)).toContain('path.date');
    },
  );

  it('answers 403 for another account’s DC or an unknown DC, and 401 without a key', async () => {
    expectError(await asAcme('GET', '/dcs/gx-1/routes/find_by_date/2026-11-22'), 403, 1002);
    expectError(await asAcme('GET', '/dcs/no-such-dc/routes/find_by_date/2026-11-22'), 403, 1002);
    expectError(await request('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22'), 401, 1001);
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints', () => {
  it('lists the waypoints in sequence with every imported field', async () => {
    const imported = exampleRoute('wps-1', { waypoints: 3, invoicesPerWaypoint: 2 });
    await importRoute(fx.api.url, acme.key, 'dc-1', imported);
    const response = await asAcme('GET', '/dcs/dc-1/routes/wps-1/waypoints');
    const { waypoints } = expectSuccess(response, routes.listWaypoints) as { waypoints: Waypoint[] };
    // Planned ETAs: from the start warehouse at start_time, at the default speed (DESIGN §5).
    const planned = computeEtas({
      departAt: imported.start_time,
      origin: imported.start_warehouse.location,
      stops: imported.waypoints.map((waypoint) => ({
        id: waypoint.id,
        location: waypoint.location,
        serviceTimeMinutes: waypoint.service_time_minutes,
        timeWindows: waypoint.time_windows,
      })),
    });
    expect(waypoints).toEqual(
      imported.waypoints.map((_, sequence) => ({
        ...importedWaypoint(imported, sequence),
        service_time_minutes: 10,
        status: 'PENDING',
        eta: planned[sequence]?.eta,
        attempts: [],
      })),
    );
    // The sample's time window opens an hour after the start: the first stop waits for it.
    expect(waypoints[0]?.eta).toBe(imported.start_time + 3_600_000);
  });

  it('answers null, 0 and empty lists for a waypoint imported with only id and location', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute('wps-minimal'));
    const response = await asAcme('GET', '/dcs/dc-1/routes/wps-minimal/waypoints');
    expect(expectSuccess(response, routes.listWaypoints)).toEqual({
      waypoints: [
        {
          id: 'wps-minimal-wp-0',
          sequence: 0,
          customer_id: null,
          name: null,
          address: null,
          location: { latitude: 41.9, longitude: -87.6 },
          service_time_minutes: 0,
          time_windows: [],
          invoice_ids: [],
          status: 'PENDING',
          // No start warehouse: the route starts at its first stop, so that stop is due at the start.
          eta: START,
          attempts: [],
        },
      ],
    });
  });

  answersTheCommonErrors('GET', '/waypoints');
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}', () => {
  it('returns the one waypoint, as the list shows it', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('wp-1', { waypoints: 3 }));
    const list = await asAcme('GET', '/dcs/dc-1/routes/wp-1/waypoints');
    const { waypoints } = expectSuccess(list, routes.listWaypoints) as { waypoints: Waypoint[] };
    const response = await asAcme('GET', '/dcs/dc-1/routes/wp-1/waypoints/wp-1-wp-1');
    expect(expectSuccess(response, routes.getWaypoint)).toEqual({ waypoint: waypoints[1] });
    expect(waypoints[1]?.sequence).toBe(1);
  });

  it('answers 404 with 1003 for a waypoint id the route does not have, even one of another route', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('wp-2'));
    expect(
      expectError(await asAcme('GET', '/dcs/dc-1/routes/wp-2/waypoints/no-such-wp'), 404, 1003),
    ).toContain('no-such-wp');
    expectError(await asAcme('GET', `/dcs/dc-1/routes/wp-2/waypoints/${SHARED}-wp-0`), 404, 1003);
  });

  it('rejects a malformed waypoint id with 1006', async () => {
    const response = await asAcme('GET', `/dcs/dc-1/routes/${SHARED}/waypoints/bad-wp%20`);
    expect(expectError(response, 400, 1006)).toContain('path.waypoint_id');
  });

  answersTheCommonErrors('GET', `/waypoints/${SHARED}-wp-0`);
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/activate and /deactivate', (method) => {
  const id = `toggle-${method.toLowerCase()}`;
  const driverId = `toggle-driver-${method.toLowerCase()}`;

  beforeAll(async () => {
    await createDriver('dc-1', driverId);
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...exampleRoute(id, { driverId }),
      activate_after_successful_import: false,
    });
  });

  it('activates: bumps the version and the route shows among its driver’s active routes', async () => {
    expect(await activeRouteIds('dc-1', driverId)).toEqual([]);
    const route = await change(method, `/dcs/dc-1/routes/${id}/activate`);
    expect(route).toMatchObject({ id, is_active: true, version: 2 });
    expect(await readRoute('dc-1', id)).toEqual(route);
    expect(await activeRouteIds('dc-1', driverId)).toEqual([id]);
  });

  it('returns the route unchanged, same version, when it is already active', async () => {
    const before = await readRoute('dc-1', id);
    expect(await change(method, `/dcs/dc-1/routes/${id}/activate`)).toEqual(before);
  });

  it('deactivates: bumps the version and the route leaves its driver’s active routes', async () => {
    const before = await readRoute('dc-1', id);
    const route = await change(method, `/dcs/dc-1/routes/${id}/deactivate`);
    expect(route).toEqual({ ...before, is_active: false, version: before.version + 1 });
    expect(await activeRouteIds('dc-1', driverId)).toEqual([]);
  });

  it('returns the route unchanged, same version, when it is already inactive', async () => {
    const before = await readRoute('dc-1', id);
    expect(await change(method, `/dcs/dc-1/routes/${id}/deactivate`)).toEqual(before);
  });
});

describe('PATCH /dcs/{dc_id}/routes/{route_id}/activate', () => {
  it('activates a route without a driver; it joins the active routes of the driver assigned later', async () => {
    await createDriver('dc-1', 'late-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute('act-no-driver'));
    expect(await change('PATCH', '/dcs/dc-1/routes/act-no-driver/activate')).toMatchObject({
      is_active: true,
      assigned_driver_id: null,
      version: 2,
    });
    await change('PATCH', '/dcs/dc-1/routes/act-no-driver/driver-assignment', { driver_id: 'late-driver' });
    expect(await activeRouteIds('dc-1', 'late-driver')).toEqual(['act-no-driver']);
  });

  it('answers 3012 for a route finished by finish-routes, and finish-routes then finds nothing', async () => {
    await createDriver('dc-1', 'act-fin-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('act-fin', { driverId: 'act-fin-driver' }));
    expect(await finishRoutesOf('dc-1', 'act-fin-driver')).toEqual(['act-fin']);
    const finished = await readRoute('dc-1', 'act-fin');
    expect(finished).toMatchObject({ is_finalized: true, is_active: false, version: 2 });
    expect(finished.finalized_timestamp).toEqual(expect.any(Number));

    expectError(await asAcme('PATCH', '/dcs/dc-1/routes/act-fin/activate'), 400, 3012);
    expectError(await asAcme('PUT', '/dcs/dc-1/routes/act-fin/activate'), 400, 3012);
    expect(await finishRoutesOf('dc-1', 'act-fin-driver')).toEqual([]);
    expect(await readRoute('dc-1', 'act-fin')).toEqual(finished);
  });

  it('leaves a started route as it is (already active) — started through the data layer', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('act-started'));
    await markStartedThroughDataLayer(acme.accountId, 'act-started');
    const before = await readRoute('dc-1', 'act-started');
    expect(await change('PATCH', '/dcs/dc-1/routes/act-started/activate')).toEqual(before);
  });

  answersTheCommonErrors('PATCH', '/activate');
  answersTheCommonErrors('PUT', '/activate');
});

describe('PATCH /dcs/{dc_id}/routes/{route_id}/deactivate', () => {
  it('answers 3012 for a finished route (PATCH and PUT)', async () => {
    await createDriver('dc-1', 'deact-fin-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('deact-fin', { driverId: 'deact-fin-driver' }),
    );
    expect(await finishRoutesOf('dc-1', 'deact-fin-driver')).toEqual(['deact-fin']);
    expectError(await asAcme('PATCH', '/dcs/dc-1/routes/deact-fin/deactivate'), 400, 3012);
    expectError(await asAcme('PUT', '/dcs/dc-1/routes/deact-fin/deactivate'), 400, 3012);
  });

  it('answers 3011 for a started route and leaves it active — started through the data layer', async () => {
    await createDriver('dc-1', 'deact-start-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('deact-started', { driverId: 'deact-start-driver' }),
    );
    await markStartedThroughDataLayer(acme.accountId, 'deact-started', START + 60_000);
    const before = await readRoute('dc-1', 'deact-started');
    expect(before.started_timestamp).toBe(START + 60_000);
    expectError(await asAcme('PATCH', '/dcs/dc-1/routes/deact-started/deactivate'), 400, 3011);
    expect(await readRoute('dc-1', 'deact-started')).toEqual(before);
    expect(await activeRouteIds('dc-1', 'deact-start-driver')).toEqual(['deact-started']);
  });

  it('answers 3012, not 3011, for a route that started and then finished — started through the data layer', async () => {
    await createDriver('dc-1', 'deact-both-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('deact-both', { driverId: 'deact-both-driver' }),
    );
    await markStartedThroughDataLayer(acme.accountId, 'deact-both');
    expect(await finishRoutesOf('dc-1', 'deact-both-driver')).toEqual(['deact-both']);
    expectError(await asAcme('PATCH', '/dcs/dc-1/routes/deact-both/deactivate'), 400, 3012);
  });

  answersTheCommonErrors('PATCH', '/deactivate');
  answersTheCommonErrors('PUT', '/deactivate');
});

describe('DELETE /dcs/{dc_id}/drivers/{driver_id} with routes', () => {
  it('answers 2001 while the driver has an active route and deletes the driver once it is deactivated', async () => {
    await createDriver('dc-1', 'busy-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('busy-1', { driverId: 'busy-driver' }));
    expectError(await asAcme('DELETE', '/dcs/dc-1/drivers/busy-driver'), 400, 2001);
    await change('PATCH', '/dcs/dc-1/routes/busy-1/deactivate');
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/busy-driver'), drivers.deleteDriver);
  });

  it('deletes the driver once its active route is given to another driver', async () => {
    await createDriver('dc-1', 'handover-from');
    await createDriver('dc-1', 'handover-to');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('handover-1', { driverId: 'handover-from' }),
    );
    expectError(await asAcme('DELETE', '/dcs/dc-1/drivers/handover-from'), 400, 2001);
    await change('PUT', '/dcs/dc-1/routes/handover-1/driver-assignment', { driver_id: 'handover-to' });
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/handover-from'), drivers.deleteDriver);
  });
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/driver-assignment', (method) => {
  const tag = method.toLowerCase();

  it('moves an active route from the old driver’s active routes to the new one’s and bumps the version', async () => {
    const [from, to, id] = [`assign-from-${tag}`, `assign-to-${tag}`, `assign-${tag}`];
    await createDriver('dc-1', from);
    await createDriver('dc-1', to);
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id, { driverId: from }));
    expect(await activeRouteIds('dc-1', from)).toEqual([id]);

    const route = await change(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: to });
    expect(route).toMatchObject({ assigned_driver_id: to, version: 2, is_active: true });
    expect(await readRoute('dc-1', id)).toEqual(route);
    expect(await activeRouteIds('dc-1', to)).toEqual([id]);
    expect(await activeRouteIds('dc-1', from)).toEqual([]);
  });

  it('assigns a driver to an inactive route without adding it to the driver’s active routes', async () => {
    const [driverId, id] = [`assign-inactive-driver-${tag}`, `assign-inactive-${tag}`];
    await createDriver('dc-1', driverId);
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute(id));
    const route = await change(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: driverId });
    expect(route).toMatchObject({ assigned_driver_id: driverId, is_active: false, version: 2 });
    expect(await activeRouteIds('dc-1', driverId)).toEqual([]);
  });

  it('returns the route unchanged, same version, when the driver is already assigned', async () => {
    const [driverId, id] = [`assign-same-driver-${tag}`, `assign-same-${tag}`];
    await createDriver('dc-1', driverId);
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id, { driverId }));
    const before = await readRoute('dc-1', id);
    expect(await change(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: driverId })).toEqual(
      before,
    );
  });

  it('answers 3010 for an unknown driver, a driver of another DC and a driver of another account', async () => {
    await createDriver('dc-2', `other-dc-driver-${tag}`);
    await createDriver('dc-1', `globex-driver-${tag}`, globex.key);
    const path = `/dcs/dc-1/routes/${SHARED}/driver-assignment`;
    const before = await readRoute('dc-1', SHARED);
    expect(expectError(await asAcme(method, path, { driver_id: 'nobody' }), 400, 3010)).toContain('nobody');
    expectError(await asAcme(method, path, { driver_id: `other-dc-driver-${tag}` }), 400, 3010);
    expectError(await asAcme(method, path, { driver_id: `globex-driver-${tag}` }), 400, 3010);
    expect(await readRoute('dc-1', SHARED)).toEqual(before);
  });

  it('answers 3012 for a finished route', async () => {
    const [driverId, id] = [`assign-fin-driver-${tag}`, `assign-fin-${tag}`];
    await createDriver('dc-1', driverId);
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id, { driverId }));
    await finishRoutesOf('dc-1', driverId);
    expectError(
      await asAcme(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: driverId }),
      400,
      3012,
    );
  });

  it('answers 3011 for a started route — started through the data layer', async () => {
    const [from, to, id] = [`assign-st-from-${tag}`, `assign-st-to-${tag}`, `assign-started-${tag}`];
    await createDriver('dc-1', from);
    await createDriver('dc-1', to);
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id, { driverId: from }));
    await markStartedThroughDataLayer(acme.accountId, id);
    expectError(
      await asAcme(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: to }),
      400,
      3011,
    );
    expect(await activeRouteIds('dc-1', from)).toEqual([id]);
  });

  it.each([
    ['a missing driver_id', {}, /driver_id/],
    ['an empty driver_id', { driver_id: '' }, /driver_id/],
    ['a driver_id with a slash', { driver_id: 'a/b' }, /driver_id/],
    ['a numeric driver_id', { driver_id: 7 }, /driver_id/],
  ])('rejects %s with 1006', async (_, body, message) => {
    const response = await asAcme(method, `/dcs/dc-1/routes/${SHARED}/driver-assignment`, body);
    expect(expectError(response, 400, 1006)).toMatch(message);
  });

  it('rejects a missing body with 1006 and malformed JSON with 1005', async () => {
    expectError(await asAcme(method, `/dcs/dc-1/routes/${SHARED}/driver-assignment`), 400, 1006);
    const malformed = await request(method, `/dcs/dc-1/routes/${SHARED}/driver-assignment`, {
      key: acme.key,
      body: '{"driver_id":',
    });
    expectError(malformed, 400, 1005);
  });

  answersTheCommonErrors(method, '/driver-assignment', { driver_id: 'nobody' });
});

describe('DELETE /dcs/{dc_id}/routes/{route_id}/driver-assignment', () => {
  it('removes the driver: version bumped, gone from the driver’s active routes, the route stays active', async () => {
    await createDriver('dc-1', 'unassign-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('unassign-1', { driverId: 'unassign-driver' }),
    );
    const route = await change('DELETE', '/dcs/dc-1/routes/unassign-1/driver-assignment');
    expect(route).toMatchObject({ assigned_driver_id: null, is_active: true, version: 2 });
    expect(await readRoute('dc-1', 'unassign-1')).toEqual(route);
    expect(await activeRouteIds('dc-1', 'unassign-driver')).toEqual([]);
  });

  it('returns the route unchanged, same version, when it has no driver', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute('unassign-none'));
    const before = await readRoute('dc-1', 'unassign-none');
    expect(await change('DELETE', '/dcs/dc-1/routes/unassign-none/driver-assignment')).toEqual(before);
  });

  it('answers 3012 for a finished route', async () => {
    await createDriver('dc-1', 'unassign-fin-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('unassign-fin', { driverId: 'unassign-fin-driver' }),
    );
    await finishRoutesOf('dc-1', 'unassign-fin-driver');
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/unassign-fin/driver-assignment'), 400, 3012);
  });

  it('answers 3011 for a started route — started through the data layer', async () => {
    await createDriver('dc-1', 'unassign-st-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('unassign-st', { driverId: 'unassign-st-driver' }),
    );
    await markStartedThroughDataLayer(acme.accountId, 'unassign-st');
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/unassign-st/driver-assignment'), 400, 3011);
    expect((await readRoute('dc-1', 'unassign-st')).assigned_driver_id).toBe('unassign-st-driver');
  });

  answersTheCommonErrors('DELETE', '/driver-assignment');
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/vehicle-assignment', (method) => {
  const tag = method.toLowerCase();

  it('sets the vehicle and bumps the version; the same vehicle again changes nothing', async () => {
    const id = `vehicle-${tag}`;
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id));
    const route = await change(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, {
      vehicle_id: 'truck-9',
    });
    expect(route).toMatchObject({ vehicle_id: 'truck-9', version: 2 });
    expect(await readRoute('dc-1', id)).toEqual(route);
    expect(
      await change(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, { vehicle_id: 'truck-9' }),
    ).toEqual(route);
  });

  it('applies concurrent changes one after another: every one answers 200 with its own version', async () => {
    const id = `vehicle-race-${tag}`;
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id));
    const vehicles = ['race-a', 'race-b', 'race-c', 'race-d'];
    const results = await Promise.all(
      vehicles.map((vehicle_id) =>
        change(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, { vehicle_id }),
      ),
    );
    expect(results.map((route) => route.version).sort()).toEqual([2, 3, 4, 5]);
    const last = results.find((route) => route.version === 5);
    expect(await readRoute('dc-1', id)).toEqual(last);
  });

  it('changes the vehicle of a started route — started through the data layer', async () => {
    const id = `vehicle-started-${tag}`;
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id));
    await markStartedThroughDataLayer(acme.accountId, id);
    const route = await change(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, { vehicle_id: 'spare' });
    expect(route).toMatchObject({ vehicle_id: 'spare', version: 3 });
  });

  it('answers 3012 for a finished route', async () => {
    const [driverId, id] = [`vehicle-fin-driver-${tag}`, `vehicle-fin-${tag}`];
    await createDriver('dc-1', driverId);
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute(id, { driverId }));
    await finishRoutesOf('dc-1', driverId);
    expectError(
      await asAcme(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, { vehicle_id: 'x' }),
      400,
      3012,
    );
  });

  it.each([
    ['a missing vehicle_id', {}],
    ['an empty vehicle_id', { vehicle_id: '' }],
    ['a vehicle_id ending in a space', { vehicle_id: 'truck 9 ' }],
    ['a vehicle_id over 128 characters', { vehicle_id: 'v'.repeat(129) }],
  ])('rejects %s with 1006', async (_, body) => {
    const response = await asAcme(method, `/dcs/dc-1/routes/${SHARED}/vehicle-assignment`, body);
    expect(expectError(response, 400, 1006)).toContain('vehicle_id');
  });

  answersTheCommonErrors(method, '/vehicle-assignment', { vehicle_id: 'truck-9' });
});

describe('DELETE /dcs/{dc_id}/routes/{route_id}', () => {
  it('deletes the route: data is empty, every read answers 404 and a DELETE once it is removed answers 404', async () => {
    await createDriver('dc-1', 'del-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('del-1', { driverId: 'del-driver' }));
    expect(await activeRouteIds('dc-1', 'del-driver')).toEqual(['del-1']);

    expect(expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-1'), routes.deleteRoute)).toEqual({});
    expectError(await asAcme('GET', '/dcs/dc-1/routes/del-1'), 404, 3003);
    expectError(await asAcme('GET', '/dcs/dc-1/routes/del-1/waypoints'), 404, 3003);
    expectError(await asAcme('GET', '/dcs/dc-1/routes/del-1/waypoints/del-1-wp-0'), 404, 3003);
    expectError(await asAcme('PATCH', '/dcs/dc-1/routes/del-1/activate'), 404, 3003);
    expect(await activeRouteIds('dc-1', 'del-driver')).toEqual([]);
    await waitUntilRemoved(acme.accountId, 'del-1');
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/del-1'), 404, 3003);
  });

  it('frees the route, waypoint, invoice and item ids: the same route imports again as a new route', async () => {
    const route = exampleRoute('del-reimport', { waypoints: 3, invoicesPerWaypoint: 2, itemsPerInvoice: 3 });
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    await change('PATCH', '/dcs/dc-1/routes/del-reimport/vehicle-assignment', { vehicle_id: 'changed' });
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-reimport'), routes.deleteRoute);

    await waitUntilRemoved(acme.accountId, 'del-reimport');
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    expect(await readRoute('dc-1', 'del-reimport')).toMatchObject({
      version: 1,
      vehicle_id: 'truck-del-reimport',
      waypoint_ids: route.waypoints.map((waypoint) => waypoint.id),
    });
    const list = await asAcme('GET', '/dcs/dc-1/routes/del-reimport/waypoints');
    expect((expectSuccess(list, routes.listWaypoints) as { waypoints: Waypoint[] }).waypoints).toHaveLength(
      3,
    );
  });

  it('frees the ids for another route id too (a waypoint id moves to a new route)', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', minimalRoute('del-move'));
    const taken = await asAcme('POST', '/dcs/dc-1/invoiced-routes', {
      route: { ...minimalRoute('del-move-new'), waypoints: minimalRoute('del-move').waypoints },
    });
    expectError(taken, 400, 3006);
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-move'), routes.deleteRoute);
    await waitUntilRemoved(acme.accountId, 'del-move');
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...minimalRoute('del-move-new'),
      waypoints: minimalRoute('del-move').waypoints,
    });
    expect((await readRoute('dc-1', 'del-move-new')).waypoint_ids).toEqual(['del-move-wp-0']);
  });

  it('deletes a finished route, also one that had started — started through the data layer', async () => {
    await createDriver('dc-1', 'del-fin-driver');
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('del-fin', { driverId: 'del-fin-driver' }));
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('del-st-fin', { driverId: 'del-fin-driver' }),
    );
    await markStartedThroughDataLayer(acme.accountId, 'del-st-fin');
    expect((await finishRoutesOf('dc-1', 'del-fin-driver')).sort()).toEqual(['del-fin', 'del-st-fin']);
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-fin'), routes.deleteRoute);
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-st-fin'), routes.deleteRoute);
    expectError(await asAcme('GET', '/dcs/dc-1/routes/del-st-fin'), 404, 3003);
  });

  it('answers 3011 for a started, unfinished route and keeps it whole — started through the data layer', async () => {
    await createDriver('dc-1', 'del-st-driver');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      exampleRoute('del-started', { driverId: 'del-st-driver' }),
    );
    await markStartedThroughDataLayer(acme.accountId, 'del-started');
    const before = await readRoute('dc-1', 'del-started');
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/del-started'), 400, 3011);
    expect(await readRoute('dc-1', 'del-started')).toEqual(before);
    expect(await activeRouteIds('dc-1', 'del-st-driver')).toEqual(['del-started']);
    const again = await asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: exampleRoute('del-started') });
    expectError(again, 400, 3005);
  });

  it('finishes a deletion cut short: the marked route reads as 404, DELETE queues it again and the ids are freed', async () => {
    const route = exampleRoute('del-resume');
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    await markDeletingThroughDataLayer(acme.accountId, 'del-resume');
    expectError(await asAcme('GET', '/dcs/dc-1/routes/del-resume'), 404, 3003);
    expect(
      (
        expectSuccess(
          await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-23'),
          routes.findRoutesByDate,
        ) as { routes: Route[] }
      ).routes.map((found) => found.id),
    ).not.toContain('del-resume');

    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/del-resume'), routes.deleteRoute);
    await waitUntilRemoved(acme.accountId, 'del-resume');
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/del-resume'), 404, 3003);
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    expect((await readRoute('dc-1', 'del-resume')).version).toBe(1);
  });

  it('leaves another account’s route with the same id alone', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('del-both'));
    await importRoute(fx.api.url, globex.key, 'dc-1', exampleRoute('del-both'));
    expectSuccess(
      await request('DELETE', '/dcs/dc-1/routes/del-both', { key: globex.key }),
      routes.deleteRoute,
    );
    expectError(await request('GET', '/dcs/dc-1/routes/del-both', { key: globex.key }), 404, 3003);
    expect((await readRoute('dc-1', 'del-both')).version).toBe(1);
    const again = await asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: exampleRoute('del-both') });
    expectError(again, 400, 3005);
  });

  answersTheCommonErrors('DELETE', '');
});

describe('another account', () => {
  it('has its own route with the same id in its DC with the same id, changed independently', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', exampleRoute('twin'));
    await importRoute(fx.api.url, globex.key, 'dc-1', {
      ...exampleRoute('twin', { waypoints: 1 }),
      activate_after_successful_import: false,
    });
    const theirs = await request('PATCH', '/dcs/dc-1/routes/twin/vehicle-assignment', {
      key: globex.key,
      body: { vehicle_id: 'globex-truck' },
    });
    expect((expectSuccess(theirs, routes.assignVehicle) as { route: Route }).route).toMatchObject({
      vehicle_id: 'globex-truck',
      is_active: false,
      version: 2,
      waypoint_ids: ['twin-wp-0'],
    });
    expect(await readRoute('dc-1', 'twin')).toMatchObject({
      vehicle_id: 'truck-twin',
      is_active: true,
      version: 1,
      waypoint_ids: ['twin-wp-0', 'twin-wp-1'],
    });
  });

  it('gets 403 for every request to this account’s DC, whatever the route', async () => {
    const key = globex.key;
    expectError(await request('GET', `/dcs/dc-2/routes/${SHARED}`, { key }), 403, 1002);
    expectError(await request('GET', '/dcs/dc-2/routes/find_by_date/2026-11-23', { key }), 403, 1002);
    expectError(await request('DELETE', `/dcs/dc-2/routes/${SHARED}`, { key }), 403, 1002);
  });

  it('imports into its own DC without touching a Tokyo route of this account', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-2', exampleRoute('tyo-own', { startTime: TOKYO_OTHER_DAY }));
    await importRoute(fx.api.url, globex.key, 'gx-1', exampleRoute('tyo-own'));
    expect((await readRoute('dc-2', 'tyo-own')).start_time).toBe(TOKYO_OTHER_DAY);
    expect((await readRoute('gx-1', 'tyo-own', globex.key)).start_time).toBe(START);
  });
});
