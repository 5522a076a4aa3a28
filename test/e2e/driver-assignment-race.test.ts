import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { db, tableName } from '../../functions/data/client';
import { driverKeys, ROUTES_PER_DELETION_TRANSACTION } from '../../functions/data/drivers';
import { getRouteHeader, headerItem } from '../../functions/data/routes';
import { backfillDriverRouteSets } from '../../functions/domain/drivers';
import { inParallel } from '../../functions/shared/parallel';
import type * as z from '../../functions/shared/zod';
import { createTestAccount } from '../support/accounts';
import { type ApiResponse, type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * Assigning a route to a driver and deleting that driver, at the same time, through the API: both writes
 * are conditional on the driver item, so they are ordered. Either the assignment wins (the deletion then
 * answers 2001 for an active route, or takes the inactive route back off the driver) or the deletion
 * wins (the assignment answers 3010). A route is never left assigned to a driver that no longer exists,
 * and a driver created again with the same id inherits nothing.
 */

type Route = z.infer<typeof routes.Route>;

let api: TestApi;
let acme: { accountId: string; key: string };

const TRIALS = 24;

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: acme.key, body });

async function createDriver(driverId: string, loginToken: string) {
  const response = await asAcme('POST', '/dcs/dc-1/drivers', {
    driver_id: driverId,
    driver_name: `Driver ${driverId}`,
    login_token: loginToken,
  });
  expectSuccess(response, drivers.createDriver);
}

async function readRoute(routeId: string): Promise<Route> {
  const response = await asAcme('GET', `/dcs/dc-1/routes/${routeId}`);
  return (expectSuccess(response, routes.getRoute) as { route: Route }).route;
}

async function activeRouteIds(driverId: string): Promise<string[]> {
  const response = await asAcme('GET', `/dcs/dc-1/drivers/${driverId}/active-routes`);
  const { active_routes } = expectSuccess(response, drivers.getDriverActiveRoutes) as {
    active_routes: { route_id: string }[];
  };
  return active_routes.map((route) => route.route_id);
}

beforeAll(async () => {
  api = await startTestApi('driver-assignment-race');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1', timeZone: 'America/Chicago' }]);
});

afterAll(() => api?.close());

describe('assigning a route to a driver while the driver is deleted', () => {
  it(`orders the two in each of ${TRIALS} trials: never a route assigned to a deleted driver`, async () => {
    // Even trials race on an active route (the deletion must then refuse), odd ones on an inactive route
    // (the deletion may win after the assignment, taking the route off the driver).
    const trials = Array.from({ length: TRIALS }, (_, i) => ({
      driverId: `race-driver-${i}`,
      routeId: `race-route-${i}`,
      active: i % 2 === 0,
      token: strongToken(`race-driver-login-token-${i}`),
    }));
    for (const trial of trials) {
      const route = { ...exampleRoute(trial.routeId), activate_after_successful_import: trial.active };
      await importRoute(api.url, acme.key, 'dc-1', route);
    }

    const outcomes: string[] = [];
    for (const [i, trial] of trials.entries()) {
      await createDriver(trial.driverId, trial.token);
      // The deletion starts up to 40 ms later in some trials, so both orders (and overlaps) occur.
      const stagger = (i % 3) * 20;
      const [assigned, deleted] = await Promise.all([
        asAcme('PUT', `/dcs/dc-1/routes/${trial.routeId}/driver-assignment`, { driver_id: trial.driverId }),
        new Promise((resolve) => setTimeout(resolve, stagger)).then(() =>
          asAcme('DELETE', `/dcs/dc-1/drivers/${trial.driverId}`),
        ),
      ]);
      const assignOk = outcome(assigned, 3010);
      const deleteOk = outcome(deleted, 2001);
      // One of them always succeeds; both only for an inactive route.
      expect(assignOk || deleteOk, `trial ${trial.routeId}: neither succeeded`).toBe(true);
      if (trial.active) expect(assignOk && deleteOk, `trial ${trial.routeId}: both succeeded`).toBe(false);

      const driverRead = await asAcme('GET', `/dcs/dc-1/drivers/${trial.driverId}`);
      expect([200, 404]).toContain(driverRead.status);
      const driverExists = driverRead.status === 200;
      expect(driverExists).toBe(!deleteOk);
      const route = await readRoute(trial.routeId);
      if (deleteOk) expect(route.assigned_driver_id ?? null, `trial ${trial.routeId}`).toBeNull();
      else expect(route.assigned_driver_id).toBe(trial.driverId);
      outcomes.push(assignOk && deleteOk ? 'both' : assignOk ? 'assigned' : 'deleted');
    }

    // A driver created again with a deleted driver's id (and token) starts with nothing.
    for (const trial of trials) {
      if ((await asAcme('GET', `/dcs/dc-1/drivers/${trial.driverId}`)).status !== 404) continue;
      await createDriver(trial.driverId, trial.token);
      expect(await activeRouteIds(trial.driverId)).toEqual([]);
      const driverRoutes = await request('GET', '/driver/routes', { key: trial.token });
      expect(driverRoutes.status, driverRoutes.text).toBe(200);
      expect(driverRoutes.body.data).toMatchObject({ routes: [] });
      expect((await readRoute(trial.routeId)).assigned_driver_id ?? null).toBeNull();
      expectSuccess(await asAcme('DELETE', `/dcs/dc-1/drivers/${trial.driverId}`), drivers.deleteDriver);
    }
    // Every kind of outcome is a valid one; which happened depends on timing, so only the tally is shown.
    expect(outcomes).toHaveLength(TRIALS);
    console.info('assignment/deletion race outcomes:', tally(outcomes));
  }, 300_000); // ~40 imports and ~150 requests: about 30 s alone, several times that on a shared machine

  it('takes an inactive route off the driver it deletes, so a new driver with that id does not get it', async () => {
    await importRoute(api.url, acme.key, 'dc-1', {
      ...exampleRoute('inactive-handover', { driverId: undefined }),
      activate_after_successful_import: false,
    });
    await createDriver('leaver', strongToken('leaver-login-token-0001'));
    const assigned = await asAcme('PUT', '/dcs/dc-1/routes/inactive-handover/driver-assignment', {
      driver_id: 'leaver',
    });
    expect(assigned.status, assigned.text).toBe(200);
    const before = await readRoute('inactive-handover');
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/leaver'), drivers.deleteDriver);
    const after = await readRoute('inactive-handover');
    expect(after.assigned_driver_id ?? null).toBeNull();
    expect(after.version).toBe(before.version + 1);

    await createDriver('leaver', strongToken('leaver-login-token-0002'));
    const activated = await asAcme('PATCH', '/dcs/dc-1/routes/inactive-handover/activate');
    expect(activated.status, activated.text).toBe(200);
    expect(await activeRouteIds('leaver')).toEqual([]);
  });

  it('deletes a driver holding more routes than one transaction rewrites, leaving every one without a driver', async () => {
    await createDriver('fleet', strongToken('fleet-login-token-00001'));
    await importRoute(api.url, acme.key, 'dc-1', {
      ...exampleRoute('fleet-0', { driverId: 'fleet' }),
      activate_after_successful_import: false,
    });
    // Copies of its header in the driver's assigned set: two batches to release, then the deletion's own.
    const header = await getRouteHeader(acme.accountId, 'fleet-0');
    if (!header) throw new Error('route fleet-0 was not imported');
    const count = 2 * ROUTES_PER_DELETION_TRANSACTION + 5;
    const copies = Array.from({ length: count }, (_, i) => `fleet-${i + 1}`);
    await inParallel(copies, 10, (routeId) =>
      db.send(new PutCommand({ TableName: tableName(), Item: headerItem({ ...header, routeId }) })),
    );
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: driverKeys.driver(acme.accountId, 'dc-1', 'fleet'),
        UpdateExpression: 'ADD assigned_route_ids :copies',
        ExpressionAttributeValues: { ':copies': new Set(copies) },
      }),
    );

    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/fleet'), drivers.deleteDriver);
    expectError(await asAcme('GET', '/dcs/dc-1/drivers/fleet'), 404, 1003);
    const held = await inParallel(['fleet-0', ...copies], 10, (routeId) =>
      getRouteHeader(acme.accountId, routeId),
    );
    // Every route is still there, without a driver.
    const drivenBy = held.map((route) => (route ? (route.assignedDriverId ?? null) : 'missing'));
    expect(drivenBy).toEqual(held.map(() => null));
  });

  it('refuses (2001) to delete a driver whose route was activated after its assignment', async () => {
    await importRoute(api.url, acme.key, 'dc-1', {
      ...exampleRoute('activated-later'),
      activate_after_successful_import: false,
    });
    await createDriver('stayer', strongToken('stayer-login-token-0001'));
    await asAcme('PUT', '/dcs/dc-1/routes/activated-later/driver-assignment', { driver_id: 'stayer' });
    await asAcme('PATCH', '/dcs/dc-1/routes/activated-later/activate');
    expectError(await asAcme('DELETE', '/dcs/dc-1/drivers/stayer'), 400, 2001);
    expect((await readRoute('activated-later')).assigned_driver_id).toBe('stayer');
  });
});

describe('the backfill of drivers’ route sets (routes assigned before drivers kept them)', () => {
  it('puts such a route into its driver’s set, so deleting the driver unassigns it; a ghost driver’s route is unassigned', async () => {
    await createDriver('old-timer', strongToken('old-timer-login-token-01'));
    await seedLegacyRoute('legacy-assigned', 'old-timer');
    await seedLegacyRoute('legacy-ghost', 'no-such-driver');
    const counts = await backfillDriverRouteSets();
    expect(counts.added).toBeGreaterThanOrEqual(1);
    expect(counts.unassigned).toBe(1);
    expect((await readRoute('legacy-ghost')).assigned_driver_id ?? null).toBeNull();
    // Running it again changes nothing more.
    expect((await backfillDriverRouteSets()).unassigned).toBe(0);

    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/drivers/old-timer'), drivers.deleteDriver);
    expect((await readRoute('legacy-assigned')).assigned_driver_id ?? null).toBeNull();
  });
});

/** A route header written as before drivers kept route sets: it names the driver, the driver's set lacks it. */
async function seedLegacyRoute(routeId: string, driverId: string) {
  await importRoute(api.url, acme.key, 'dc-1', {
    ...exampleRoute(routeId),
    activate_after_successful_import: false,
  });
  const header = await getRouteHeader(acme.accountId, routeId);
  if (!header) throw new Error(`route ${routeId} was not imported`);
  const item = headerItem({ ...header, assignedDriverId: driverId });
  await db.send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** True for a 200; false for the refusal with `code` the race allows; anything else fails the test. */
function outcome(response: ApiResponse, code: number): boolean {
  if (response.status === 200) return true;
  expectError(response, 400, code);
  return false;
}

function tally(outcomes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}
