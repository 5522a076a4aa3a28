import { beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { expectError, expectSuccess } from '../support/http';
import {
  CHANGE_ENDPOINTS,
  minimalRoute,
  SHARED,
  SPARE_DRIVER,
  START,
  useRoutesApi,
} from '../support/route-changes';
import { exampleRoute, importRoute } from '../support/routes';

const rt = useRoutesApi('route-changes');

/** The id of the route a table row seeds: the state, the method and the path. */
const seedId = (state: string, method: string, suffix: string) =>
  `${state}-${method.toLowerCase()}${suffix.replaceAll('/', '-')}`;

describe('a finished route', () => {
  it.each(CHANGE_ENDPOINTS)(
    '%s …%s answers 3012 and leaves the route as it is',
    async (method, suffix, body) => {
      const id = seedId('fin', method, suffix);
      const { path } = await rt.seedRoute(id, { finished: true });
      const before = await rt.readRoute('dc-1', id);
      expectError(await rt.asAcme(method, `${path}${suffix}`, body), 400, 3012);
      expect(await rt.readRoute('dc-1', id)).toEqual(before);
    },
  );
});

describe('a started route — started through the data layer', () => {
  const refused = CHANGE_ENDPOINTS.filter(
    ([, suffix]) => suffix !== '/activate' && suffix !== '/vehicle-assignment',
  );

  it.each(refused)(
    '%s …%s answers 3011 and leaves the route as it is, active for its driver',
    async (method, suffix, body) => {
      const id = seedId('started', method, suffix);
      const { driverId, path } = await rt.seedRoute(id, { started: START + 60_000 });
      const before = await rt.readRoute('dc-1', id);
      expect(before.started_timestamp).toBe(START + 60_000);
      expectError(await rt.asAcme(method, `${path}${suffix}`, body), 400, 3011);
      expect(await rt.readRoute('dc-1', id)).toEqual(before);
      expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([id]);
    },
  );
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/activate and /deactivate', (method) => {
  const id = `toggle-${method.toLowerCase()}`;
  const driverId = `toggle-driver-${method.toLowerCase()}`;

  beforeAll(async () => {
    await rt.createDriver('dc-1', driverId);
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', {
      ...exampleRoute(id, { driverId }),
      activate_after_successful_import: false,
    });
  });

  it('activates: bumps the version and the route shows among its driver’s active routes', async () => {
    expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([]);
    const route = await rt.change(method, `/dcs/dc-1/routes/${id}/activate`);
    expect(route).toMatchObject({ id, is_active: true, version: 2 });
    expect(await rt.readRoute('dc-1', id)).toEqual(route);
    expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([id]);
  });

  it('returns the route unchanged, same version, when it is already active', async () => {
    const before = await rt.readRoute('dc-1', id);
    expect(await rt.change(method, `/dcs/dc-1/routes/${id}/activate`)).toEqual(before);
  });

  it('deactivates: bumps the version and the route leaves its driver’s active routes', async () => {
    const before = await rt.readRoute('dc-1', id);
    const route = await rt.change(method, `/dcs/dc-1/routes/${id}/deactivate`);
    expect(route).toEqual({ ...before, is_active: false, version: before.version + 1 });
    expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([]);
  });

  it('returns the route unchanged, same version, when it is already inactive', async () => {
    const before = await rt.readRoute('dc-1', id);
    expect(await rt.change(method, `/dcs/dc-1/routes/${id}/deactivate`)).toEqual(before);
  });
});

describe('PATCH /dcs/{dc_id}/routes/{route_id}/activate and /deactivate', () => {
  it('activates a route without a driver; it joins the active routes of the driver assigned later', async () => {
    await rt.createDriver('dc-1', 'late-driver');
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', minimalRoute('act-no-driver'));
    expect(await rt.change('PATCH', '/dcs/dc-1/routes/act-no-driver/activate')).toMatchObject({
      is_active: true,
      assigned_driver_id: null,
      version: 2,
    });
    await rt.change('PATCH', '/dcs/dc-1/routes/act-no-driver/driver-assignment', {
      driver_id: 'late-driver',
    });
    expect(await rt.activeRouteIds('dc-1', 'late-driver')).toEqual(['act-no-driver']);
  });

  it('answers 3012 for a route finished by finish-routes, and finish-routes then finds nothing', async () => {
    const { driverId, path } = await rt.seedRoute('act-fin', { finished: true });
    const finished = await rt.readRoute('dc-1', 'act-fin');
    expect(finished).toMatchObject({ is_finalized: true, is_active: false, version: 2 });
    expect(finished.finalized_timestamp).toEqual(expect.any(Number));
    expectError(await rt.asAcme('PATCH', `${path}/activate`), 400, 3012);
    expectError(await rt.asAcme('PUT', `${path}/activate`), 400, 3012);
    expect(await rt.finishRoutesOf('dc-1', driverId)).toEqual([]);
    expect(await rt.readRoute('dc-1', 'act-fin')).toEqual(finished);
  });

  it('leaves a started route as it is (already active) — started through the data layer', async () => {
    const { path } = await rt.seedRoute('act-started', { started: Date.now() });
    const before = await rt.readRoute('dc-1', 'act-started');
    expect(await rt.change('PATCH', `${path}/activate`)).toEqual(before);
  });

  it('answers 3012, not 3011, to deactivate a route that started and then finished', async () => {
    const { path } = await rt.seedRoute('deact-both', { started: Date.now(), finished: true });
    expectError(await rt.asAcme('PATCH', `${path}/deactivate`), 400, 3012);
  });
});

describe('DELETE /dcs/{dc_id}/drivers/{driver_id} with routes', () => {
  it('answers 2001 while the driver has an active route and deletes the driver once it is deactivated', async () => {
    const { driverId, path } = await rt.seedRoute('busy-1');
    expectError(await rt.asAcme('DELETE', `/dcs/dc-1/drivers/${driverId}`), 400, 2001);
    await rt.change('PATCH', `${path}/deactivate`);
    expectSuccess(await rt.asAcme('DELETE', `/dcs/dc-1/drivers/${driverId}`), drivers.deleteDriver);
  });

  it('deletes the driver once its active route is given to another driver', async () => {
    const { driverId, path } = await rt.seedRoute('handover-1');
    expectError(await rt.asAcme('DELETE', `/dcs/dc-1/drivers/${driverId}`), 400, 2001);
    await rt.change('PUT', `${path}/driver-assignment`, { driver_id: SPARE_DRIVER });
    expectSuccess(await rt.asAcme('DELETE', `/dcs/dc-1/drivers/${driverId}`), drivers.deleteDriver);
  });
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/driver-assignment', (method) => {
  const tag = method.toLowerCase();
  const assign = (id: string, driverId: string) =>
    rt.change(method, `/dcs/dc-1/routes/${id}/driver-assignment`, { driver_id: driverId });

  it('moves an active route from the old driver’s active routes to the new one’s and bumps the version', async () => {
    const { id, driverId: from } = await rt.seedRoute(`assign-${tag}`);
    const to = `assign-to-${tag}`;
    await rt.createDriver('dc-1', to);
    expect(await rt.activeRouteIds('dc-1', from)).toEqual([id]);
    const route = await assign(id, to);
    expect(route).toMatchObject({ assigned_driver_id: to, version: 2, is_active: true });
    expect(await rt.readRoute('dc-1', id)).toEqual(route);
    expect(await rt.activeRouteIds('dc-1', to)).toEqual([id]);
    expect(await rt.activeRouteIds('dc-1', from)).toEqual([]);
  });

  it('assigns a driver to an inactive route without adding it to the driver’s active routes', async () => {
    const [driverId, id] = [`assign-inactive-driver-${tag}`, `assign-inactive-${tag}`];
    await rt.createDriver('dc-1', driverId);
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', minimalRoute(id));
    expect(await assign(id, driverId)).toMatchObject({
      assigned_driver_id: driverId,
      is_active: false,
      version: 2,
    });
    expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([]);
  });

  it('returns the route unchanged, same version, when the driver is already assigned', async () => {
    const { id, driverId } = await rt.seedRoute(`assign-same-${tag}`);
    const before = await rt.readRoute('dc-1', id);
    expect(await assign(id, driverId)).toEqual(before);
  });

  it('answers 3010 for an unknown driver, a driver of another DC and a driver of another account', async () => {
    await rt.createDriver('dc-2', `other-dc-driver-${tag}`);
    await rt.createDriver('dc-1', `globex-driver-${tag}`, rt.accounts.globex.key);
    const path = `/dcs/dc-1/routes/${SHARED}/driver-assignment`;
    const before = await rt.readRoute('dc-1', SHARED);
    expect(expectError(await rt.asAcme(method, path, { driver_id: 'nobody' }), 400, 3010)).toContain(
      'nobody',
    );
    expectError(await rt.asAcme(method, path, { driver_id: `other-dc-driver-${tag}` }), 400, 3010);
    expectError(await rt.asAcme(method, path, { driver_id: `globex-driver-${tag}` }), 400, 3010);
    expect(await rt.readRoute('dc-1', SHARED)).toEqual(before);
  });

  it.each([
    ['a missing driver_id', {}, /driver_id/],
    ['an empty driver_id', { driver_id: '' }, /driver_id/],
    ['a driver_id with a slash', { driver_id: 'a/b' }, /driver_id/],
    ['a numeric driver_id', { driver_id: 7 }, /driver_id/],
  ])('rejects %s with 1006', async (_, body, message) => {
    const response = await rt.asAcme(method, `/dcs/dc-1/routes/${SHARED}/driver-assignment`, body);
    expect(expectError(response, 400, 1006)).toMatch(message);
  });

  it('rejects a missing body with 1006 and malformed JSON with 1005', async () => {
    const path = `/dcs/dc-1/routes/${SHARED}/driver-assignment`;
    expectError(await rt.asAcme(method, path), 400, 1006);
    expectError(
      await rt.request(method, path, { key: rt.accounts.acme.key, body: '{"driver_id":' }),
      400,
      1005,
    );
  });
});

describe('DELETE /dcs/{dc_id}/routes/{route_id}/driver-assignment', () => {
  it('removes the driver: version bumped, gone from the driver’s active routes, the route stays active', async () => {
    const { driverId, path } = await rt.seedRoute('unassign-1');
    const route = await rt.change('DELETE', `${path}/driver-assignment`);
    expect(route).toMatchObject({ assigned_driver_id: null, is_active: true, version: 2 });
    expect(await rt.readRoute('dc-1', 'unassign-1')).toEqual(route);
    expect(await rt.activeRouteIds('dc-1', driverId)).toEqual([]);
  });

  it('returns the route unchanged, same version, when it has no driver', async () => {
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', minimalRoute('unassign-none'));
    const before = await rt.readRoute('dc-1', 'unassign-none');
    expect(await rt.change('DELETE', '/dcs/dc-1/routes/unassign-none/driver-assignment')).toEqual(before);
  });
});

describe.each(['PATCH', 'PUT'])('%s /dcs/{dc_id}/routes/{route_id}/vehicle-assignment', (method) => {
  const tag = method.toLowerCase();
  const assign = (id: string, vehicleId: string) =>
    rt.change(method, `/dcs/dc-1/routes/${id}/vehicle-assignment`, { vehicle_id: vehicleId });

  it('sets the vehicle and bumps the version; the same vehicle again changes nothing', async () => {
    const id = `vehicle-${tag}`;
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', exampleRoute(id));
    const route = await assign(id, 'truck-9');
    expect(route).toMatchObject({ vehicle_id: 'truck-9', version: 2 });
    expect(await rt.readRoute('dc-1', id)).toEqual(route);
    expect(await assign(id, 'truck-9')).toEqual(route);
  });

  it('applies concurrent changes one after another: every one answers 200 with its own version', async () => {
    const id = `vehicle-race-${tag}`;
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', exampleRoute(id));
    const results = await Promise.all(['race-a', 'race-b', 'race-c', 'race-d'].map((v) => assign(id, v)));
    expect(results.map((route) => route.version).sort()).toEqual([2, 3, 4, 5]);
    expect(await rt.readRoute('dc-1', id)).toEqual(results.find((route) => route.version === 5));
  });

  it('changes the vehicle of a started route — started through the data layer', async () => {
    const { id } = await rt.seedRoute(`vehicle-started-${tag}`, { started: Date.now() });
    expect(await assign(id, 'spare')).toMatchObject({ vehicle_id: 'spare', version: 3 });
  });

  it.each([
    ['a missing vehicle_id', {}],
    ['an empty vehicle_id', { vehicle_id: '' }],
    ['a vehicle_id ending in a space', { vehicle_id: 'truck 9 ' }],
    ['a vehicle_id over 128 characters', { vehicle_id: 'v'.repeat(129) }],
  ])('rejects %s with 1006', async (_, body) => {
    const response = await rt.asAcme(method, `/dcs/dc-1/routes/${SHARED}/vehicle-assignment`, body);
    expect(expectError(response, 400, 1006)).toContain('vehicle_id');
  });
});
