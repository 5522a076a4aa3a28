import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAccount } from '../../functions/data/accounts';
import { findApiKeyByHash } from '../../functions/data/api-keys';
import { getImport } from '../../functions/data/imports';
import { getRouteHeader } from '../../functions/data/routes';
import { issueApiKey, revokeApiKey } from '../../functions/domain/accounts';
import { createDriver, requireDriver } from '../../functions/domain/drivers';
import { acceptImport } from '../../functions/domain/route-import';
import { createAccountWithUsageKey, registerUsageKey } from '../../functions/domain/usage-keys';
import { type ImportedRoute, ImportRoute } from '../../functions/models/import-model';
import { sha256Hex } from '../../functions/shared/crypto';
import { NotFoundError } from '../../functions/shared/errors';
import { writeStateFile } from '../state-files';

export const DEMO = {
  routeId: 'demo-route-1',
  dcId: 'dc-1',
  timeZone: 'America/Chicago',
  dcName: 'Demo DC',
  driverId: 'driver-1',
  driverName: 'Demo Driver',
};

export interface DemoAccount {
  accountId: string;
  apiKey: string;
  dcId: string;
  driverId: string;
  /** The demo driver's login token, for the driver app's paths. */
  driverToken: string;
  routeId: string;
}

/**
 * Makes sure the demo account (DC dc-1, one driver) exists, with its usage key in the API's usage plan
 * (registered again on every start: a no-op unless the key store was lost, as with --in-memory data of an
 * earlier run), and returns a working API key for it.
 * Only key hashes are stored, so unless LOCAL_DEMO_API_KEY fixes the key, each start issues a fresh
 * key and revokes the previous start's one (remembered by id in <state dir>/demo.json).
 */
export async function seedDemoAccount(
  stateDir: string,
  fixedApiKey: string | undefined,
): Promise<DemoAccount> {
  const statePath = join(stateDir, 'demo.json');
  const previous = existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, 'utf8')) as {
        account_id: string;
        key_id?: string;
        route_txid?: string;
      })
    : undefined;

  let accountId: string;
  let apiKey: string;
  let keyId: string | undefined;
  let routeTxid: string | undefined;
  if (previous && (await getAccount(previous.account_id))) {
    accountId = previous.account_id;
    await registerUsageKey(accountId);
    if (fixedApiKey && (await findApiKeyByHash(sha256Hex(fixedApiKey)))?.accountId === accountId) {
      apiKey = fixedApiKey;
      keyId = previous.key_id;
    } else {
      const issued = await issueApiKey(accountId, fixedApiKey);
      if (previous.key_id && !fixedApiKey)
        await revokeApiKey(accountId, previous.key_id).catch(() => undefined);
      ({ apiKey, keyId } = issued);
    }
  } else {
    const created = await createAccountWithUsageKey({
      name: 'Demo account',
      dcs: [{ dcId: DEMO.dcId, timeZone: DEMO.timeZone, name: DEMO.dcName }],
      apiKey: fixedApiKey,
    });
    ({ accountId, apiKey, keyId } = created);
  }

  const driverRef = { accountId, dcId: DEMO.dcId, driverId: DEMO.driverId };
  let driverToken: string;
  try {
    driverToken = (await requireDriver(driverRef)).loginToken;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    driverToken = (await createDriver(driverRef, { name: DEMO.driverName })).loginToken;
  }
  // The demo route is imported through the real pipeline (the pollers pick it up), unless it exists
  // or a previous start's import of it is still waiting in the queue.
  routeTxid = previous?.route_txid;
  const pending = routeTxid && (await getImport(accountId, routeTxid))?.status === 'PENDING';
  if (!pending && !(await getRouteHeader(accountId, DEMO.routeId))) {
    routeTxid = await acceptImport(accountId, DEMO.dcId, demoRoute());
  }
  writeStateFile(
    statePath,
    JSON.stringify({ account_id: accountId, key_id: keyId, route_txid: routeTxid }, null, 2),
  );
  return {
    accountId,
    apiKey,
    dcId: DEMO.dcId,
    driverId: DEMO.driverId,
    driverToken,
    routeId: DEMO.routeId,
  };
}

/** Tomorrow's demo route for driver-1: three stops in Chicago, one cash invoice each. */
function demoRoute(): ImportedRoute {
  const start = new Date();
  start.setUTCDate(start.getUTCDate() + 1);
  start.setUTCHours(14, 0, 0, 0);
  const startTime = start.getTime();
  const depot = {
    id: 'wh-1',
    name: 'Demo depot',
    address: '1 Dock St, Chicago',
    location: { latitude: 41.85, longitude: -87.65 },
  };
  return ImportRoute.parse({
    id: DEMO.routeId,
    name: 'Demo route',
    driver_id: DEMO.driverId,
    start_time: startTime,
    activate_after_successful_import: true,
    start_warehouse: depot,
    end_warehouse: depot,
    vehicle: { id: 'truck-1' },
    waypoints: [0, 1, 2].map((n) => ({
      id: `demo-wp-${n + 1}`,
      customer_id: `demo-customer-${n + 1}`,
      name: `Demo customer ${n + 1}`,
      address: `${100 + n} Main St, Chicago`,
      location: { latitude: 41.88 + n * 0.01, longitude: -87.63 - n * 0.01 },
      service_time_minutes: 10,
      time_windows: [{ start: startTime + (n + 1) * 1_800_000, end: startTime + (n + 3) * 1_800_000 }],
      invoices: [
        {
          id: `demo-inv-${n + 1}`,
          payment_method: 'CASH',
          invoice_name_attributes: [{ key: 'invoice_number', value: `D-${n + 1}` }],
          items: [
            {
              id: `demo-item-${n + 1}-1`,
              sku: 'COLA-24',
              name: 'Cola 24x0.33l',
              quantity: 2,
              display_unit_of_measure: 'CASE',
              total_price_cents: 3598,
              currency: 'USD',
            },
            {
              id: `demo-item-${n + 1}-2`,
              sku: 'WATER-12',
              name: 'Water 12x1l',
              quantity: 1,
              display_unit_of_measure: 'CASE',
              total_price_cents: 899,
              currency: 'USD',
            },
          ],
        },
      ],
    })),
  });
}
