import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAccount } from '../functions/data/accounts';
import { findApiKeyByHash } from '../functions/data/api-keys';
import { createAccount, issueApiKey, revokeApiKey } from '../functions/domain/accounts';
import { createDriver, requireDriver } from '../functions/domain/drivers';
import { sha256Hex } from '../functions/shared/crypto';
import { NotFoundError } from '../functions/shared/errors';

export const DEMO = {
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
}

/**
 * Makes sure the demo account (DC dc-1, one driver) exists and returns a working API key for it.
 * Only key hashes are stored, so unless LOCAL_DEMO_API_KEY fixes the key, each start issues a fresh
 * key and revokes the previous start's one (remembered by id in <state dir>/demo.json).
 */
export async function seedDemoAccount(
  stateDir: string,
  fixedApiKey: string | undefined,
): Promise<DemoAccount> {
  const statePath = join(stateDir, 'demo.json');
  const previous = existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, 'utf8')) as { account_id: string; key_id?: string })
    : undefined;

  let accountId: string;
  let apiKey: string;
  let keyId: string | undefined;
  if (previous && (await getAccount(previous.account_id))) {
    accountId = previous.account_id;
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
    const created = await createAccount({
      name: 'Demo account',
      dcs: [{ dcId: DEMO.dcId, timeZone: DEMO.timeZone, name: DEMO.dcName }],
      apiKey: fixedApiKey,
    });
    ({ accountId, apiKey, keyId } = created);
  }

  const driverRef = { accountId, dcId: DEMO.dcId, driverId: DEMO.driverId };
  try {
    await requireDriver(driverRef);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await createDriver(driverRef, { name: DEMO.driverName });
  }
  writeFileSync(statePath, JSON.stringify({ account_id: accountId, key_id: keyId }, null, 2));
  return { accountId, apiKey, dcId: DEMO.dcId, driverId: DEMO.driverId };
}
