import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailedAt, db, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
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

const uploadCodec = codec<ImportUpload>({ linkExpiresAt: {}, arrivalDeadline: {}, receivedAt: {} });

const importCodec = codec<ImportRecord>({
  accountId: {},
  dcId: {},
  txid: {},
  routeId: {},
  status: {},
  error: {},
  payloadKey: {},
  createdAt: {},
  finishedAt: {},
  deadline: {},
  /** `upload_link_expires_at`, `upload_arrival_deadline`, `upload_received_at`. */
  upload: { flat: { prefix: 'upload_', codec: uploadCodec } },
  trackingKey: {},
});

/** The item of an import accepted now: pending, whatever status `record` says. */
export const pendingImportItem = (record: ImportRecord) => ({
  ...importKeys.record(record.accountId, record.txid),
  entity: 'IMPORT',
  ...importCodec.toItem({ ...record, status: 'PENDING' }),
  expires_at: Math.floor(record.createdAt / 1000) + RETENTION_SECONDS,
});

/** Stores the import as pending; refused when the txid has a record. */
export async function putPendingImport(record: ImportRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: pendingImportItem(record),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export const getImport = (accountId: string, txid: string): Promise<ImportRecord | undefined> =>
  getRecord(importKeys.record(accountId, txid), importCodec.fromItem);

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
