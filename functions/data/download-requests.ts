import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AnalyticsType } from './analytics';
import { db, tableName } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord } from './item-ops';
import type { TableKey } from './table-schema';

export type DownloadStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface DownloadFile {
  analyticsType: AnalyticsType;
  /** Object key in the bucket. */
  key: string;
  rows: number;
}

export interface DownloadRequest {
  accountId: string;
  txid: string;
  dcIds: string[];
  fromDate: string;
  toDate: string;
  analyticsTypes: AnalyticsType[];
  status: DownloadStatus;
  files: DownloadFile[];
  createdAt: number;
}

/** The files expire after 7 days (bucket lifecycle); so does the request that lists them. */
export const DOWNLOAD_RETENTION_SECONDS = 7 * 86_400;

export const downloadRequestKey = (accountId: string, txid: string): TableKey => ({
  pk: `DOWNLOAD#${accountId}/${txid}`,
  sk: 'DOWNLOAD',
});

const requestCodec = codec<DownloadRequest>({
  accountId: {},
  txid: {},
  dcIds: {},
  fromDate: {},
  toDate: {},
  analyticsTypes: {},
  status: {},
  files: { absent: [] },
  createdAt: {},
});

export async function putPendingDownload(request: DownloadRequest): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...downloadRequestKey(request.accountId, request.txid),
        entity: 'DOWNLOAD_REQUEST',
        ...requestCodec.toItem(request),
        expires_at: Math.floor(request.createdAt / 1000) + DOWNLOAD_RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export const getDownload = (accountId: string, txid: string) =>
  getRecord(downloadRequestKey(accountId, txid), requestCodec.fromItem);

/** Ends a pending request once (a redelivered message finds it ended and does nothing). */
export async function finishDownload(
  accountId: string,
  txid: string,
  outcome: { status: 'SUCCEEDED'; files: DownloadFile[] } | { status: 'FAILED' },
): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: downloadRequestKey(accountId, txid),
        UpdateExpression: 'SET #status = :status, files = :files, finished_at = :now',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': outcome.status,
          ':files': outcome.status === 'SUCCEEDED' ? outcome.files : [],
          ':pending': 'PENDING',
          ':now': Date.now(),
        },
      }),
    ),
  );
}
