import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Applied } from '../models/delivery-requirements';
import { db, isConditionFailure, queryPrefixItems, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { conditionHeld, getItem, getRecord, putRecordItem } from './item-ops';
import type { TableKey } from './table-schema';

export interface Account {
  accountId: string;
  name: string;
  createdAt: number;
  /**
   * The value of the account's API Gateway API key, which the API key authorizer returns as the usage
   * identifier (functions/domain/usage-keys.ts). Not a credential: API Gateway takes usage keys from the
   * authorizer only. Absent on accounts made before usage plans (register-usage-key sets it).
   */
  usageKey?: string;
}

export interface Dc {
  accountId: string;
  dcId: string;
  name: string;
  /** IANA zone; analytics dates and `find_by_date` are local to it. */
  timeZone: string;
  /** Average driving speed for ETAs (docs/api.md §3); the default speed when absent. */
  etaSpeedKmh?: number;
  /** Arrival detection and approach settings (domain/dc-settings.ts); each its default when absent. */
  arrivalRadiusMeters?: number;
  arrivalDwellSeconds?: number;
  departureMarginMeters?: number;
  approachingMinutes?: number;
  /** Whether arrivals and departures are detected from the pings; on when absent. */
  arrivalDetection?: boolean;
  /** Default delivery rules of its routes' stops (models/delivery-requirements.ts); none when absent. */
  deliveryRequirements?: Applied;
}

/** The settings a DC's API key may change (PATCH /dcs/{dc_id}/settings). */
export type DcSettingFields = Pick<
  Dc,
  | 'arrivalDetection'
  | 'arrivalRadiusMeters'
  | 'arrivalDwellSeconds'
  | 'departureMarginMeters'
  | 'approachingMinutes'
  | 'deliveryRequirements'
>;

/** An account and its DCs share one partition: DC ids are unique within their account only. */
const accountPartition = (accountId: string) => `ACCOUNT#${accountId}`;
const DC_PREFIX = 'DC#';

export const accountKeys = {
  account: (accountId: string): TableKey => ({ pk: accountPartition(accountId), sk: 'ACCOUNT' }),
  dc: (accountId: string, dcId: string): TableKey => ({
    pk: accountPartition(accountId),
    sk: `${DC_PREFIX}${dcId}`,
  }),
  partition: accountPartition,
};

const accountCodec = codec<Account>({ accountId: {}, name: {}, createdAt: {}, usageKey: {} });

const dcCodec = codec<Dc>({
  accountId: {},
  dcId: {},
  name: {},
  timeZone: {},
  etaSpeedKmh: {},
  arrivalRadiusMeters: {},
  arrivalDwellSeconds: {},
  departureMarginMeters: {},
  approachingMinutes: {},
  arrivalDetection: {},
  deliveryRequirements: {},
});

/** Transaction items that create an account and DCs; each refuses to overwrite an existing one. */
export const putAccountItem = (account: Account) =>
  putRecordItem({
    key: accountKeys.account(account.accountId),
    entity: 'ACCOUNT',
    codec: accountCodec,
    record: account,
    ifNew: true,
  });

export const putDcItem = (dc: Dc) =>
  putRecordItem({
    key: accountKeys.dc(dc.accountId, dc.dcId),
    entity: 'DC',
    codec: dcCodec,
    record: dc,
    ifNew: true,
  });

/** Adds a DC to an existing account: 'created', 'no_account', or 'dc_taken' when the account has its id. */
export async function insertDc(dc: Dc): Promise<'created' | 'no_account' | 'dc_taken'> {
  const outcome = await writeTransactionParts([
    { items: [accountExistsCheck(dc.accountId)], refusedAs: 'no_account' },
    { items: [putDcItem(dc)], refusedAs: 'dc_taken' },
  ]);
  return outcome === 'written' ? 'created' : outcome;
}

/** Fails the transaction unless the account exists (adding a DC or key to a missing account). */
export function accountExistsCheck(accountId: string) {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: accountKeys.account(accountId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

export const getAccount = (accountId: string): Promise<Account | undefined> =>
  getRecord(accountKeys.account(accountId), accountCodec.fromItem);

/** The account's usage key (the authorizer's read: that one attribute), if it has one. */
export async function getUsageKey(accountId: string): Promise<string | undefined> {
  const item = await getItem(accountKeys.account(accountId), 'usage_key');
  return item?.usage_key;
}

/**
 * Gives an account without one the usage key `value`; returns the key the account has afterwards (its own
 * when it had one), or undefined when there is no such account.
 */
export async function setUsageKeyOnce(accountId: string, value: string): Promise<string | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKeys.account(accountId),
        UpdateExpression: 'SET usage_key = :value',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usage_key)',
        ExpressionAttributeValues: { ':value': value },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes && accountCodec.fromItem(Attributes).usageKey;
  } catch (error) {
    if (isConditionFailure(error)) return (await getAccount(accountId))?.usageKey;
    throw error;
  }
}

export const getDc = (accountId: string, dcId: string): Promise<Dc | undefined> =>
  getRecord(accountKeys.dc(accountId, dcId), dcCodec.fromItem);

export async function listDcs(accountId: string): Promise<Dc[]> {
  const { items } = await queryPrefixItems(accountPartition(accountId), DC_PREFIX);
  return items.map(dcCodec.fromItem);
}

/** Sets a DC's ETA speed; returns false when the DC does not exist. */
export async function setDcEtaSpeed(accountId: string, dcId: string, kmh: number): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKeys.dc(accountId, dcId),
        UpdateExpression: 'SET eta_speed_kmh = :kmh',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':kmh': kmh },
      }),
    ),
  );
}

/** Sets the DC's settings given (the others keep their values); returns the DC after, or undefined when it does not exist. */
export async function setDcSettings(
  accountId: string,
  dcId: string,
  settings: DcSettingFields,
): Promise<Dc | undefined> {
  const given = Object.entries(dcCodec.toItem(settings as Dc)).filter(([, value]) => value !== undefined);
  if (given.length === 0) return getDc(accountId, dcId);
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKeys.dc(accountId, dcId),
        UpdateExpression: `SET ${given.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(given.map(([name], index) => [`#f${index}`, name])),
        ExpressionAttributeValues: Object.fromEntries(given.map(([, value], index) => [`:v${index}`, value])),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes && dcCodec.fromItem(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
