import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Account,
  accountExistsCheck,
  accountKeys,
  type Dc,
  putAccountItem,
  putDcItem,
} from './accounts';
import { db, tableName, writeTransaction, writeTransactionParts } from './client';
import { codec } from './codec';
import type { TableKey } from './table-schema';

export interface ApiKeyRecord {
  accountId: string;
  keyId: string;
  /** SHA-256 of the key; the key itself is shown once at creation and never stored. */
  keyHash: string;
  createdAt: number;
}

export const apiKeyKeys = {
  /** The authorizer's lookup: by hash alone. */
  byHash: (keyHash: string): TableKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** The account's own list, so an operator can revoke by key id. */
  inAccount: (accountId: string, keyId: string): TableKey => ({
    pk: accountKeys.partition(accountId),
    sk: `APIKEY#${keyId}`,
  }),
};

/** Both items of a key (the lookup and the account's) hold the whole record. */
const apiKeyCodec = codec<ApiKeyRecord>({ accountId: {}, keyId: {}, keyHash: {}, createdAt: {} });

function putApiKeyItems(record: ApiKeyRecord) {
  const attributes = { entity: 'API_KEY', ...apiKeyCodec.toItem(record) };
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...apiKeyKeys.byHash(record.keyHash), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...apiKeyKeys.inAccount(record.accountId, record.keyId), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/**
 * Creates an account with its DCs and its first API key in one transaction; every item refuses to overwrite
 * one (ids and keys are random: a collision is thrown).
 */
export async function insertAccountWithKey(
  account: Account,
  dcs: readonly Dc[],
  key: ApiKeyRecord,
): Promise<void> {
  await writeTransaction([putAccountItem(account), ...dcs.map(putDcItem), ...putApiKeyItems(key)]);
}

/** Adds a key to an existing account: 'created', 'no_account', or 'key_taken' when the key is registered. */
export async function createApiKey(record: ApiKeyRecord): Promise<'created' | 'no_account' | 'key_taken'> {
  const outcome = await writeTransactionParts([
    { items: [accountExistsCheck(record.accountId)], refusedAs: 'no_account' },
    { items: putApiKeyItems(record), refusedAs: 'key_taken' },
  ]);
  return outcome === 'written' ? 'created' : outcome;
}

export async function findApiKeyByHash(
  keyHash: string,
): Promise<{ accountId: string; keyId: string } | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKeys.byHash(keyHash), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { accountId, keyId } = apiKeyCodec.fromItem(Item);
  return { accountId, keyId };
}

/** Deletes both items of a key; returns false when the account has no such key. */
export async function deleteApiKey(accountId: string, keyId: string): Promise<boolean> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: apiKeyKeys.inAccount(accountId, keyId),
      ConsistentRead: true,
    }),
  );
  if (!Item) return false;
  await writeTransaction([
    { Delete: { TableName: tableName(), Key: apiKeyKeys.inAccount(accountId, keyId) } },
    { Delete: { TableName: tableName(), Key: apiKeyKeys.byHash(apiKeyCodec.fromItem(Item).keyHash) } },
  ]);
  return true;
}
