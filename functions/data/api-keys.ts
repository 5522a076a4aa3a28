import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { accountExistsCheck, accountKeys } from './accounts';
import { db, tableName, writeTransaction } from './client';
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

export function putApiKeyItems(record: ApiKeyRecord) {
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

export async function createApiKey(record: ApiKeyRecord): Promise<void> {
  await writeTransaction([accountExistsCheck(record.accountId), ...putApiKeyItems(record)]);
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
