import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { perConfig } from '../shared/config';
import { type ObjectRequest, objectHttpRequest, s3Signer } from './bucket-requests';
import { db } from './client';

/*
 * The bucket's object requests, sent as the S3 client would send them but without it: signed with the SDK's
 * SignatureV4 and sent through its NodeHttpHandler, both of which every cold start already has for DynamoDB.
 * The S3 client would add its REST-XML protocol and checksum streams to the cold start of every function that
 * holds this module (esbuild assigns them to the entry through the SDK's index files, even with the client in
 * a lazily loaded chunk; docs/architecture.md) and 130 KB to its first call, for requests whose answers need
 * little XML: a status, headers and the body, or an upload id (multipart uploads, bucket-uploads.ts).
 */

/** The HTTP handler of the bucket's requests (keep-alive, as the SDK's), one per configuration. */
const http = /* @__PURE__ */ perConfig(() => new NodeHttpHandler());

/** Attempts of one request, as the SDK's standard retry mode makes them, and its backoff (full jitter). */
const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 20_000;

/** The statuses S3 answers to a request worth sending again: throttling (503 SlowDown) and transient errors. */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** What S3 answered: its status, headers (lower-case names) and body (undefined to HEAD). */
export interface ObjectResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Readable | undefined;
}

/**
 * An S3 error answer, with what the S3 client's errors carry and callers read: the error code as `name` and
 * the status as `$metadata.httpStatusCode` (isMissingObject).
 */
export class S3RequestError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(code: string, status: number, message: string) {
    super(message);
    this.name = code;
    this.$metadata = { httpStatusCode: status };
  }
}

/**
 * Sends `object` (with `body`, a PUT's), signed with the function's credentials: those the SDK's default chain
 * resolves for the DynamoDB client (one chain per cold start, renewed as they expire). Answers a 2xx; throws
 * an S3RequestError for any other status, after the retries the SDK would make.
 */
export async function sendObjectRequest(object: ObjectRequest, body?: Uint8Array): Promise<ObjectResponse> {
  for (let attempt = 1; ; attempt++) {
    const request = objectHttpRequest({
      ...object,
      headers: { ...object.headers, ...(body ? { 'content-length': String(body.byteLength) } : {}) },
    });
    if (body) request.body = body;
    // SignatureV4 signs a copy, made with HttpRequest.clone: an HttpRequest, typed as the interface.
    const signed = (await s3Signer(await db.config.credentials(), true).sign(request)) as HttpRequest;
    let response: ObjectResponse;
    try {
      const answer = (await http().handle(signed)).response;
      const answerBody = answer.body as Readable;
      // A response frees its keep-alive connection once read to the end, HEAD's empty one too.
      if (object.method === 'HEAD') answerBody.resume();
      response = {
        status: answer.statusCode,
        headers: answer.headers,
        body: object.method === 'HEAD' ? undefined : answerBody,
      };
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS) throw error;
      await backOff(attempt);
      continue;
    }
    if (response.status < 300) return response;
    const failure = await errorOf(object, response);
    if (attempt >= MAX_ATTEMPTS || !RETRYABLE_STATUSES.has(response.status)) throw failure;
    await backOff(attempt);
  }
}

const backOff = (attempt: number) =>
  sleep(Math.random() * Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt));

/** The error of a non-2xx answer, from S3's XML error document (`<Code>`, `<Message>`); HEAD's has none. */
async function errorOf(object: ObjectRequest, response: ObjectResponse): Promise<S3RequestError> {
  const text = response.body ? await readAtMost(response.body, 64 * 1024) : '';
  return errorOfDocument(object, response.status, text);
}

/** The text of an element of an S3 XML document (its first), its character references decoded. */
export function xmlField(document: string, name: string): string | undefined {
  const text = new RegExp(`<${name}>([^<]*)</${name}>`).exec(document)?.[1];
  return text?.replace(/&(quot|apos|lt|gt|amp);/g, (_, entity: string) => XML_ENTITIES[entity] ?? '');
}

const XML_ENTITIES: Record<string, string> = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' };

/** The error an S3 error document states (in a 2xx answer too: CompleteMultipartUpload may send one so). */
export function errorOfDocument(object: ObjectRequest, status: number, document: string): S3RequestError {
  const code = xmlField(document, 'Code') ?? (status === 404 ? 'NotFound' : `Http${status}`);
  const what = `${object.method} of object ${object.key}`;
  return new S3RequestError(
    code,
    status,
    `${what}: ${status} ${code}: ${xmlField(document, 'Message') ?? ''}`.trim(),
  );
}

/** The body's first `maxBytes` as text; the rest is discarded, and the connection freed. */
export async function readAtMost(body: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    if (length < maxBytes) chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** The prefix of user metadata headers (x-amz-meta-*), lower-case as the HTTP handler gives header names. */
const METADATA_PREFIX = 'x-amz-meta-';

/** GetObject of `key`: its answer, whose body the caller reads or destroys. */
const getObject = (key: string) => sendObjectRequest({ method: 'GET', key });

/** Content-Length as S3 sends it on a GET or HEAD. */
const contentLengthOf = (response: ObjectResponse) => Number(response.headers['content-length'] ?? 0);

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
  const response = await getObject(key);
  const body = response.body as Readable;
  const lastModified = Date.parse(response.headers['last-modified'] ?? '');
  if (Number.isNaN(lastModified)) {
    body.destroy();
    throw new Error(`object ${key} has no Last-Modified`);
  }
  if (contentLengthOf(response) > maxBytes) {
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
  await putObjectBytes(key, new TextEncoder().encode(body), 'application/json', {});
}

/** The object's bytes, refused with ObjectTooLargeError before its body is read when over `maxBytes`. */
export async function getObjectBytes(key: string, maxBytes: number): Promise<Uint8Array> {
  const response = await getObject(key);
  const body = response.body as Readable;
  const size = contentLengthOf(response);
  if (size > maxBytes) {
    body.destroy();
    throw new ObjectTooLargeError(key, size);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes `body` as the object, with user metadata (x-amz-meta-*: lower-case names, ASCII values). */
export async function putObjectBytes(
  key: string,
  body: Uint8Array,
  contentType: string,
  metadata: Record<string, string>,
): Promise<void> {
  const metadataHeaders = Object.entries(metadata).map(([name, value]) => [
    `${METADATA_PREFIX}${name}`,
    value,
  ]);
  await sendObjectRequest(
    {
      method: 'PUT',
      key,
      headers: { 'content-type': contentType, ...Object.fromEntries(metadataHeaders) },
    },
    body,
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
  try {
    const { headers } = await sendObjectRequest({ method: 'HEAD', key });
    const metadata = Object.entries(headers).flatMap(([name, value]) =>
      name.startsWith(METADATA_PREFIX) && value !== undefined
        ? [[name.slice(METADATA_PREFIX.length), value]]
        : [],
    );
    return Object.fromEntries(metadata);
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    throw error;
  }
}

/** Whether the object exists (HeadObject; S3 reads are strongly consistent, so a PUT that ended is seen). */
export async function objectExists(key: string): Promise<boolean> {
  try {
    await sendObjectRequest({ method: 'HEAD', key });
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
