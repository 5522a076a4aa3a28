import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailedAt, db, tableName } from './client';
import { getItem } from './item-ops';
import type { TableKey } from './table-schema';

export type ImportStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface ImportRecord {
  accountId: string;
  dcId: string;
  txid: string;
  /** Known from the start for a POSTed route; for an upload, once its body has been read. */
  routeId?: string;
  status: ImportStatus;
  error?: { code: number; message: string };
  /** Where the accepted body waits in the bucket (claim-check). */
  payloadKey: string;
  createdAt: number;
  finishedAt?: number;
  /**
   * Still pending then, the import has failed (3016) and its ids are released; no run of the worker starts
   * that could end after it (epoch ms).
   */
  deadline: number;
  /** Present for an import whose body the client uploads to the bucket itself. */
  upload?: ImportUpload;
  /**
   * The route's tracking key, made when the import was accepted, so that every run of the import writes the
   * same tracking links. Absent on imports accepted before tracking links (their routes get none).
   */
  trackingKey?: string;
}

export interface ImportUpload {
  /** When the upload link stops working (epoch ms). */
  linkExpiresAt: number;
  /** An object S3 did not receive by then ends the import failed (3015), and a later one is ignored. */
  arrivalDeadline: number;
  /** When S3 received the object the import reads (its event's `eventTime`). */
  receivedAt?: number;
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
      TableName: tableName(),
      Item: {
        ...importKeys.record(record.accountId, record.txid),
        entity: 'IMPORT',
        account_id: record.accountId,
        dc_id: record.dcId,
        txid: record.txid,
        ...(record.routeId === undefined ? {} : { route_id: record.routeId }),
        status: 'PENDING',
        payload_key: record.payloadKey,
        ...(record.trackingKey === undefined ? {} : { tracking_key: record.trackingKey }),
        created_at: record.createdAt,
        deadline: record.deadline,
        ...(record.upload
          ? {
              upload_link_expires_at: record.upload.linkExpiresAt,
              upload_arrival_deadline: record.upload.arrivalDeadline,
            }
          : {}),
        expires_at: Math.floor(record.createdAt / 1000) + RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getImport(accountId: string, txid: string): Promise<ImportRecord | undefined> {
  const item = await getItem(importKeys.record(accountId, txid));
  if (!item) return undefined;
  return {
    accountId: item.account_id,
    dcId: item.dc_id,
    txid: item.txid,
    routeId: item.route_id,
    status: item.status,
    error: item.error,
    payloadKey: item.payload_key,
    trackingKey: item.tracking_key,
    createdAt: item.created_at,
    finishedAt: item.finished_at,
    deadline: item.deadline,
    ...(item.upload_arrival_deadline === undefined
      ? {}
      : {
          upload: {
            linkExpiresAt: item.upload_link_expires_at,
            arrivalDeadline: item.upload_arrival_deadline,
            receivedAt: item.upload_received_at,
          },
        }),
  };
}

/**
 * Records that S3 received the upload's object `at` (epoch ms), unless the import is no longer pending or the
 * object came after the arrival deadline (then it is ignored). True when the import should run; a repeated
 * call for the same arrival (SQS delivers at least once) is true again.
 */
export async function markUploadReceived(accountId: string, txid: string, at: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys.record(accountId, txid),
        UpdateExpression: 'SET upload_received_at = if_not_exists(upload_received_at, :at)',
        ConditionExpression:
          '#status = :pending AND (attribute_exists(upload_received_at) OR upload_arrival_deadline >= :at)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'PENDING', ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailedAt(error, 0)) return false;
    throw error;
  }
}

/**
 * Transaction item ending a pending import, as SUCCEEDED or FAILED with its error, with the route id once
 * known (an upload's comes with its body). The condition makes
 * the end happen once even when SQS delivers the message twice.
 */
export function finishImportItem(
  accountId: string,
  txid: string,
  at: number,
  routeId: string | undefined,
  error?: { code: number; message: string },
) {
  const sets = ['#status = :status', 'finished_at = :at'];
  if (routeId !== undefined) sets.push('route_id = :routeId');
  if (error) sets.push('#error = :error');
  return {
    Update: {
      TableName: tableName(),
      Key: importKeys.record(accountId, txid),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status', ...(error ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':status': error ? 'FAILED' : 'SUCCEEDED',
        ':pending': 'PENDING',
        ':at': at,
        ...(routeId === undefined ? {} : { ':routeId': routeId }),
        ...(error ? { ':error': error } : {}),
      },
    },
  };
}
