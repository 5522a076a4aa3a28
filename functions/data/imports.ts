import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import type { TableKey } from './table-schema';

export type ImportStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface ImportRecord {
  accountId: string;
  dcId: string;
  txid: string;
  routeId: string;
  status: ImportStatus;
  error?: { code: number; message: string };
  /** Where the accepted body waits in the bucket (claim-check). */
  payloadKey: string;
  createdAt: number;
  finishedAt?: number;
}

/** Import records are kept for 30 days: clients poll them shortly after the import. */
const RETENTION_SECONDS = 30 * 86_400;

export const importKeys = {
  record: (accountId: string, txid: string): TableKey => ({
    pk: `IMPORT#${accountId}/${txid}`,
    sk: 'IMPORT',
  }),
};

export async function putPendingImport(record: ImportRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...importKeys.record(record.accountId, record.txid),
        entity: 'IMPORT',
        account_id: record.accountId,
        dc_id: record.dcId,
        txid: record.txid,
        route_id: record.routeId,
        status: 'PENDING',
        payload_key: record.payloadKey,
        created_at: record.createdAt,
        expires_at: Math.floor(record.createdAt / 1000) + RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getImport(accountId: string, txid: string): Promise<ImportRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: importKeys.record(accountId, txid), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    accountId: Item.account_id,
    dcId: Item.dc_id,
    txid: Item.txid,
    routeId: Item.route_id,
    status: Item.status,
    error: Item.error,
    payloadKey: Item.payload_key,
    createdAt: Item.created_at,
    finishedAt: Item.finished_at,
  };
}

/**
 * Transaction item ending a pending import, as SUCCEEDED or FAILED with its error. The condition makes
 * the end happen once even when SQS delivers the message twice.
 */
export function finishImportItem(
  accountId: string,
  txid: string,
  at: number,
  error?: { code: number; message: string },
) {
  return {
    Update: {
      TableName: tableName,
      Key: importKeys.record(accountId, txid),
      UpdateExpression: error
        ? 'SET #status = :status, finished_at = :at, #error = :error'
        : 'SET #status = :status, finished_at = :at',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status', ...(error ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':status': error ? 'FAILED' : 'SUCCEEDED',
        ':pending': 'PENDING',
        ':at': at,
        ...(error ? { ':error': error } : {}),
      },
    },
  };
}
