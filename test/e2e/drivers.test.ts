import { beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { createTestAccount } from '../support/accounts';
import { REFUSED_DRIVER_BODIES, REFUSED_FINISH_BODIES } from '../support/drivers';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { readRoute, seedActiveRoute, seedDriverLocation } from '../support/seed';

const fx = useTestApi('drivers');
const { request } = fx;
let acme: TestAccount;
let globex: TestAccount;
const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);

async function createDriver(
  dcId: string,
  driverId: string,
  extra: Record<string, unknown> = {},
  key = acme.key,
) {
  const response = await request('POST', `/dcs/${dcId}/drivers`, {
    key,
    body: { driver_id: driverId, driver_name: `Driver ${driverId}`, ...extra },
  });
  return expectSuccess(response, drivers.createDriver) as {
    driver: { id: string; name: string; login_token: string };
  };
}

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2', timeZone: 'Europe/Berlin' }]);
  // Globex has a DC with the same id as one of Acme's: DC ids are per account.
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }, { dcId: 'gx-1' }]);
});

describe('POST /dcs/{dc_id}/drivers', () => {
  it('creates a driver and returns it as data.driver with a generated login token', async () => {
    const { driver } = await createDriver('dc-1', 'create-1');
    expect(driver).toEqual({
      id: 'create-1',
      name: 'Driver create-1',
      login_token: expect.stringMatching(/^drv_[\w-]{43}$/),
    });
    const read = await asAcme('GET', '/dcs/dc-1/drivers/create-1');
    expect(expectSuccess(read, drivers.getDriver)).toEqual({ driver });
  });

  it('keeps the login token the client sends', async () => {
    const { driver } = await createDriver('dc-1', 'create-2', {
      login_token: strongToken('client-chosen-token-123'),
    });
    expect(driver.login_token).toBe(strongToken('client-chosen-token-123'));
  });

  it('generates a different token for every driver', async () => {
    const first = await createDriver('dc-1', 'token-a');
    const second = await createDriver('dc-1', 'token-b');
    expect(first.driver.login_token).not.toBe(second.driver.login_token);
  });

  it('rejects a second driver with the same id in the DC with 2000 and leaves the first unchanged', async () => {
    await createDriver('dc-1', 'dup-1');
    const again = await asAcme('POST', '/dcs/dc-1/drivers', {
      driver_id: 'dup-1',
      driver_name: 'Someone else',
    });
    expect(expectError(again, 400, 2000)).toContain('dup-1');
    const read = await asAcme('GET', '/dcs/dc-1/drivers/dup-1');
    expect((expectSuccess(read, drivers.getDriver) as { driver: { name: string } }).driver.name).toBe(
      'Driver dup-1',
    );
  });

  it('allows the same driver id in another DC and in another account', async () => {
    await createDriver('dc-1', 'shared-id');
    await createDriver('dc-2', 'shared-id');
    await createDriver('dc-1', 'shared-id', {}, globex.key);
    const acmeCopy = await asAcme('GET', '/dcs/dc-1/drivers/shared-id');
    const globexCopy = await request('GET', '/dcs/dc-1/drivers/shared-id', { key: globex.key });
    expect(expectSuccess(acmeCopy, drivers.getDriver)).not.toEqual(
      expectSuccess(globexCopy, drivers.getDriver),
    );
  });

  it('accepts unicode ids and names and reads them back unchanged', async () => {
    // A space, "%" and "+" (which a path does not decode as a space), an accent, CJK and an emoji: the
    // gateway passes them on percent-encoded and the handler decodes them once.
    const id = 'fahrer 100%+ß-é-李-🚚';
    const name = 'Zoë Ødegård 李雷 🚚';
    await createDriver('dc-1', id, { driver_name: name });
    const read = await asAcme('GET', `/dcs/dc-1/drivers/${encodeURIComponent(id)}`);
    expect(expectSuccess(read, drivers.getDriver)).toMatchObject({ driver: { id, name } });
    const listed = await asAcme('GET', '/dcs/dc-1/drivers');
    expect(JSON.stringify(listed.body)).toContain(JSON.stringify(id));
    const deleted = await asAcme('DELETE', `/dcs/dc-1/drivers/${encodeURIComponent(id)}`);
    expect(deleted.status, deleted.text).toBe(200);
  });

  it('refuses a path id that is not valid percent-encoding with 1006 naming the parameter', async () => {
    for (const path of ['/dcs/dc-1/drivers/a%', '/dcs/dc-1/drivers/a%E6%9D', '/dcs/dc%ZZ/drivers']) {
      const response = await asAcme('GET', path);
      expect(expectError(response, 400, 1006), path).toMatch(/^path\.(driver_id|dc_id): /);
    }
  });

  it.each(REFUSED_DRIVER_BODIES)('rejects %s with 1006 naming the field', async (_, body, message) => {
    const response = await request('POST', '/dcs/dc-1/drivers', { key: acme.key, body });
    expect(expectError(response, 400, 1006)).toMatch(message);
  });

  it('rejects a missing body with 1006', async () => {
    const response = await request('POST', '/dcs/dc-1/drivers', { key: acme.key });
    expect(expectError(response, 400, 1006)).toMatch(/^request body: /);
  });

  it('rejects malformed JSON with 1005', async () => {
    const response = await request('POST', '/dcs/dc-1/drivers', {
      key: acme.key,
      body: '{"driver_id": "x",',
    });
    expectError(response, 400, 1005);
  });

  it.each([
    ['413 and 1004 for a body over 5 MB', 'big', 5.5, 413, 1004],
    [
      'API Gateway’s 500, as on AWS, for a body whose invocation event passes Lambda’s 6 MB',
      'bigger',
      6.5,
      500,
      1000,
    ],
  ])('answers %s, creating nothing', async (_, driverId, megabytes, status, code) => {
    const body = { driver_id: driverId, driver_name: 'x', padding: 'p'.repeat(megabytes * 1024 * 1024) };
    expectError(await request('POST', '/dcs/dc-1/drivers', { key: acme.key, body }), status, code);
    expectError(await asAcme('GET', `/dcs/dc-1/drivers/${driverId}`), 404, 1003);
  });

  it('rejects a body over API Gateway’s 10 MB with 413 and 1004', async () => {
    const response = await request('POST', '/dcs/dc-1/drivers', {
      key: acme.key,
      body: 'x'.repeat(11 * 1024 * 1024),
    });
    expectError(response, 413, 1004);
  });

  it('ignores unknown fields', async () => {
    const { driver } = await createDriver('dc-1', 'extra-fields', { colour: 'blue' });
    expect(driver).not.toHaveProperty('colour');
  });

  it('answers 403 with 1002 for a DC of another account and for a DC that does not exist', async () => {
    const body = { driver_id: 'x', driver_name: 'x' };
    expectError(await asAcme('POST', '/dcs/gx-1/drivers', body), 403, 1002);
    expectError(await asAcme('POST', '/dcs/no-such-dc/drivers', body), 403, 1002);
  });

  it('answers 401 with 1001 without a key and with an unknown key', async () => {
    const body = { driver_id: 'x', driver_name: 'x' };
    expectError(await request('POST', '/dcs/dc-1/drivers', { body }), 401, 1001);
    expectError(await request('POST', '/dcs/dc-1/drivers', { key: 'drs_unknown', body }), 401, 1001);
  });
});

describe('GET /dcs/{dc_id}/drivers', () => {
  beforeAll(async () => {
    for (const id of ['list-a', 'list-b', 'list-c', 'list-d', 'list-e']) await createDriver('dc-2', id);
    await createDriver('gx-1', 'globex-only', {}, globex.key);
  });

  it('lists the drivers of the DC and no others', async () => {
    const { drivers: listed } = expectSuccess(
      await asAcme('GET', '/dcs/dc-2/drivers'),
      drivers.listDrivers,
    ) as {
      drivers: { id: string }[];
    };
    const ids = listed.map((driver) => driver.id);
    expect(ids).toEqual(
      expect.arrayContaining(['list-a', 'list-b', 'list-c', 'list-d', 'list-e', 'shared-id']),
    );
    expect(ids).not.toContain('create-1'); // a dc-1 driver
    expect(ids).not.toContain('globex-only');
  });

  it('shows another account nothing of this account’s drivers in a DC with the same id', async () => {
    const globexList = expectSuccess(
      await request('GET', '/dcs/dc-1/drivers', { key: globex.key }),
      drivers.listDrivers,
    ) as {
      drivers: { id: string }[];
    };
    expect(globexList.drivers.map((driver) => driver.id)).toEqual(['shared-id']);
  });

  it('pages with limit and next_token, returning every driver exactly once', async () => {
    const all = (
      expectSuccess(await asAcme('GET', '/dcs/dc-2/drivers'), drivers.listDrivers) as {
        drivers: { id: string }[];
      }
    ).drivers;
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const query = new URLSearchParams({ limit: '2', ...(token ? { next_token: token } : {}) });
      const page = expectSuccess(await asAcme('GET', `/dcs/dc-2/drivers?${query}`), drivers.listDrivers) as {
        drivers: { id: string }[];
        next_token?: string;
      };
      expect(page.drivers.length).toBeLessThanOrEqual(2);
      seen.push(...page.drivers.map((driver) => driver.id));
      token = page.next_token;
      pages++;
    } while (token && pages < 10);
    expect(seen).toEqual(all.map((driver) => driver.id));
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['0', /^query.limit: /],
    ['1001', /^query.limit: /],
    ['abc', /^query.limit: /],
    ['1.5', /^query.limit: /],
  ])('rejects limit=%s with 1006', async (limit, message) => {
    expect(expectError(await asAcme('GET', `/dcs/dc-2/drivers?limit=${limit}`), 400, 1006)).toMatch(message);
  });

  it('rejects a next_token it did not issue, including one pointing into another DC', async () => {
    const forged = Buffer.from(JSON.stringify({ pk: 'DC#other/dc-1', sk: 'DRIVER#x' })).toString('base64url');
    expect(expectError(await asAcme('GET', `/dcs/dc-2/drivers?next_token=${forged}`), 400, 1006)).toMatch(
      /^query.next_token: /,
    );
    expectError(await asAcme('GET', '/dcs/dc-2/drivers?next_token=not-base64-json'), 400, 1006);
  });

  it('answers 403 for another account’s DC and 401 without a key', async () => {
    expectError(await asAcme('GET', '/dcs/gx-1/drivers'), 403, 1002);
    expectError(await request('GET', '/dcs/dc-2/drivers'), 401, 1001);
  });
});

describe('GET /dcs/{dc_id}/drivers/{driver_id}', () => {
  it('answers 404 with 1003 for an unknown driver and for a driver of another DC', async () => {
    expectError(await asAcme('GET', '/dcs/dc-1/drivers/nobody'), 404, 1003);
    expectError(await asAcme('GET', '/dcs/dc-1/drivers/list-a'), 404, 1003); // list-a is in dc-2
  });

  it('answers 403 for another account’s DC even when the driver exists there', async () => {
    expectError(await asAcme('GET', '/dcs/gx-1/drivers/globex-only'), 403, 1002);
  });

  it('answers 401 with a malformed Authorization header', async () => {
    const response = await request('GET', '/dcs/dc-1/drivers/create-1', {
      headers: { Authorization: `Basic ${acme.key}` },
    });
    expectError(response, 401, 1001);
  });
});

describe('PATCH /dcs/{dc_id}/drivers/{driver_id}', () => {
  it('renames the driver and returns it as data.driver; the token stays', async () => {
    const { driver } = await createDriver('dc-1', 'rename-1');
    const response = await asAcme('PATCH', '/dcs/dc-1/drivers/rename-1', { driver_name: 'New Name' });
    expect(expectSuccess(response, drivers.updateDriver)).toEqual({
      driver: { ...driver, name: 'New Name' },
    });
    expect(expectSuccess(await asAcme('GET', '/dcs/dc-1/drivers/rename-1'), drivers.getDriver)).toEqual({
      driver: { ...driver, name: 'New Name' },
    });
  });

  it('does not let the body change the id', async () => {
    const { driver } = await createDriver('dc-1', 'rename-2');
    const response = await asAcme('PATCH', '/dcs/dc-1/drivers/rename-2', {
      driver_name: 'Other',
      driver_id: 'hijack',
    });
    expect(expectSuccess(response, drivers.updateDriver)).toEqual({ driver: { ...driver, name: 'Other' } });
  });

  it('changes the login token when the body has one (test/e2e/driver-tokens.test.ts has the claims)', async () => {
    const { driver } = await createDriver('dc-1', 'rename-3');
    const response = await asAcme('PATCH', '/dcs/dc-1/drivers/rename-3', {
      login_token: strongToken('rename-3-new-login-token'),
    });
    expect(expectSuccess(response, drivers.updateDriver)).toEqual({
      driver: { ...driver, login_token: strongToken('rename-3-new-login-token') },
    });
    expect(
      expectError(
        await asAcme('PATCH', '/dcs/dc-1/drivers/rename-3', { login_token: 'too-short' }),
        400,
        1006,
      ),
    ).toMatch(/^login_token: /);
  });

  it('answers 404 for an unknown driver without creating it', async () => {
    expectError(await asAcme('PATCH', '/dcs/dc-1/drivers/ghost', { driver_name: 'x' }), 404, 1003);
    expectError(await asAcme('GET', '/dcs/dc-1/drivers/ghost'), 404, 1003);
  });

  it('rejects a missing, empty or oversized driver_name with 1006', async () => {
    expect(expectError(await asAcme('PATCH', '/dcs/dc-1/drivers/rename-1', {}), 400, 1006)).toMatch(
      /^driver_name: /,
    );
    expectError(await asAcme('PATCH', '/dcs/dc-1/drivers/rename-1', { driver_name: '' }), 400, 1006);
    expectError(
      await asAcme('PATCH', '/dcs/dc-1/drivers/rename-1', { driver_name: 'x'.repeat(201) }),
      400,
      1006,
    );
    expectError(
      await request('PATCH', '/dcs/dc-1/drivers/rename-1', { key: acme.key, body: '{' }),
      400,
      1005,
    );
  });

  it('answers 403 for another account’s DC and 401 without a key', async () => {
    expectError(await asAcme('PATCH', '/dcs/gx-1/drivers/globex-only', { driver_name: 'x' }), 403, 1002);
    expectError(
      await request('PATCH', '/dcs/dc-1/drivers/rename-1', { body: { driver_name: 'x' } }),
      401,
      1001,
    );
    const globexDriver = await request('GET', '/dcs/gx-1/drivers/globex-only', { key: globex.key });
    expect(globexDriver.body.data).toMatchObject({ driver: { name: 'Driver globex-only' } });
  });
});

describe('DELETE /dcs/{dc_id}/drivers/{driver_id}', () => {
  it('deletes the driver: data is empty, reads answer 404 and the list no longer has it', async () => {
    await createDriver('dc-1', 'delete-1');
    expect(expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/delete-1'), drivers.deleteDriver)).toEqual(
      {},
    );
    expectError(await asAcme('GET', '/dcs/dc-1/drivers/delete-1'), 404, 1003);
    const list = expectSuccess(await asAcme('GET', '/dcs/dc-1/drivers'), drivers.listDrivers) as {
      drivers: { id: string }[];
    };
    expect(list.drivers.map((driver) => driver.id)).not.toContain('delete-1');
  });

  it('lets the id be used again after deletion', async () => {
    await createDriver('dc-1', 'delete-2');
    await asAcme('DELETE', '/dcs/dc-1/drivers/delete-2');
    await createDriver('dc-1', 'delete-2');
  });

  it('answers 404 for an unknown or already deleted driver', async () => {
    expectError(await asAcme('DELETE', '/dcs/dc-1/drivers/delete-1'), 404, 1003);
  });

  it('refuses with 2001 while the driver has active routes', async () => {
    await createDriver('dc-1', 'busy-1');
    await seedActiveRoute(
      { accountId: acme.accountId, dcId: 'dc-1', driverId: 'busy-1' },
      'busy-route',
      1_700_000_000_000,
    );
    expectError(await asAcme('DELETE', '/dcs/dc-1/drivers/busy-1'), 400, 2001);
    expectSuccess(await asAcme('GET', '/dcs/dc-1/drivers/busy-1'), drivers.getDriver);
  });

  it('answers 403 for another account’s DC and leaves that driver alone; 401 without a key', async () => {
    expectError(await asAcme('DELETE', '/dcs/gx-1/drivers/globex-only'), 403, 1002);
    expectSuccess(
      await request('GET', '/dcs/gx-1/drivers/globex-only', { key: globex.key }),
      drivers.getDriver,
    );
    expectError(await request('DELETE', '/dcs/dc-1/drivers/create-1'), 401, 1001);
  });
});

describe('GET .../driver_bulk_info and .../location', () => {
  it('returns the driver and a null location until one is reported', async () => {
    const { driver } = await createDriver('dc-1', 'where-1');
    const bulk = await asAcme('GET', '/dcs/dc-1/drivers/where-1/driver_bulk_info');
    expect(expectSuccess(bulk, drivers.getDriverBulkInfo)).toEqual({ driver, driver_location: null });
    const location = await asAcme('GET', '/dcs/dc-1/drivers/where-1/location');
    expect(expectSuccess(location, drivers.getDriverLocation)).toEqual({ driver_location: null });
  });

  it('returns the latest location in the spec’s shape once there is one', async () => {
    const { driver } = await createDriver('dc-1', 'where-2');
    await seedDriverLocation(
      { accountId: acme.accountId, dcId: 'dc-1', driverId: 'where-2' },
      { timestamp: 1_700_000_123_456, latitude: 41.88, longitude: -87.63 },
    );
    const expected = { timestamp: 1_700_000_123_456, location: { latitude: 41.88, longitude: -87.63 } };
    const bulk = await asAcme('GET', '/dcs/dc-1/drivers/where-2/driver_bulk_info');
    expect(expectSuccess(bulk, drivers.getDriverBulkInfo)).toEqual({ driver, driver_location: expected });
    const location = await asAcme('GET', '/dcs/dc-1/drivers/where-2/location');
    expect(expectSuccess(location, drivers.getDriverLocation)).toEqual({ driver_location: expected });
  });
});

describe('GET .../active-routes', () => {
  it('is empty for a driver without routes', async () => {
    await createDriver('dc-1', 'idle-1');
    const response = await asAcme('GET', '/dcs/dc-1/drivers/idle-1/active-routes');
    expect(expectSuccess(response, drivers.getDriverActiveRoutes)).toEqual({ active_routes: [] });
  });

  it('lists the driver’s active routes by planned start time', async () => {
    await createDriver('dc-1', 'busy-2');
    const ref = { accountId: acme.accountId, dcId: 'dc-1', driverId: 'busy-2' };
    await seedActiveRoute(ref, 'late-route', 1_700_000_900_000);
    await seedActiveRoute(ref, 'early-route', 1_700_000_100_000);
    const response = await asAcme('GET', '/dcs/dc-1/drivers/busy-2/active-routes');
    expect(expectSuccess(response, drivers.getDriverActiveRoutes)).toEqual({
      active_routes: [
        { planned_start_time: 1_700_000_100_000, route_id: 'early-route' },
        { planned_start_time: 1_700_000_900_000, route_id: 'late-route' },
      ],
    });
  });
});

describe('PATCH and PUT .../finish-routes', () => {
  it.each(['PATCH', 'PUT'])('%s succeeds for a driver with no routes', async (method) => {
    await createDriver('dc-1', `finish-none-${method}`);
    const response = await asAcme(method, `/dcs/dc-1/drivers/finish-none-${method}/finish-routes`);
    expect(expectSuccess(response, drivers.finishDriverRoutes)).toEqual({ finalized_route_ids: [] });
  });

  it.each(['PATCH', 'PUT'])(
    '%s finalizes every active route of the driver, and only those',
    async (method) => {
      const driverId = `finisher-${method}`;
      await createDriver('dc-1', driverId);
      await createDriver('dc-1', `${driverId}-other`);
      const ref = { accountId: acme.accountId, dcId: 'dc-1', driverId };
      await seedActiveRoute(ref, `${method}-r1`, 1_700_000_000_000);
      await seedActiveRoute(ref, `${method}-r2`, 1_700_000_500_000);
      await seedActiveRoute({ ...ref, driverId: `${driverId}-other` }, `${method}-other`, 1_700_000_000_000);

      const response = await asAcme(method, `/dcs/dc-1/drivers/${driverId}/finish-routes`);
      const data = expectSuccess(response, drivers.finishDriverRoutes) as { finalized_route_ids: string[] };
      expect(data.finalized_route_ids.sort()).toEqual([`${method}-r1`, `${method}-r2`]);

      const active = await asAcme('GET', `/dcs/dc-1/drivers/${driverId}/active-routes`);
      expect(expectSuccess(active, drivers.getDriverActiveRoutes)).toEqual({ active_routes: [] });
      const route = await readRoute(acme.accountId, `${method}-r1`);
      expect(route).toMatchObject({
        is_finalized: true,
        is_active: false,
        version: 2,
        finalized_timestamp: expect.any(Number),
      });
      const other = await asAcme('GET', `/dcs/dc-1/drivers/${driverId}-other/active-routes`);
      expect(
        (expectSuccess(other, drivers.getDriverActiveRoutes) as { active_routes: unknown[] }).active_routes,
      ).toHaveLength(1);

      const again = await asAcme(method, `/dcs/dc-1/drivers/${driverId}/finish-routes`);
      expect(expectSuccess(again, drivers.finishDriverRoutes)).toEqual({ finalized_route_ids: [] });
    },
  );

  it.each(REFUSED_FINISH_BODIES)('refuses %s, finishing nothing', async (_, driverId, body, status, code) => {
    await createDriver('dc-1', driverId);
    const ref = { accountId: acme.accountId, dcId: 'dc-1', driverId };
    await seedActiveRoute(ref, `${driverId}-r1`, 1_700_000_000_000);
    const path = `/dcs/dc-1/drivers/${driverId}/finish-routes`;
    for (const method of ['PATCH', 'PUT']) {
      const message = expectError(await request(method, path, { key: acme.key, body }), status, code);
      if (code === 1006) expect(message).toBe('request body: this endpoint takes no body; send none, or {}');
    }
    expect(await readRoute(acme.accountId, `${driverId}-r1`)).toMatchObject({ is_finalized: false });
    // `{}` counts as no body.
    const finished = await request('PATCH', path, { key: acme.key, body: {} });
    expect(expectSuccess(finished, drivers.finishDriverRoutes)).toEqual({
      finalized_route_ids: [`${driverId}-r1`],
    });
  });
});

describe('the paths of one driver', () => {
  it.each([
    ['GET', 'driver_bulk_info', 'where-1'],
    ['GET', 'location', 'where-1'],
    ['GET', 'active-routes', 'idle-1'],
    ['PATCH', 'finish-routes', 'idle-1'],
    ['PUT', 'finish-routes', 'idle-1'],
  ])(
    '%s .../%s answers 404 for an unknown driver, 403 for a foreign DC and 401 without a key',
    async (method, suffix, known) => {
      expectError(await asAcme(method, `/dcs/dc-1/drivers/nobody/${suffix}`), 404, 1003);
      expectError(await asAcme(method, `/dcs/gx-1/drivers/globex-only/${suffix}`), 403, 1002);
      expectError(await request(method, `/dcs/dc-1/drivers/${known}/${suffix}`), 401, 1001);
    },
  );
});
