import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { requireEnv } from '../shared/env';
import { BUCKET_NAME_ENV, IMPORT_UPLOADS_PREFIX } from '../shared/resources';

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
  importUpload: (accountId: string, txid: string) => `${IMPORT_UPLOADS_PREFIX}${accountId}/${txid}.json`,
  analyticsFile: (accountId: string, txid: string, name: string) => `analytics/${accountId}/${txid}/${name}`,
};

export async function putJsonObject(key: string, body: string): Promise<void> {
  const { sdk, s3, name } = await theBucket();
  await s3.send(
    new sdk.PutObjectCommand({ Bucket: name, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

/** An object larger than its reader accepts; its body was not read. */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`object ${key} has ${size} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** The object's text, refused with ObjectTooLargeError before its body is read when over `maxBytes`. */
export async function getObjectText(key: string, maxBytes: number): Promise<string> {
  const { sdk, s3, name } = await theBucket();
  const { Body, ContentLength = 0 } = await s3.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  if (ContentLength > maxBytes) {
    (Body as Readable).destroy();
    throw new ObjectTooLargeError(key, ContentLength);
  }
  return Body.transformToString('utf8');
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

let uploadSigner: S3Client | undefined;

/**
 * A PUT link for `key` that works without credentials until `expiresAt` (epoch ms). A presigned link stops
 * working when the credentials that signed it expire (a Lambda role's are temporary), so the link never
 * outlives them when the SDK knows their expiration.
 */
export async function presignedUploadLink(key: string, expiresInSeconds: number) {
  const { sdk, name } = await theBucket();
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  // Checksums only where S3 requires them: by default the link would carry the CRC32 of the empty body the
  // command has, and S3 would refuse every upload as BadDigest.
  uploadSigner ??= sdk.createS3Client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
  const { expiration } = await uploadSigner.config.credentials();
  // SigV4 dates have whole seconds: the link expires exactly at signedAt + expiresIn.
  const signedAt = Math.floor(Date.now() / 1000) * 1000;
  const latest = Math.min(
    signedAt + expiresInSeconds * 1000,
    expiration?.getTime() ?? Number.POSITIVE_INFINITY,
  );
  const expiresIn = Math.floor((latest - signedAt) / 1000);
  const url = await getSignedUrl(uploadSigner, new sdk.PutObjectCommand({ Bucket: name, Key: key }), {
    expiresIn,
    signingDate: new Date(signedAt),
  });
  return { url, expiresAt: signedAt + expiresIn * 1000 };
}
