import type { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { requireEnv } from '../shared/env';
import { traceAwsClient } from '../shared/observability';
import { BUCKET_NAME_ENV } from '../shared/resources';

/** Path-style addressing only where configured (the local S3 emulator); AWS uses virtual-hosted style. */
const s3 = traceAwsClient(new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));
const bucketName = requireEnv(BUCKET_NAME_ENV);

export const bucketKeys = {
  importPayload: (accountId: string, txid: string) => `imports/${accountId}/${txid}.json`,
  analyticsFile: (accountId: string, txid: string, name: string) => `analytics/${accountId}/${txid}/${name}`,
};

export async function putJsonObject(key: string, body: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: bucketName, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

export async function getJsonObject(key: string): Promise<unknown> {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  return JSON.parse(await Body.transformToString('utf8'));
}

/**
 * Streams `body` into an object with a multipart upload (5 MB parts, a few in flight): memory stays
 * bounded whatever the object's size.
 */
export async function uploadStream(key: string, body: Readable, contentType: string): Promise<void> {
  await new Upload({
    client: s3,
    params: { Bucket: bucketName, Key: key, Body: body, ContentType: contentType },
    queueSize: 2,
    partSize: 5 * 1024 * 1024,
  }).done();
}

/** A GET link that works without credentials until it expires. */
export async function presignedDownloadLink(key: string, expiresInSeconds: number, fileName: string) {
  return getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: bucketName,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${fileName}"`,
    }),
    { expiresIn: expiresInSeconds },
  );
}
