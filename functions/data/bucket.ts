import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { STSClient } from '@aws-sdk/client-sts';
import { partition } from '@aws-sdk/core/client';
import { formatUrl } from '@aws-sdk/core/util';
import { Sha256 } from '@smithy/core/checksum';
import { extendedEncodeURIComponent, HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from '../shared/config';
import {
  ANALYTICS_FILES_PREFIX,
  DELIVERY_NOTES_PREFIX,
  IMPORT_UPLOADS_PREFIX,
  PROOFS_PREFIX,
} from '../shared/resources';

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
 * client is in a chunk of its own (lib/bundling.ts) that a cold start does not read, and in no asset of a
 * function whose handler never calls this (test/cdk/bundling.test.ts checks).
 */
function theBucket(): Promise<Bucket> {
  bucket ??= (async () => {
    const name = config().bucketName;
    const sdk = await import('./s3-client');
    return { sdk, s3: sdk.createS3Client(), name };
  })();
  return bucket;
}

export const bucketKeys = {
  importPayload: (accountId: string, txid: string) => `imports/${accountId}/${txid}.json`,
  /** What a revision replaces, kept beside its body (and expiring with it) until it is in or rolled back. */
  revisionBeforeImage: (accountId: string, txid: string) => `imports/${accountId}/${txid}.before.json`,
  importUpload: (accountId: string, txid: string) => `${IMPORT_UPLOADS_PREFIX}${accountId}/${txid}.json`,
  analyticsFile: (accountId: string, txid: string, name: string) =>
    `${ANALYTICS_FILES_PREFIX}${accountId}/${txid}/${name}`,
  /** Ids have no `/` (models/common.ts), so the key splits back into its parts (proofObjectOf). */
  proof: (accountId: string, routeId: string, sequence: number, proofId: string) =>
    `${PROOFS_PREFIX}${accountId}/${routeId}/${String(sequence).padStart(5, '0')}/${proofId}`,
  /** A delivery note, named by the SHA-256 (hex) of what it shows: the same content, the same object. */
  deliveryNote: (accountId: string, routeId: string, contentSha256: string) =>
    `${DELIVERY_NOTES_PREFIX}${accountId}/${routeId}/${contentSha256}.pdf`,
};

/** The parts of a proof's key (bucketKeys.proof); undefined for a key of another shape. */
export function proofObjectOf(
  key: string,
): { accountId: string; routeId: string; sequence: number; proofId: string } | undefined {
  if (!key.startsWith(PROOFS_PREFIX) || key.startsWith(DELIVERY_NOTES_PREFIX)) return undefined;
  const parts = key.slice(PROOFS_PREFIX.length).split('/');
  if (parts.length !== 4) return undefined;
  const [accountId, routeId, sequence, proofId] = parts as [string, string, string, string];
  if (!/^\d{5}$/.test(sequence) || !accountId || !routeId || !proofId) return undefined;
  return { accountId, routeId, sequence: Number(sequence), proofId };
}

/** What a read of a whole object found: its size, its first bytes and its SHA-256 (hex). */
export interface ObjectDigest {
  size: number;
  firstBytes: Buffer;
  sha256: string;
}

/**
 * Reads the object once, streaming: its size, its first `firstBytes` bytes and its SHA-256. An object over
 * `maxBytes` (by its Content-Length, or by what it turns out to hold) is not read further: undefined.
 */
export async function digestObject(
  key: string,
  { maxBytes, firstBytes }: { maxBytes: number; firstBytes: number },
): Promise<ObjectDigest | undefined> {
  const { sdk, s3, name } = await theBucket();
  const { Body, ContentLength = 0 } = await s3.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  const body = Body as Readable;
  if (ContentLength > maxBytes) {
    body.destroy();
    return undefined;
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
      return undefined;
    }
    hash.update(bytes);
    if (headLength < firstBytes) {
      head.push(bytes.subarray(0, firstBytes - headLength));
      headLength += Math.min(bytes.length, firstBytes - headLength);
    }
  }
  return { size, firstBytes: Buffer.concat(head), sha256: hash.digest('hex') };
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

/** A presigned link and when it stops working (epoch ms). */
export interface PresignedLink {
  url: string;
  expiresAt: number;
}

/** A GET link for `key`, for at most `expiresInSeconds`, that downloads as `fileName`. */
export async function presignedDownloadLink(
  key: string,
  expiresInSeconds: number,
  fileName: string,
): Promise<PresignedLink> {
  return presign(
    {
      method: 'GET',
      key,
      query: { 'response-content-disposition': `attachment; filename="${fileName}"` },
    },
    expiresInSeconds,
  );
}

/** What a PUT link binds its upload to: S3 refuses a PUT through it whose headers differ (they are signed). */
export interface UploadTerms {
  contentType: string;
  contentLength: number;
}

/**
 * A PUT link for `key`, for at most `expiresInSeconds`. Without `terms` the client may send any body and
 * content type; with them, exactly that Content-Type and Content-Length.
 */
export async function presignedUploadLink(
  key: string,
  expiresInSeconds: number,
  terms?: UploadTerms,
): Promise<PresignedLink> {
  if (!terms) return presign({ method: 'PUT', key }, expiresInSeconds);
  return presign(
    {
      method: 'PUT',
      key,
      headers: { 'content-type': terms.contentType, 'content-length': String(terms.contentLength) },
    },
    expiresInSeconds,
  );
}

/**
 * Signs a link to `object` with the link-signing role's credentials. A presigned link stops working when the
 * credentials that signed it expire, and Lambda never tells a function when its own do; STS tells when the
 * role's do, so the link's expiry is known: the sooner of the one asked for and the credentials'.
 */
async function presign(object: ObjectRequest, expiresInSeconds: number): Promise<PresignedLink> {
  const signer = await linkSigner(expiresInSeconds * 1000);
  // SigV4 dates have whole seconds: the link expires exactly at signedAt + expiresIn.
  const signedAt = Math.floor(Date.now() / 1000) * 1000;
  const latest = Math.min(signedAt + expiresInSeconds * 1000, signer.expiresAt);
  const expiresIn = Math.floor((latest - signedAt) / 1000);
  const url = await signedObjectUrl(object, signer.credentials, new Date(signedAt), expiresIn);
  return { url, expiresAt: signedAt + expiresIn * 1000 };
}

/** A request a link lets its holder send: GetObject or PutObject of one key of the bucket. */
export interface ObjectRequest {
  method: 'GET' | 'PUT';
  key: string;
  /** Query parameters S3 reads, e.g. response-content-disposition. */
  query?: Record<string, string>;
  /** Headers the link holds the request to (signed): an upload's content-type and content-length. */
  headers?: Record<string, string>;
}

/** AWS credentials as STS gives a session's. */
export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The presigned URL of `object`: SigV4 query signing (the SDK's own SignatureV4, which a cold start already
 * has for DynamoDB) of the request the S3 client would send, byte for byte the URL the SDK's presigner makes
 * (test/unit/presigned-links.test.ts holds them equal). The S3 client and the presigner are about 140 KB
 * that a function would load on its first link only to build a URL: 14-23 ms of that request.
 *
 * Addressed as the S3 client addresses it: virtual-hosted (`<bucket>.s3.<region>.<partition's domain>`), or
 * path-style on the endpoint AWS_ENDPOINT_URL_S3 names where S3_FORCE_PATH_STYLE is set (the local emulator).
 * The headers given are signed; S3 holds the request to them. The payload is not (UNSIGNED-PAYLOAD), as
 * the SDK's presigner leaves it.
 */
export async function signedObjectUrl(
  object: ObjectRequest,
  credentials: SigningCredentials,
  signingDate: Date,
  expiresInSeconds: number,
): Promise<string> {
  const { environment, bucketName, s3ForcePathStyle } = config();
  const region = environment.AWS_REGION;
  if (!region) throw new Error('environment variable AWS_REGION is not set');
  const endpoint = new URL(
    environment.AWS_ENDPOINT_URL_S3 ??
      environment.AWS_ENDPOINT_URL ??
      `https://s3.${region}.${partition(region).dnsSuffix}`,
  );
  const keyPath = `/${object.key.split('/').map(extendedEncodeURIComponent).join('/')}`;
  const base = endpoint.pathname.replace(/\/$/, '');
  const request = new HttpRequest({
    method: object.method,
    protocol: endpoint.protocol,
    hostname: s3ForcePathStyle ? endpoint.hostname : `${bucketName}.${endpoint.hostname}`,
    ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
    path: s3ForcePathStyle ? `${base}/${bucketName}${keyPath}` : `${base}${keyPath}`,
    // x-id names the operation, as the S3 client adds it to every request.
    query: { ...object.query, 'x-id': object.method === 'GET' ? 'GetObject' : 'PutObject' },
    headers: { ...object.headers, [UNSIGNED_PAYLOAD_HEADER]: 'UNSIGNED-PAYLOAD' },
  });
  request.headers.host = `${request.hostname}${request.port != null ? `:${request.port}` : ''}`;
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256: Sha256,
    // S3 signs the path as sent, each segment encoded once (above).
    uriEscapePath: false,
    applyChecksum: false,
  });
  const presigned = await signer.presign(request, {
    expiresIn: expiresInSeconds,
    signingDate,
    signableHeaders: new Set(Object.keys(object.headers ?? {})),
  });
  return formatUrl(presigned);
}

/** Hoisted into the query by SignatureV4 (an x-amz-* header), under this name as the SDK's presigner puts it. */
const UNSIGNED_PAYLOAD_HEADER = 'X-Amz-Content-Sha256';

interface LinkSigner {
  credentials: SigningCredentials;
  /** When the credentials expire (epoch ms), as STS gave it. */
  expiresAt: number;
}

/** At most an hour: STS caps a session assumed with role credentials (role chaining) there anyway. */
const LINK_SIGNER_SESSION_SECONDS = 3600;

let currentSigner: LinkSigner | undefined;
let renewal: Promise<LinkSigner> | undefined;

/**
 * The link signer, renewed when its credentials have less than `lifetimeMs` left. Links asked for while a
 * renewal is under way take its credentials whatever they have left (the freshest there are), so the links
 * of one response share one AssumeRole.
 */
async function linkSigner(lifetimeMs: number): Promise<LinkSigner> {
  if (currentSigner && currentSigner.expiresAt - Date.now() >= lifetimeMs) return currentSigner;
  renewal ??= assumeLinkSigner()
    .then((renewed) => {
      currentSigner = renewed;
      return renewed;
    })
    .finally(() => {
      renewal = undefined;
    });
  return renewal;
}

/**
 * A session of the role LINK_SIGNER_ROLE_ARN names. Required, not defaulted to the function's own
 * credentials: on Lambda their expiry is unknown, so links signed with them could die before the time the API
 * promises.
 */
async function assumeLinkSigner(): Promise<LinkSigner> {
  const roleArn = config().linkSignerRoleArn;
  const sts = await import('./sts-client');
  stsClient ??= sts.createStsClient();
  const { Credentials } = await stsClient.send(
    new sts.AssumeRoleCommand({
      RoleArn: roleArn,
      RoleSessionName: (config().functionName ?? 'link-signer').slice(0, 64),
      DurationSeconds: LINK_SIGNER_SESSION_SECONDS,
    }),
  );
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey || !Credentials.Expiration) {
    throw new Error('AssumeRole of the link signer returned no credentials');
  }
  return {
    credentials: {
      accessKeyId: Credentials.AccessKeyId,
      secretAccessKey: Credentials.SecretAccessKey,
      ...(Credentials.SessionToken ? { sessionToken: Credentials.SessionToken } : {}),
    },
    expiresAt: Credentials.Expiration.getTime(),
  };
}

let stsClient: STSClient | undefined;
