import { randomBytes } from 'node:crypto';
import { getUsageKey, insertDc, listDcs, setDcEtaSpeed } from '../data/accounts';
import { createApiKey, deleteApiKey, findApiKeyByHash, insertAccountWithKey } from '../data/api-keys';
import { Id } from '../models/common';
import type { AccountCaller } from '../shared/auth-context';
import { randomId, randomSecret, SECRET_PREFIX, sha256Hex } from '../shared/crypto';
import { quote } from '../shared/quote';

export interface NewDc {
  dcId: string;
  timeZone: string;
  name?: string;
}

export interface IssuedApiKey {
  accountId: string;
  keyId: string;
  /** Shown once; only its hash is stored. */
  apiKey: string;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function checkDcs(dcs: readonly NewDc[]): void {
  const seen = new Set<string>();
  for (const dc of dcs) {
    const checked = Id.safeParse(dc.dcId);
    if (!checked.success)
      throw new Error(`invalid DC id ${quote(dc.dcId)}: ${checked.error.issues[0]?.message ?? 'not an id'}`);
    if (!isValidTimeZone(dc.timeZone))
      throw new Error(`unknown IANA time zone '${dc.timeZone}' for DC '${dc.dcId}'`);
    if (seen.has(dc.dcId)) throw new Error(`DC '${dc.dcId}' is listed twice`);
    seen.add(dc.dcId);
  }
}

/**
 * A new value for an account's API Gateway API key: 40 hex characters (API Gateway takes 20..128
 * alphanumeric characters), unguessable, though it is no credential (API Gateway reads usage keys from the
 * authorizer only, never from a request).
 */
export function newUsageKey(): string {
  return randomBytes(20).toString('hex');
}

function newApiKey(accountId: string, now: number) {
  const apiKey = randomSecret(SECRET_PREFIX.apiKey);
  const record = { accountId, keyId: randomId('key_'), keyHash: sha256Hex(apiKey), createdAt: now };
  return { record, issued: { accountId, keyId: record.keyId, apiKey } };
}

/**
 * Creates an account, its DCs and its first API key in one transaction, with the value of its usage key;
 * the operator then registers that key with API Gateway (registerUsageKey in functions/domain/usage-keys.ts,
 * which createAccountWithUsageKey does), or the account's requests are refused (403, 1009).
 */
export async function createAccount(input: {
  name: string;
  dcs: NewDc[];
  apiKey?: string;
}): Promise<IssuedApiKey & { dcIds: string[] }> {
  checkDcs(input.dcs);
  const now = Date.now();
  const accountId = randomId('acc_');
  const { record, issued } = newApiKey(accountId, now);
  if (input.apiKey) {
    record.keyHash = sha256Hex(input.apiKey);
    issued.apiKey = input.apiKey;
  }
  await insertAccountWithKey(
    { accountId, name: input.name, createdAt: now, usageKey: newUsageKey() },
    input.dcs.map((dc) => ({ accountId, dcId: dc.dcId, timeZone: dc.timeZone, name: dc.name ?? dc.dcId })),
    record,
  );
  return { ...issued, dcIds: input.dcs.map((dc) => dc.dcId) };
}

export async function addDc(accountId: string, dc: NewDc): Promise<void> {
  checkDcs([dc]);
  const outcome = await insertDc({
    accountId,
    dcId: dc.dcId,
    timeZone: dc.timeZone,
    name: dc.name ?? dc.dcId,
  });
  if (outcome !== 'created')
    throw new Error(`account '${accountId}' does not exist or already has DC '${dc.dcId}'`);
}

/** Issues another key for an account (for rotation: create, switch clients over, revoke the old one). */
export async function issueApiKey(accountId: string, apiKey?: string): Promise<IssuedApiKey> {
  const { record, issued } = newApiKey(accountId, Date.now());
  if (apiKey) {
    record.keyHash = sha256Hex(apiKey);
    issued.apiKey = apiKey;
  }
  if ((await createApiKey(record)) !== 'created')
    throw new Error(`account '${accountId}' does not exist or the key is already registered`);
  return issued;
}

export async function revokeApiKey(accountId: string, keyId: string): Promise<void> {
  if (!(await deleteApiKey(accountId, keyId)))
    throw new Error(`account '${accountId}' has no API key '${keyId}'`);
}

/**
 * The caller behind an API key, with its account's usage key (API Gateway's usage identifier; undefined
 * for an account that has none yet), or undefined when the key is unknown or revoked.
 */
export async function authenticateApiKey(
  apiKey: string,
): Promise<{ caller: AccountCaller; usageKey: string | undefined } | undefined> {
  const key = await findApiKeyByHash(sha256Hex(apiKey));
  if (!key) return undefined;
  const [dcs, usageKey] = await Promise.all([listDcs(key.accountId), getUsageKey(key.accountId)]);
  return {
    caller: { kind: 'apiKey', accountId: key.accountId, dcIds: dcs.map((dc) => dc.dcId) },
    usageKey,
  };
}

/** Sets the average driving speed a DC's ETAs use (docs/api.md §3); 1..200 km/h. */
export async function setEtaSpeed(accountId: string, dcId: string, kmh: number): Promise<void> {
  if (!Number.isFinite(kmh) || kmh < 1 || kmh > 200)
    throw new Error(`ETA speed must be 1..200 km/h, not '${kmh}'`);
  if (!(await setDcEtaSpeed(accountId, dcId, kmh)))
    throw new Error(`account '${accountId}' has no DC '${dcId}'`);
}
