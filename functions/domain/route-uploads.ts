import { bucketKeys } from '../data/bucket-keys';
import { presignedUploadLink } from '../data/bucket-links';
import { putPendingImport } from '../data/imports';
import { newTrackingKey } from '../models/tracking-links';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { scheduleDeadlineCheck } from './import-deadlines';

/*
 * POST .../invoiced-routes/uploads: an import whose body the client uploads to the bucket itself. Apart from
 * the import (route-import.ts), which reads and writes the bucket: the S3 client's SDK code would weigh on
 * this function's cold start, which only signs a link. The upload's arrival and the import itself are the
 * import worker's (route-import.ts).
 */

export interface AcceptedUpload {
  txid: string;
  uploadUrl: string;
  /** When the link stops working (epoch ms). */
  uploadExpiresAt: number;
}

/**
 * Starts an import whose body the client PUTs to the bucket itself (bodies too large for API Gateway and
 * Lambda): records it as PENDING and returns a presigned PUT link. The object's arrival queues the import
 * (an S3 event notification); one S3 did not receive `arrivalGraceSeconds` after the link expired (a PUT may
 * start until the link expires and take a while) is never imported. Its deadline is IMPORT_DEADLINE_SECONDS
 * after that arrival deadline; its deadline check first looks at the arrival deadline whether the upload came.
 */
export async function acceptUpload(
  accountId: string,
  dcId: string,
  settings: { linkSeconds: number; arrivalGraceSeconds: number },
): Promise<AcceptedUpload> {
  const txid = randomId('imp_');
  const payloadKey = bucketKeys.importUpload(accountId, txid);
  const link = await presignedUploadLink(payloadKey, settings.linkSeconds);
  const arrivalDeadline = link.expiresAt + settings.arrivalGraceSeconds * 1000;
  await scheduleDeadlineCheck({ account_id: accountId, dc_id: dcId, txid }, arrivalDeadline);
  await putPendingImport({
    accountId,
    dcId,
    txid,
    status: 'PENDING',
    payloadKey,
    trackingKey: newTrackingKey(),
    createdAt: Date.now(),
    deadline: arrivalDeadline + config().importDeadlineSeconds * 1000,
    upload: { linkExpiresAt: link.expiresAt, arrivalDeadline },
  });
  return { txid, uploadUrl: link.url, uploadExpiresAt: link.expiresAt };
}
