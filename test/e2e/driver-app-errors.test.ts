import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import {
  at,
  attemptPath,
  type DriverAppClient,
  driverAppClient,
  future,
  MINUTE,
  nth,
  routeOf,
} from '../support/driver-app';
import { once, type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';

/*
 * Every error code of the driver app, on one account's driver and routes in every state (started, active,
 * inactive, without a driver, finished), made in the file's beforeAll. A test that checks that refusals
 * changed nothing sends the refusals itself, so each test runs alone as well as with the others.
 */

const fx = useTestApi('driver-app-errors');
let c: DriverAppClient;
/** Another account with a DC of the same id. */
let globex: TestAccount;

describe('driver app errors', () => {
  const driverId = 'err-driver';
  const token = strongToken('err-driver-login-token-01');
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
    c = driverAppClient(fx.api, await fx.account());
    globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
    await c.createDriver('dc-1', driverId, token);
    await Promise.all(
      [startedRoute, activeRoute, inactiveRoute, noDriverRoute, finalRoute].map((route) =>
        c.importRoute('dc-1', route),
      ),
    );
    await c.driverStart(token, startedRoute.id, at(10));
    await c.driverStart(token, finalRoute.id, at(10));
    await c.driverFinish(token, finalRoute.id, at(20));
  });

  describe('401 with 1001', () => {
    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s without a header',
      async (method, path, body) => {
        expectError(await c.request(method, path, { body }), 401, 1001);
      },
    );

    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s with an unknown token',
      async (method, path, body) => {
        expectError(await c.request(method, path, { key: 'no-such-login-token', body }), 401, 1001);
      },
    );

    it.each(driverPaths('err-started', 'err-started-wp-0'))(
      '%s %s with an API key',
      async (method, path, body) => {
        expectError(await c.request(method, path, { key: c.account.key, body }), 401, 1001);
      },
    );

    it('refuses the token without the Bearer scheme', async () => {
      expectError(await c.request('GET', '/driver/routes', { headers: { Authorization: token } }), 401, 1001);
      expectError(
        await c.request('GET', '/driver/routes', { headers: { Authorization: `Basic ${token}` } }),
        401,
        1001,
      );
    });

    it('never lets a second driver share a token (same DC, or another account): the first keeps it', async () => {
      const createTwin = (dcId: string, driverId: string, loginToken: string, key = c.account.key) =>
        c.request('POST', `/dcs/${dcId}/drivers`, {
          key,
          body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: loginToken },
        });
      await c.createDriver('dc-1', 'twin-a', strongToken('twin-shared-token-1'));
      expectError(await createTwin('dc-1', 'twin-b', strongToken('twin-shared-token-1')), 400, 2002);
      expect(await c.driverRoutes(strongToken('twin-shared-token-1'))).toEqual([]);
      await c.driverLocation(strongToken('twin-shared-token-1'), at(1), { latitude: 1, longitude: 1 });
      expect(await c.readLocation('dc-1', 'twin-a')).toMatchObject({ timestamp: at(1) });
      expectError(await c.asAccount('GET', '/dcs/dc-1/drivers/twin-b'), 404, 1003);

      await c.createDriver('dc-1', 'twin-c', strongToken('twin-shared-token-2'));
      expectError(
        await createTwin('dc-1', 'twin-c', strongToken('twin-shared-token-2'), globex.key),
        400,
        2002,
      );
      expect(await c.driverRoutes(strongToken('twin-shared-token-2'))).toEqual([]);
    });

    it('refuses a login token on the public API', async () => {
      expectError(await c.request('GET', '/dcs/dc-1/drivers', { key: token }), 401, 1001);
      expectError(await c.request('GET', `/dcs/dc-1/routes/${startedRoute.id}`, { key: token }), 401, 1001);
      expectError(
        await c.request('PATCH', `/dcs/dc-1/routes/${activeRoute.id}/start`, { key: token }),
        401,
        1001,
      );
      expect((await c.readRoute('dc-1', activeRoute.id)).started_timestamp).toBeNull();
    });

    it('refuses the token of a deleted driver on the very next request', async () => {
      const gone = await c.createDriver('dc-1', 'soon-gone', strongToken('soon-gone-login-token'));
      expect(await c.driverRoutes(gone)).toEqual([]);
      expect(
        expectSuccess(await c.asAccount('DELETE', '/dcs/dc-1/drivers/soon-gone'), drivers.deleteDriver),
      ).toEqual({});
      expectError(await c.asDriver(gone, 'GET', '/driver/routes'), 401, 1001);
      expectError(
        await c.asDriver(gone, 'POST', '/driver/location', {
          timestamp: at(1),
          location: { latitude: 1, longitude: 1 },
        }),
        401,
        1001,
      );
    });
    it('refuses a deleted driver’s pings at once though the ping path caches token lookups', async () => {
      const traceOf = async (driverId: string) =>
        (await c.traceOf('dc-1', driverId)).map((item) => item.timestamp);
      const ping = (loginToken: string, timestamp: number) =>
        c.asDriver(loginToken, 'POST', '/driver/location', {
          timestamp,
          location: { latitude: 41.5, longitude: -87.5 },
        });
      await c.createDriver('dc-1', 'pinger', strongToken('pinger-token-first'));
      await c.driverLocation(strongToken('pinger-token-first'), at(1), { latitude: 41.5, longitude: -87.5 });
      expectSuccess(await c.asAccount('DELETE', '/dcs/dc-1/drivers/pinger'), drivers.deleteDriver);
      expectError(await ping(strongToken('pinger-token-first'), at(2)), 401, 1001);
      expect(await traceOf('pinger')).toEqual([at(1)]);

      // The same driver id again with another token: the old token names the id, but not this driver.
      await c.createDriver('dc-1', 'pinger', strongToken('pinger-token-second'));
      expectError(await ping(strongToken('pinger-token-first'), at(3)), 401, 1001);
      await c.driverLocation(strongToken('pinger-token-second'), at(4), { latitude: 41.5, longitude: -87.5 });
      expect(await c.readLocation('dc-1', 'pinger')).toEqual({
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
      expect(expectError(await c.asDriver(token, method, path, body), 404, 3003)).toContain('no-such-route');
    });

    it('answers 3003 for a route of the DC assigned to no driver', async () => {
      const routeId = noDriverRoute.id;
      expectError(
        await c.asDriver(token, 'POST', `/driver/routes/${routeId}/start`, { timestamp: at(5) }),
        404,
        3003,
      );
      expectError(
        await c.asDriver(token, 'POST', `/driver/routes/${routeId}/finish`, { timestamp: at(5) }),
        404,
        3003,
      );
      expect((await c.readRoute('dc-1', routeId)).version).toBe(1);
    });
  });

  describe('400 with 3011', () => {
    it('refuses to start an inactive route', async () => {
      const response = await c.asDriver(token, 'POST', `/driver/routes/${inactiveRoute.id}/start`, {
        timestamp: at(30),
      });
      expectError(response, 400, 3011);
      expectError(await c.asAccount('PATCH', `/dcs/dc-1/routes/${inactiveRoute.id}/start`), 400, 3011);
      expect(await c.readRoute('dc-1', inactiveRoute.id)).toMatchObject({
        version: 1,
        started_timestamp: null,
      });
    });

    it('refuses to start a route twice, as the driver and by API key', async () => {
      const response = await c.asDriver(token, 'POST', `/driver/routes/${startedRoute.id}/start`, {
        timestamp: at(31),
      });
      expectError(response, 400, 3011);
      expectError(
        await c.asAccount('PUT', `/dcs/dc-1/routes/${startedRoute.id}/start`, { timestamp: at(31) }),
        400,
        3011,
      );
      expect(await c.readRoute('dc-1', startedRoute.id)).toMatchObject({
        version: 2,
        started_timestamp: at(10),
      });
      expect((await c.eventTypes(startedRoute.id)).filter((type) => type === 'ROUTE_STARTED')).toHaveLength(
        1,
      );
    });

    it('refuses to start a route without a driver', async () => {
      expectError(await c.asAccount('PATCH', `/dcs/dc-1/routes/${noDriverRoute.id}/start`), 400, 3011);
      expectError(
        await c.asAccount('PUT', `/dcs/dc-1/routes/${noDriverRoute.id}/start`, { timestamp: at(1) }),
        400,
        3011,
      );
      expect((await c.readRoute('dc-1', noDriverRoute.id)).started_timestamp).toBeNull();
    });

    it('refuses an attempt on a route that has not started', async () => {
      const waypointId = nth(activeRoute.waypoints, 0).id;
      const response = await c.asDriver(token, 'POST', attemptPath(activeRoute.id, waypointId), {
        id: 'early-visit',
        timestamp: at(30),
        status: 'SUCCESSFUL',
      });
      expectError(response, 400, 3011);
      expect((await c.readWaypoint('dc-1', activeRoute.id, waypointId)).attempts).toEqual([]);
    });
  });

  describe('400 with 3012 on a finished route', () => {
    const path = `/driver/routes/${finalRoute.id}`;
    const driverRefusals: [string, string, string, unknown][] = [
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
    ];
    const keyRefusals: [string, string][] = [
      ['PATCH', 'activate'],
      ['PUT', 'activate'],
      ['PATCH', 'start'],
      ['PUT', 'finish'],
    ];

    it.each(driverRefusals)('refuses %s from the driver', async (_, method, route, body) => {
      expectError(await c.asDriver(token, method, route, body), 400, 3012);
    });

    it.each(keyRefusals)('refuses %s …/%s by API key', async (method, action) => {
      expectError(await c.asAccount(method, `/dcs/dc-1/routes/${finalRoute.id}/${action}`), 400, 3012);
    });

    it('changes nothing on the finished route when refusing them', async () => {
      for (const [, method, route, body] of driverRefusals)
        expectError(await c.asDriver(token, method, route, body), 400, 3012);
      for (const [method, action] of keyRefusals)
        expectError(await c.asAccount(method, `/dcs/dc-1/routes/${finalRoute.id}/${action}`), 400, 3012);
      expect(await c.readRoute('dc-1', finalRoute.id)).toMatchObject({
        version: 3,
        is_finalized: true,
        started_timestamp: at(10),
        finalized_timestamp: at(20),
      });
      expect((await c.readWaypoints('dc-1', finalRoute.id)).flatMap((waypoint) => waypoint.attempts)).toEqual(
        [],
      );
      expect(await c.readAccounting('dc-1', finalRoute.id)).toEqual([]);
      expect((await c.eventTypes(finalRoute.id)).filter((type) => type !== 'ROUTE_ETAS_CHANGED')).toEqual([
        'ROUTE_CREATED',
        'ROUTE_STARTED',
        'ROUTE_FINISHED',
      ]);
    });
  });

  describe('400 with 3013', () => {
    const otherWaypointItem = nth(nth(nth(startedRoute.waypoints, 1).invoices, 0).items, 0).id;

    const refusals: [string, string, object][] = [
      ['an unknown waypoint', 'no-such-waypoint', {}],
      ['a waypoint of another route', nth(activeRoute.waypoints, 0).id, {}],
      ['an unknown item', wp0.id, { items: [{ id: 'no-such-item', status: 'SUCCESSFUL' }] }],
      ['an item of another waypoint', wp0.id, { items: [{ id: otherWaypointItem, status: 'SUCCESSFUL' }] }],
    ];
    const send = (what: string, waypointId: string, extra: object) =>
      c.asDriver(token, 'POST', attemptPath(startedRoute.id, waypointId), {
        id: `bad-${what.replaceAll(' ', '-')}`,
        timestamp: at(40),
        status: 'SUCCESSFUL',
        ...extra,
      });

    it.each(refusals)('refuses an attempt naming %s', async (what, waypointId, extra) => {
      expectError(await send(what, waypointId, extra), 400, 3013);
    });

    it('writes no attempt and no event for them', async () => {
      for (const refusal of refusals) expectError(await send(...refusal), 400, 3013);
      const waypoints = await c.readWaypoints('dc-1', startedRoute.id);
      expect(waypoints.map((waypoint) => [waypoint.status, waypoint.attempts])).toEqual([
        ['PENDING', []],
        ['PENDING', []],
      ]);
      expect(await c.eventTypes(startedRoute.id)).not.toContain('WAYPOINT_STATUS_CHANGED');
    });
  });

  describe('400 with 3014', () => {
    const record = { id: 'cash-err-1', cash_received_cents: 700, cash_container_id: 'box-9' };
    const recordOnce = once(async () => {
      const response = await c.asDriver(
        token,
        'POST',
        `/driver/routes/${startedRoute.id}/accounting`,
        record,
      );
      expectSuccess(response, driverApp.addDriverAccountingRecord);
    });

    it('takes a record, and the same record again', async () => {
      for (let i = 0; i < 2; i++) {
        const response = await c.asDriver(
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
      await recordOnce();
      const response = await c.asDriver(token, 'POST', `/driver/routes/${startedRoute.id}/accounting`, {
        ...record,
        ...change,
      });
      expect(expectError(response, 400, 3014)).toContain(record.id);
    });

    it('refuses the id on another route of the account, even with the same content', async () => {
      await recordOnce();
      const response = await c.asDriver(token, 'POST', `/driver/routes/${activeRoute.id}/accounting`, record);
      expectError(response, 400, 3014);
      expect(await c.readAccounting('dc-1', activeRoute.id)).toEqual([]);
      expect(await c.readAccounting('dc-1', startedRoute.id)).toEqual([{ ...record, driver_id: driverId }]);
    });
  });

  describe('400 with 1006', () => {
    /** Driver requests refused with 1006, each naming a field; made when sent (the future moves). */
    const refusals: [string, string, () => [string, unknown]][] = [
      [
        'a FAILED attempt without a reason',
        'reason',
        () => [
          attemptPath(startedRoute.id, wp0.id),
          { id: 'no-reason', timestamp: at(41), status: 'FAILED' },
        ],
      ],
      [
        'an unknown attempt status',
        'status',
        () => [
          attemptPath(startedRoute.id, wp0.id),
          { id: 'bad-status', timestamp: at(41), status: 'DELIVERED' },
        ],
      ],
      [
        'an attempt more than 5 minutes in the future',
        'timestamp',
        () => [
          attemptPath(startedRoute.id, wp0.id),
          { id: 'future-visit', timestamp: future(), status: 'SUCCESSFUL' },
        ],
      ],
      [
        'a start more than 5 minutes in the future',
        'timestamp',
        () => [`/driver/routes/${activeRoute.id}/start`, { timestamp: future() }],
      ],
      [
        'a finish more than 5 minutes in the future',
        'timestamp',
        () => [`/driver/routes/${startedRoute.id}/finish`, { timestamp: future() }],
      ],
      [
        'a location more than 5 minutes in the future',
        'timestamp',
        () => ['/driver/location', { timestamp: future(), location: { latitude: 1, longitude: 1 } }],
      ],
    ];
    const keyRefusals = () =>
      [
        ['PATCH', `/dcs/dc-1/routes/${activeRoute.id}/start`],
        ['PUT', `/dcs/dc-1/routes/${startedRoute.id}/finish`],
      ].map(([method, path]) => c.asAccount(method as string, path as string, { timestamp: future() }));

    it.each(refusals)('refuses %s', async (_, field, make) => {
      const [path, body] = make();
      expect(expectError(await c.asDriver(token, 'POST', path, body), 400, 1006)).toContain(field);
    });

    it('refuses a future timestamp on the API key’s start and finish', async () => {
      for (const response of await Promise.all(keyRefusals())) expectError(response, 400, 1006);
    });

    it('changes nothing when refusing them: no attempt, no location, the routes as they were', async () => {
      for (const [, , make] of refusals) expectError(await c.asDriver(token, 'POST', ...make()), 400, 1006);
      for (const response of await Promise.all(keyRefusals())) expectError(response, 400, 1006);
      expect(
        (await c.readWaypoints('dc-1', startedRoute.id)).flatMap((waypoint) => waypoint.attempts),
      ).toEqual([]);
      expect(await c.readLocation('dc-1', driverId)).toBeNull();
      expect(await c.readRoute('dc-1', activeRoute.id)).toMatchObject({
        version: 1,
        started_timestamp: null,
      });
      expect(await c.readRoute('dc-1', startedRoute.id)).toMatchObject({ version: 2, is_finalized: false });
    });

    it('takes a timestamp within the 5 minutes of allowed clock skew', async () => {
      // A driver of its own: the refusals above leave the error driver without a location.
      const skewToken = await c.createDriver('dc-1', 'skew-driver', strongToken('skew-driver-login-token'));
      const skewed = Date.now() + 3 * MINUTE;
      await c.driverLocation(skewToken, skewed, { latitude: 3, longitude: 4 });
      expect(await c.readLocation('dc-1', 'skew-driver')).toEqual({
        timestamp: skewed,
        location: { latitude: 3, longitude: 4 },
      });
    });
  });
});
