import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { requireEnv } from '../shared/env';
import { BUCKET_NAME_ENV } from '../shared/resources';

interface Bucket {
  readonly sdk: typeof import('./s3-client');
  readonly s3: S3Client;
  readonly name: string;
}

let bucket: Promise<Bucket> | undefined;

/**
 * The S3 client and the bucket's name, made on first use. Modules that import this one only for a key
 * builder or a function they never call (an import-status read, a download request) neither load the S3
 * client at cold start nor need BUCKET_NAME, which CDK sets only where the bucket is granted. Bundled, the
 * client is still in their bundle (parsed, not run) unless the function's handler never reaches this module;
 * functions without bucket access do not reach it (test/cdk/bundling.test.ts checks).
 */
function theBucket(): Promise<Bucket> {
  bucket ??= (async () => {
    const name = requireEnv(BUCKET_NAME_ENV);
    const sdk = await import('./s3-client');
    return { sdk, s3: sdk.createS3Client(), name };
  })();
  return bucket;
}

export const bucketKeys = {
  importPayload: (accountId: string, txid: string) => `imports/${accountId}/${txid}.json`,
  analyticsFile: (accountId: string, txid: string, name: string) => `analytics/${accountId}/${txid}/${name}`,
};

export async function putJsonObject(key: string, body: string): Promise<void> {
  const { sdk, s3, name } = await theBucket();
  await s3.send(
    new sdk.PutObjectCommand({ Bucket: name, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

export async function getJsonObject(key: string): Promise<unknown> {
  const { sdk, s3, name } = await theBucket();
  const { Body } = await s3.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  return JSON.parse(await Body.transformToString('utf8'));
}

/**
 * Streams `body` into an object with a multipart upload (5 MB parts, a few in flight): memory stays
 * bounded whatever the object's size.
 */
export async function uploadStream(key: string, body: Readable, contentType: string): Promise<void> {
  const { s3, name } = await theBucket();
  const { Upload } = await import('@aws-sdk/lib-storage');
  await new Upload({
    client: s3,
    params: { Bucket: name, Key: key, Body: body, ContentType: contentType },
    queueSize: 2,
    partSize: 5 * 1024 * 1024,
  }).done();
}

/** A GET link that works without credentials until it expires. */
export async function presignedDownloadLink(key: string, expiresInSeconds: number, fileName: string) {
  const { sdk, s3, name } = await theBucket();
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  return getSignedUrl(
    s3,
    new sdk.GetObjectCommand({
      Bucket: name,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${fileName}"`,
    }),
    { expiresIn: expiresInSeconds },
  );
}
