import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { config, perConfig } from '../shared/config';

interface Bucket {
  readonly sdk: typeof import('./s3-client');
  readonly s3: S3Client;
  readonly name: string;
}

/**
 * The S3 client and the bucket's name, made on first use: a function that never reads or writes an object
 * needs no BUCKET_NAME, which CDK sets only where the bucket is granted. Bundled, the client is in a chunk of
 * its own (lib/bundling.ts) that a cold start does not read. Only the modules that read or write objects
 * import this one (keys: bucket-keys.ts; links: bucket-links.ts): esbuild makes a chunk for this `import()` in
 * every bundle that holds the module, and puts the SDK code that chunk shares with the entry into the cold
 * start, even where the functions that call it are dropped (test/cdk/bundling.test.ts checks).
 */
const theBucket = /* @__PURE__ */ perConfig(async (): Promise<Bucket> => {
  const name = config().bucketName;
  const sdk = await import('./s3-client');
  return { sdk, s3: sdk.createS3Client(), name };
});

/** What a read of a whole object found: its size, its first bytes and its SHA-256 (hex). */
export interface ObjectDigest {
  size: number;
  firstBytes: Buffer;
  sha256: string;
}

/**
 * Reads the object once, streaming: its size, its first `firstBytes` bytes and its SHA-256, and when S3
 * created it (Last-Modified, epoch ms; what its lifecycle rule counts from). An object over `maxBytes` (by
 * its Content-Length, or by what it turns out to hold) is not read further: no digest.
 */
export async function digestObject(
  key: string,
  { maxBytes, firstBytes }: { maxBytes: number; firstBytes: number },
): Promise<{ lastModified: number; digest?: ObjectDigest }> {
  const { sdk, s3, name } = await theBucket();
  const {
    Body,
    ContentLength = 0,
    LastModified,
  } = await s3.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  if (!LastModified) throw new Error(`object ${key} has no Last-Modified`);
  const lastModified = LastModified.getTime();
  const body = Body as Readable;
  if (ContentLength > maxBytes) {
    body.destroy();
    return { lastModified };
  }
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > maxBytes) {
      body.destroy();
      return { lastModified };
    }
    hash.update(bytes);
    if (headLength < firstBytes) {
      head.push(bytes.subarray(0, firstBytes - headLength));
      headLength += Math.min(bytes.length, firstBytes - headLength);
    }
  }
  return { lastModified, digest: { size, firstBytes: Buffer.concat(head), sha256: hash.digest('hex') } };
}

export async function putJsonObject(key: string, body: string): Promise<void> {
  const { sdk, s3, name } = await theBucket();
  await s3.send(
    new sdk.PutObjectCommand({ Bucket: name, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

/** The object's bytes, refused with ObjectTooLargeError before its body is read when over `maxBytes`. */
export async function getObjectBytes(key: string, maxBytes: number): Promise<Uint8Array> {
  const { sdk, s3, name } = await theBucket();
  const { Body, ContentLength = 0 } = await s3.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  if (ContentLength > maxBytes) {
    (Body as Readable).destroy();
    throw new ObjectTooLargeError(key, ContentLength);
  }
  return Body.transformToByteArray();
}

/** Writes `body` as the object, with user metadata (x-amz-meta-*: lower-case names, ASCII values). */
export async function putObjectBytes(
  key: string,
  body: Uint8Array,
  contentType: string,
  metadata: Record<string, string>,
): Promise<void> {
  const { sdk, s3, name } = await theBucket();
  await s3.send(
    new sdk.PutObjectCommand({
      Bucket: name,
      Key: key,
      Body: body,
      ContentType: contentType,
      Metadata: metadata,
    }),
  );
}

/**
 * Whether a read of an object failed because there is no such object. S3 says so with 404 only to a caller
 * that may list the bucket, and with 403 to one that may not (S3 API Reference, GetObject and HeadObject,
 * "Permissions"). No function of the service may list it, and each reads only keys CDK grants it
 * s3:GetObject on, so a 403 to such a read means the key is missing. The local runtime answers the same.
 */
export function isMissingObject(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return status === 404 || status === 403;
}

/**
 * The user metadata of an object the function may read (s3:GetObject on its key, which HeadObject needs), or
 * undefined when there is no such object (isMissingObject).
 */
export async function readableObjectMetadata(key: string): Promise<Record<string, string> | undefined> {
  const { sdk, s3, name } = await theBucket();
  try {
    const { Metadata } = await s3.send(new sdk.HeadObjectCommand({ Bucket: name, Key: key }));
    return Metadata ?? {};
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    throw error;
  }
}

/** Whether the object exists (HeadObject; S3 reads are strongly consistent, so a PUT that ended is seen). */
export async function objectExists(key: string): Promise<boolean> {
  const { sdk, s3, name } = await theBucket();
  try {
    await s3.send(new sdk.HeadObjectCommand({ Bucket: name, Key: key }));
    return true;
  } catch (error) {
    if (isMissingObject(error)) return false;
    throw error;
  }
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
  return new TextDecoder().decode(await getObjectBytes(key, maxBytes));
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
