import { beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { computeEtas } from '../../functions/domain/etas';
import { expectError, expectSuccess } from '../support/http';
import {
  CHANGE_ENDPOINTS,
  markDeletingThroughDataLayer,
  markStartedThroughDataLayer,
  minimalRoute,
  type Route,
  SHARED,
  START,
  useRoutesApi,
  type Waypoint,
  waitUntilRemoved,
} from '../support/route-changes';
import { exampleRoute, importedWaypoint, importRoute, trackingUrlUnder } from '../support/routes';

const rt = useRoutesApi('routes');

/** Imports the route into the DC as Acme (or as the account of `key`) and waits until it is done. */
const importInto = (dcId: string, route: unknown, key = rt.accounts.acme.key) =>
  importRoute(rt.fx.api.url, key, dcId, route);

/** A call as Globex, the other account. */
const asGlobex = (method: string, path: string, body?: unknown) =>
  rt.request(method, path, { key: rt.accounts.globex.key, body });

/** Routes imported into dc-2 (Tokyo) outside the find_by_date tests start on a day those tests do not read. */
const TOKYO_OTHER_DAY = Date.UTC(2026, 0, 15, 3, 0);

/** The route-scoped endpoints: method, the path after the route id, a valid body. */
const routeEndpoints: [string, string, unknown?][] = [
  ['GET', ''],
  ['GET', '/waypoints'],
  ['GET', `/waypoints/${SHARED}-wp-0`],
  ['DELETE', `/waypoints/${SHARED}-wp-0`],
  ['PUT', '/revision', { route: minimalRoute(SHARED) }],
  ['PUT', '/waypoint-order', { waypoint_ids: [`${SHARED}-wp-0`] }],
  ['POST', '/optimizations', {}],
  ['GET', '/optimizations/opt_0000000000000000'],
  ...CHANGE_ENDPOINTS,
  ['DELETE', ''],
];

/**
 * The answers every route-scoped endpoint shares: 401, 403, 404 (3003) for an unknown route and for a
 * route of another DC of the same account, and 1006 for a malformed route id.
 */
describe.each(routeEndpoints)(
  '%s /dcs/{dc_id}/routes/{route_id}%s: the common errors',
  (method, suffix, body) => {
    const path = (dcId: string, routeId: string) => `/dcs/${dcId}/routes/${routeId}${suffix}`;

    it('answers 401 with 1001 without a key and with an unknown key', async () => {
      expectError(await rt.request(method, path('dc-1', SHARED), { body }), 401, 1001);
      expectError(await rt.request(method, path('dc-1', SHARED), { key: 'drs_unknown', body }), 401, 1001);
    });

    it('answers 403 with 1002 for another account’s DC and for a DC that does not exist', async () => {
      expectError(await rt.asAcme(method, path('gx-1', SHARED), body), 403, 1002);
      expectError(await rt.asAcme(method, path('no-such-dc', SHARED), body), 403, 1002);
      expectError(await asGlobex(method, path('dc-2', SHARED), body), 403, 1002);
    });

    it('answers 404 with 3003 for an unknown route and for a route of another DC of the account', async () => {
      expect(expectError(await rt.asAcme(method, path('dc-1', 'no-such-route'), body), 404, 3003)).toContain(
        'no-such-route',
      );
      expectError(await rt.asAcme(method, path('dc-2', SHARED), body), 404, 3003);
    });

    it('answers 404 with 3003 to another account for a route id only this account has', async () => {
      expectError(await asGlobex(method, path('dc-1', SHARED), body), 404, 3003);
    });

    it('rejects a malformed route id with 1006 naming the path parameter', async () => {
      expect(expectError(await rt.asAcme(method, path('dc-1', '%20bad-id'), body), 400, 1006)).toContain(
        'path.route_id',
      );
      expectError(await rt.asAcme(method, path('dc-1', 'x'.repeat(129)), body), 400, 1006);
    });
  },
);

describe('GET /dcs/{dc_id}/routes/{route_id}', () => {
  it('returns every field with the imported values, version 1 and the waypoint ids in order', async () => {
    await rt.createDriver('dc-1', 'get-driver');
    await importInto('dc-1', {
      ...exampleRoute('get-1', { waypoints: 3, driverId: 'get-driver' }),
      start_warehouse: { id: 'wh-start', location: { latitude: 41.85, longitude: -87.65 } },
      end_warehouse: { id: 'wh-end', location: { latitude: 41.86, longitude: -87.66 } },
    });
    expect(await rt.readRoute('dc-1', 'get-1')).toEqual({
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
    await importInto('dc-1', minimalRoute('get-minimal'));
    expect(await rt.readRoute('dc-1', 'get-minimal')).toEqual({
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
    await importInto('dc-1', {
      ...exampleRoute('get-inactive'),
      activate_after_successful_import: false,
    });
    expect((await rt.readRoute('dc-1', 'get-inactive')).is_active).toBe(false);
    expect((await rt.readRoute('dc-1', SHARED)).is_active).toBe(true);
  });
});

describe('GET /dcs/{dc_id}/routes/find_by_date/{date}', () => {
  const ids = (response: Awaited<ReturnType<typeof rt.asAcme>>) =>
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
      await importInto(dcId, exampleRoute(id, { startTime }));
    }
  });

  it('returns the routes whose start falls on the DC-local date, by start time, as full routes', async () => {
    const response = await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22');
    expect(ids(response)).toEqual(['chi-early', 'chi-noon', 'chi-late']);
    const { routes: found } = expectSuccess(response, routes.findRoutesByDate) as { routes: Route[] };
    expect(found[0]).toEqual(await rt.readRoute('dc-1', 'chi-early'));
  });

  it('reads the date in each DC’s own zone: the same instant is another date in Tokyo', async () => {
    expect(ids(await rt.asAcme('GET', '/dcs/dc-2/routes/find_by_date/2026-11-23'))).toEqual([
      'tyo-early',
      'tyo-afternoon',
    ]);
    expect(ids(await rt.asAcme('GET', '/dcs/dc-2/routes/find_by_date/2026-11-22'))).toEqual(['tyo-before']);
    expect(ids(await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-21'))).toContain('chi-before');
  });

  it('returns an empty list for a day without routes (29 February of a leap year included)', async () => {
    expect(ids(await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-24'))).toEqual([]);
    expect(ids(await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2028-02-29'))).toEqual([]);
  });

  it('lists inactive routes too, and no longer lists a deleted route', async () => {
    await importInto('dc-1', {
      ...exampleRoute('chi-gone', { startTime: Date.UTC(2026, 10, 25, 15, 0) }),
      activate_after_successful_import: false,
    });
    expect(ids(await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-25'))).toEqual(['chi-gone']);
    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/chi-gone'), routes.deleteRoute);
    expect(ids(await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-25'))).toEqual([]);
  });

  it('shows another account only its own routes in its DC with the same id', async () => {
    const chiNoon = exampleRoute('chi-noon', { startTime: Date.UTC(2026, 10, 22, 20, 0) });
    await importInto('dc-1', chiNoon, rt.accounts.globex.key);
    const theirs = await asGlobex('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22');
    expect(ids(theirs)).toEqual(['chi-noon']);
    const ours = await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22');
    expect(ids(ours)).toEqual(['chi-early', 'chi-noon', 'chi-late']);
  });

  it.each(['2026-02-30', '2026-13-01', '2025-02-29', 'tomorrow', '2026-1-01', '20261122'])(
    'rejects the date %s with 1006 naming path.date',
    async (date) => {
      const response = await rt.asAcme('GET', `/dcs/dc-1/routes/find_by_date/${date}`);
      expect(expectError(response, 400, 1006)).toContain('path.date');
    },
  );

  it('answers 403 for another account’s DC or an unknown DC, and 401 without a key', async () => {
    expectError(await rt.asAcme('GET', '/dcs/gx-1/routes/find_by_date/2026-11-22'), 403, 1002);
    expectError(await rt.asAcme('GET', '/dcs/no-such-dc/routes/find_by_date/2026-11-22'), 403, 1002);
    expectError(await rt.request('GET', '/dcs/dc-1/routes/find_by_date/2026-11-22'), 401, 1001);
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints', () => {
  it('lists the waypoints in sequence with every imported field', async () => {
    const imported = exampleRoute('wps-1', { waypoints: 3, invoicesPerWaypoint: 2 });
    await importInto('dc-1', imported);
    const response = await rt.asAcme('GET', '/dcs/dc-1/routes/wps-1/waypoints');
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
        tracking_url: trackingUrlUnder(rt.fx.api.url),
      })),
    );
    // The sample's time window opens an hour after the start: the first stop waits for it.
    expect(waypoints[0]?.eta).toBe(imported.start_time + 3_600_000);
  });

  it('answers null, 0 and empty lists for a waypoint imported with only id and location', async () => {
    await importInto('dc-1', minimalRoute('wps-minimal'));
    const response = await rt.asAcme('GET', '/dcs/dc-1/routes/wps-minimal/waypoints');
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
          // No rules of its own, and the DC has no defaults: nothing asked of a visit.
          requirements: { photos: 0, signature: false, pin: false, minimum_age: null, scan_items: false },
          recipient: null,
          arrived_timestamp: null,
          departed_timestamp: null,
          visits: [],
          tracking_url: trackingUrlUnder(rt.fx.api.url),
        },
      ],
    });
  });

  it('gives every waypoint a tracking link of its own under the API’s URL, the same on every read', async () => {
    await importInto('dc-1', exampleRoute('wps-links', { waypoints: 4 }));
    const read = async () => {
      const response = await rt.asAcme('GET', '/dcs/dc-1/routes/wps-links/waypoints');
      const { waypoints } = expectSuccess(response, routes.listWaypoints) as { waypoints: Waypoint[] };
      return waypoints.map((waypoint) => waypoint.tracking_url);
    };
    const links = await read();
    for (const link of links) expect(link).toEqual(trackingUrlUnder(rt.fx.api.url));
    expect(new Set(links).size).toBe(4);
    expect(await read()).toEqual(links);
    // Another route's waypoints have links of their own.
    const other = await rt.asAcme('GET', '/dcs/dc-1/routes/wps-1/waypoints');
    const otherLinks = (
      expectSuccess(other, routes.listWaypoints) as { waypoints: Waypoint[] }
    ).waypoints.map((waypoint) => waypoint.tracking_url);
    expect(otherLinks.filter((link) => links.includes(link))).toEqual([]);
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}', () => {
  it('returns the one waypoint, as the list shows it', async () => {
    await importInto('dc-1', exampleRoute('wp-1', { waypoints: 3 }));
    const list = await rt.asAcme('GET', '/dcs/dc-1/routes/wp-1/waypoints');
    const { waypoints } = expectSuccess(list, routes.listWaypoints) as { waypoints: Waypoint[] };
    const response = await rt.asAcme('GET', '/dcs/dc-1/routes/wp-1/waypoints/wp-1-wp-1');
    expect(expectSuccess(response, routes.getWaypoint)).toEqual({ waypoint: waypoints[1] });
    expect(waypoints[1]?.sequence).toBe(1);
  });

  it('answers 404 with 1003 for a waypoint id the route does not have, even one of another route', async () => {
    await importInto('dc-1', exampleRoute('wp-2'));
    expect(
      expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/wp-2/waypoints/no-such-wp'), 404, 1003),
    ).toContain('no-such-wp');
    expectError(await rt.asAcme('GET', `/dcs/dc-1/routes/wp-2/waypoints/${SHARED}-wp-0`), 404, 1003);
  });

  it('rejects a malformed waypoint id with 1006', async () => {
    const response = await rt.asAcme('GET', `/dcs/dc-1/routes/${SHARED}/waypoints/bad-wp%20`);
    expect(expectError(response, 400, 1006)).toContain('path.waypoint_id');
  });
});

describe('DELETE /dcs/{dc_id}/routes/{route_id}', () => {
  it('deletes the route: data is empty, every read answers 404 and a DELETE once it is removed answers 404', async () => {
    await rt.createDriver('dc-1', 'del-driver');
    await importInto('dc-1', exampleRoute('del-1', { driverId: 'del-driver' }));
    expect(await rt.activeRouteIds('dc-1', 'del-driver')).toEqual(['del-1']);

    expect(expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-1'), routes.deleteRoute)).toEqual(
      {},
    );
    expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/del-1'), 404, 3003);
    expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/del-1/waypoints'), 404, 3003);
    expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/del-1/waypoints/del-1-wp-0'), 404, 3003);
    expectError(await rt.asAcme('PATCH', '/dcs/dc-1/routes/del-1/activate'), 404, 3003);
    expect(await rt.activeRouteIds('dc-1', 'del-driver')).toEqual([]);
    await waitUntilRemoved(rt.accounts.acme.accountId, 'del-1');
    expectError(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-1'), 404, 3003);
  });

  it('frees the route, waypoint, invoice and item ids: the same route imports again as a new route', async () => {
    const route = exampleRoute('del-reimport', { waypoints: 3, invoicesPerWaypoint: 2, itemsPerInvoice: 3 });
    await importInto('dc-1', route);
    await rt.change('PATCH', '/dcs/dc-1/routes/del-reimport/vehicle-assignment', { vehicle_id: 'changed' });
    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-reimport'), routes.deleteRoute);

    await waitUntilRemoved(rt.accounts.acme.accountId, 'del-reimport');
    await importInto('dc-1', route);
    expect(await rt.readRoute('dc-1', 'del-reimport')).toMatchObject({
      version: 1,
      vehicle_id: 'truck-del-reimport',
      waypoint_ids: route.waypoints.map((waypoint) => waypoint.id),
    });
    const list = await rt.asAcme('GET', '/dcs/dc-1/routes/del-reimport/waypoints');
    expect((expectSuccess(list, routes.listWaypoints) as { waypoints: Waypoint[] }).waypoints).toHaveLength(
      3,
    );
  });

  it('frees the ids for another route id too (a waypoint id moves to a new route)', async () => {
    await importInto('dc-1', minimalRoute('del-move'));
    const taken = await rt.asAcme('POST', '/dcs/dc-1/invoiced-routes', {
      route: { ...minimalRoute('del-move-new'), waypoints: minimalRoute('del-move').waypoints },
    });
    expectError(taken, 400, 3006);
    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-move'), routes.deleteRoute);
    await waitUntilRemoved(rt.accounts.acme.accountId, 'del-move');
    await importInto('dc-1', {
      ...minimalRoute('del-move-new'),
      waypoints: minimalRoute('del-move').waypoints,
    });
    expect((await rt.readRoute('dc-1', 'del-move-new')).waypoint_ids).toEqual(['del-move-wp-0']);
  });

  it('deletes a finished route, also one that had started — started through the data layer', async () => {
    await rt.createDriver('dc-1', 'del-fin-driver');
    await importInto('dc-1', exampleRoute('del-fin', { driverId: 'del-fin-driver' }));
    await importInto('dc-1', exampleRoute('del-st-fin', { driverId: 'del-fin-driver' }));
    await markStartedThroughDataLayer(rt.accounts.acme.accountId, 'del-st-fin');
    expect((await rt.finishRoutesOf('dc-1', 'del-fin-driver')).sort()).toEqual(['del-fin', 'del-st-fin']);
    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-fin'), routes.deleteRoute);
    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-st-fin'), routes.deleteRoute);
    expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/del-st-fin'), 404, 3003);
  });

  it('answers 3011 for a started, unfinished route and keeps it whole — started through the data layer', async () => {
    await rt.createDriver('dc-1', 'del-st-driver');
    await importInto('dc-1', exampleRoute('del-started', { driverId: 'del-st-driver' }));
    await markStartedThroughDataLayer(rt.accounts.acme.accountId, 'del-started');
    const before = await rt.readRoute('dc-1', 'del-started');
    expectError(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-started'), 400, 3011);
    expect(await rt.readRoute('dc-1', 'del-started')).toEqual(before);
    expect(await rt.activeRouteIds('dc-1', 'del-st-driver')).toEqual(['del-started']);
    const again = await rt.asAcme('POST', '/dcs/dc-1/invoiced-routes', {
      route: exampleRoute('del-started'),
    });
    expectError(again, 400, 3005);
  });

  it('finishes a deletion cut short: the marked route reads as 404, DELETE queues it again and the ids are freed', async () => {
    const route = exampleRoute('del-resume');
    await importInto('dc-1', route);
    await markDeletingThroughDataLayer(rt.accounts.acme.accountId, 'del-resume');
    expectError(await rt.asAcme('GET', '/dcs/dc-1/routes/del-resume'), 404, 3003);
    expect(
      (
        expectSuccess(
          await rt.asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-23'),
          routes.findRoutesByDate,
        ) as { routes: Route[] }
      ).routes.map((found) => found.id),
    ).not.toContain('del-resume');

    expectSuccess(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-resume'), routes.deleteRoute);
    await waitUntilRemoved(rt.accounts.acme.accountId, 'del-resume');
    expectError(await rt.asAcme('DELETE', '/dcs/dc-1/routes/del-resume'), 404, 3003);
    await importInto('dc-1', route);
    expect((await rt.readRoute('dc-1', 'del-resume')).version).toBe(1);
  });

  it('leaves another account’s route with the same id alone', async () => {
    await importInto('dc-1', exampleRoute('del-both'));
    await importInto('dc-1', exampleRoute('del-both'), rt.accounts.globex.key);
    expectSuccess(await asGlobex('DELETE', '/dcs/dc-1/routes/del-both'), routes.deleteRoute);
    expectError(await asGlobex('GET', '/dcs/dc-1/routes/del-both'), 404, 3003);
    expect((await rt.readRoute('dc-1', 'del-both')).version).toBe(1);
    const again = await rt.asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: exampleRoute('del-both') });
    expectError(again, 400, 3005);
  });
});

describe('another account', () => {
  it('has its own route with the same id in its DC with the same id, changed independently', async () => {
    await importInto('dc-1', exampleRoute('twin'));
    const inactiveTwin = {
      ...exampleRoute('twin', { waypoints: 1 }),
      activate_after_successful_import: false,
    };
    await importInto('dc-1', inactiveTwin, rt.accounts.globex.key);
    const theirs = await asGlobex('PATCH', '/dcs/dc-1/routes/twin/vehicle-assignment', {
      vehicle_id: 'globex-truck',
    });
    expect((expectSuccess(theirs, routes.assignVehicle) as { route: Route }).route).toMatchObject({
      vehicle_id: 'globex-truck',
      is_active: false,
      version: 2,
      waypoint_ids: ['twin-wp-0'],
    });
    expect(await rt.readRoute('dc-1', 'twin')).toMatchObject({
      vehicle_id: 'truck-twin',
      is_active: true,
      version: 1,
      waypoint_ids: ['twin-wp-0', 'twin-wp-1'],
    });
  });

  it('gets 403 for every request to this account’s DC, whatever the route', async () => {
    expectError(await asGlobex('GET', `/dcs/dc-2/routes/${SHARED}`), 403, 1002);
    expectError(await asGlobex('GET', '/dcs/dc-2/routes/find_by_date/2026-11-23'), 403, 1002);
    expectError(await asGlobex('DELETE', `/dcs/dc-2/routes/${SHARED}`), 403, 1002);
  });

  it('imports into its own DC without touching a Tokyo route of this account', async () => {
    await importInto('dc-2', exampleRoute('tyo-own', { startTime: TOKYO_OTHER_DAY }));
    await importInto('gx-1', exampleRoute('tyo-own'), rt.accounts.globex.key);
    expect((await rt.readRoute('dc-2', 'tyo-own')).start_time).toBe(TOKYO_OTHER_DAY);
    expect((await rt.readRoute('gx-1', 'tyo-own', rt.accounts.globex.key)).start_time).toBe(START);
  });
});
