/**
 * S3 (REST, path-style or virtual-hosted) through the proxy: signature, IAM, then fauxqs, with the body
 * streamed (multipart parts can be tens of MB). A body signed with its SHA-256 is hashed on the way
 * through; when it does not match, the upstream request is aborted before fauxqs stores anything and the
 * client gets S3's XAmzContentSHA256Mismatch.
 *
 * A PutObject or UploadPart that declares a CRC32 checksum (header, or query of a presigned URL, as SDK v3's
 * presigner adds one for an empty body unless told not to) has its plain body checked against it as S3
 * does: fauxqs stores without checking. Other checksum algorithms and aws-chunked trailers are not checked.
 *
 * Limits: fauxqs already refuses a CompleteMultipartUpload whose parts other than the last are under
 * 5 MiB (EntityTooSmall, node_modules/fauxqs/dist/s3/s3Store.js), as S3 does, so the proxy adds nothing.
 * Chunk signatures of STREAMING-AWS4-HMAC-SHA256-PAYLOAD bodies are not verified (the seed signature is).
 */
import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { s3Operation } from '../iam/s3-actions';
import { authenticationError, operationDenied, sendError } from './errors';
import { authorize, firstDenial, operationChecks, type SignedCall } from './principals';
import {
  createOnly,
  PRECONDITION_FAILED,
  writeConditionKeys,
  writeConditionOf,
} from './s3-conditional-writes';
import type { S3Notifications } from './s3-notifications';
import { UNSIGNED_PAYLOAD } from './sigv4';
import { endToEndHeaders, relay, type Upstream } from './upstream';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Bucket and key of a request: virtual-hosted (`<bucket>.<host>`) or path-style (`/<bucket>/<key>`). */
export function bucketAndKey(host: string, rawPath: string): { bucket: string; key: string } {
  const hostname = host.replace(/:\d+$/, '');
  const path = rawPath.replace(/^\//, '');
  const decode = (text: string) => decodeURIComponent(text);
  if (hostname.includes('.') && isIP(hostname) === 0) {
    return { bucket: hostname.slice(0, hostname.indexOf('.')), key: decode(path) };
  }
  const slash = path.indexOf('/');
  return slash < 0
    ? { bucket: decode(path), key: '' }
    : { bucket: decode(path.slice(0, slash)), key: decode(path.slice(slash + 1)) };
}

class PayloadMismatchError extends Error {}
class ChecksumMismatchError extends Error {}

/** What a request body must hash to: its signed SHA-256 (hex) and/or its declared CRC32 (base64). */
interface ExpectedBody {
  sha256?: string;
  crc32?: string;
}

/**
 * Passes the body through while hashing it, always holding back the latest chunk: fauxqs never has the
 * whole body (by its content length) until it is found to be the one signed and declared.
 */
class VerifyingStream extends Transform {
  private readonly hash: Hash | undefined;
  private crc = 0;
  private held: Buffer | undefined;
  constructor(private readonly expected: ExpectedBody) {
    super();
    this.hash = expected.sha256 ? createHash('sha256') : undefined;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash?.update(chunk);
    if (this.expected.crc32) this.crc = crc32(chunk, this.crc);
    const previous = this.held;
    this.held = chunk;
    callback(null, previous);
  }
  override _flush(callback: TransformCallback): void {
    if (this.hash && this.hash.digest('hex') !== this.expected.sha256) {
      callback(new PayloadMismatchError());
      return;
    }
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(this.crc >>> 0);
    if (this.expected.crc32 && crc.toString('base64') !== this.expected.crc32) {
      callback(new ChecksumMismatchError());
      return;
    }
    callback(null, this.held);
  }
}

/** The CRC32 a PutObject or UploadPart declares for its plain (not aws-chunked) body, if any. */
function declaredCrc32(call: SignedCall, operation: string, payloadHash: string): string | undefined {
  if (operation !== 'PutObject' && operation !== 'UploadPart') return undefined;
  if (payloadHash.startsWith('STREAMING-')) return undefined;
  const value = call.signing.presigned
    ? call.query['x-amz-checksum-crc32']
    : call.req.headers['x-amz-checksum-crc32'];
  return typeof value === 'string' ? value : undefined;
}

export async function handleS3(
  call: SignedCall,
  upstream: Upstream,
  notifications: S3Notifications,
): Promise<void> {
  const { req, res } = call;
  const isHead = req.method === 'HEAD';
  const declared = call.signing.presigned
    ? String(call.query['X-Amz-Content-Sha256'] ?? UNSIGNED_PAYLOAD)
    : req.headers['x-amz-content-sha256'];
  if (typeof declared !== 'string') {
    sendError(
      res,
      's3',
      {
        status: 400,
        type: 'InvalidRequest',
        message: 'Missing required header for this request: x-amz-content-sha256',
      },
      isHead,
    );
    return;
  }
  if (!(await call.signatureMatches(declared))) {
    sendError(res, 's3', authenticationError('s3', { kind: 'badSignature' }), isHead);
    return;
  }
  const { bucket, key } = bucketAndKey(String(req.headers.host ?? ''), call.rawPath);
  const operation = operationChecks(
    's3',
    call,
    () =>
      s3Operation({
        method: req.method ?? 'GET',
        bucket,
        key,
        query: new URLSearchParams(call.rawQuery),
        headers: req.headers,
      }),
    { unchecked: { operation: 'unknown', checks: [] } },
  );
  const conditionKeys = writeConditionKeys(operation?.operation ?? '', req.headers);
  if (!operation || !authorize('s3', call, operation.checks, conditionKeys)) return;
  const crc32Declared = declaredCrc32(call, operation.operation, declared);
  const condition = writeConditionOf(operation.operation, req.headers);
  if (condition.kind === 'refused') {
    req.resume();
    sendError(res, 's3', condition.error);
    return;
  }
  const store = () =>
    storeObject(call, upstream, notifications, { operation, bucket, key, declared, crc32Declared });
  if (condition.kind === 'unconditional') {
    await store();
    return;
  }
  const path = (req.url ?? '/').split('?')[0] as string;
  if ((await createOnly(upstream, { bucket, key, path, host: req.headers.host }, store)) === 'exists') {
    req.resume();
    sendError(res, 's3', PRECONDITION_FAILED);
  }
}

/** Passes a request on to fauxqs (a large PutObject in parts), checking its body as S3 does, and answers it. */
async function storeObject(
  call: SignedCall,
  upstream: Upstream,
  notifications: S3Notifications,
  target: {
    operation: { operation: string };
    bucket: string;
    key: string;
    declared: string;
    crc32Declared: string | undefined;
  },
): Promise<void> {
  const { req, res } = call;
  const { operation, bucket, key, declared, crc32Declared } = target;
  const isHead = req.method === 'HEAD';
  if (
    operation.operation === 'PutObject' &&
    Number(req.headers['content-length'] ?? 0) > EMULATOR_BODY_LIMIT
  ) {
    await putInParts(call, upstream, notifications, { bucket, key, declared, crc32Declared });
    return;
  }

  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = upstream.open(
      req.method ?? 'GET',
      req.url ?? '/',
      withStoredContentType(operation.operation, endToEndHeaders(req.headers)),
      resolve,
      reject,
    );
    const expected: ExpectedBody = {
      ...(SHA256_HEX.test(declared) && hasBody(req) ? { sha256: declared } : {}),
      ...(crc32Declared === undefined ? {} : { crc32: crc32Declared }),
    };
    const verifying = expected.sha256 !== undefined || expected.crc32 !== undefined;
    const stages = verifying ? [req, new VerifyingStream(expected), outgoing] : [req, outgoing];
    // A failed pipeline destroys the upstream request unfinished, so fauxqs stores nothing.
    pipeline(stages).catch((error: unknown) => {
      outgoing.destroy();
      reject(error);
    });
  });
  try {
    const upstreamResponse = await response;
    if (upstreamResponse.statusCode === 404 && missingObjectIsDenied(call, operation.operation, bucket)) {
      upstreamResponse.resume();
      sendError(res, 's3', operationDenied('s3', 'Access Denied'), isHead);
      return;
    }
    if (upstreamResponse.statusCode === 200) {
      await notifications.objectCreated(operation.operation, bucket, key, call.principal.arn);
    }
    const overrides = responseOverrides(operation.operation, upstreamResponse.statusCode, call.query);
    if (overrides) {
      res.writeHead(upstreamResponse.statusCode ?? 200, {
        ...endToEndHeaders(upstreamResponse.headers),
        ...overrides,
      });
      upstreamResponse.pipe(res);
      return;
    }
    relay(upstreamResponse, res);
  } catch (error) {
    if (error instanceof ChecksumMismatchError) {
      sendError(res, 's3', {
        status: 400,
        type: 'BadDigest',
        message: 'The CRC32 you specified did not match the calculated checksum.',
      });
      return;
    }
    if (!(error instanceof PayloadMismatchError)) throw error;
    sendError(res, 's3', {
      status: 400,
      type: 'XAmzContentSHA256Mismatch',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    });
  }
}

/** The response headers a GetObject's `response-*` query parameters set, each replacing the stored one. */
const RESPONSE_OVERRIDES = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-expires': 'expires',
  'response-cache-control': 'cache-control',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
} as const;

/**
 * What a successful GetObject or HeadObject answers in place of the object's stored headers, as S3 does for
 * its `response-*` query parameters (API Reference, GetObject, "Overriding response header values"); fauxqs
 * ignores them. Undefined when the request sets none.
 */
function responseOverrides(
  operation: string,
  status: number | undefined,
  query: Record<string, string | string[]>,
): Record<string, string> | undefined {
  if ((operation !== 'GetObject' && operation !== 'HeadObject') || (status !== 200 && status !== 206))
    return undefined;
  const overrides = Object.entries(RESPONSE_OVERRIDES).flatMap(([parameter, header]) => {
    const value = query[parameter];
    return typeof value === 'string' ? [[header, value] as const] : [];
  });
  return overrides.length ? Object.fromEntries(overrides) : undefined;
}

/**
 * Whether S3 answers this read of a missing key with 403 rather than 404: it answers 404 (NoSuchKey, or
 * HeadObject's bodiless 404) only to a caller that may list the bucket (s3:ListBucket on it), so that one who
 * may not cannot learn which keys exist (S3 API Reference, GetObject and HeadObject, "Permissions"). The
 * service's functions may not list the bucket: on AWS they get the 403.
 */
function missingObjectIsDenied(call: SignedCall, operation: string, bucket: string): boolean {
  if (operation !== 'GetObject' && operation !== 'HeadObject') return false;
  const listBucket = { action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}` };
  return firstDenial(call.principal, [listBucket], call.scope.region) !== undefined;
}

/**
 * The largest request body fauxqs reads (11 MiB, its `bodyLimit`, less a margin). One PutObject on S3 may carry
 * 5 GB: a larger body is stored through a multipart upload instead, so a request valid on AWS never fails here.
 */
const EMULATOR_BODY_LIMIT = 10 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;

/** Stores a PutObject body larger than fauxqs takes as a multipart upload of it, answering as S3's PutObject. */
async function putInParts(
  call: SignedCall,
  upstream: Upstream,
  notifications: S3Notifications,
  target: { bucket: string; key: string; declared: string; crc32Declared: string | undefined },
): Promise<void> {
  const { req, res } = call;
  const expected: ExpectedBody = {
    ...(SHA256_HEX.test(target.declared) ? { sha256: target.declared } : {}),
    ...(target.crc32Declared === undefined ? {} : { crc32: target.crc32Declared }),
  };
  const chunks: Buffer[] = [];
  try {
    const verify = new VerifyingStream(expected);
    verify.on('data', (chunk: Buffer) => chunks.push(chunk));
    await pipeline(req, verify);
  } catch (error) {
    if (error instanceof ChecksumMismatchError || error instanceof PayloadMismatchError) {
      sendError(res, 's3', {
        status: 400,
        type: error instanceof ChecksumMismatchError ? 'BadDigest' : 'XAmzContentSHA256Mismatch',
        message: error.message,
      });
      return;
    }
    throw error;
  }
  const body = Buffer.concat(chunks);
  const path = (req.url ?? '/').split('?')[0] as string;
  const contentType = req.headers['content-type'];
  const created = await upstream.send(
    'POST',
    `${path}?uploads`,
    contentType ? { 'content-type': contentType } : {},
  );
  const uploadId = (await text(created)).match(/<UploadId>([^<]+)<\/UploadId>/)?.[1];
  if (created.statusCode !== 200 || !uploadId)
    throw new Error(`fauxqs refused CreateMultipartUpload for ${path}`);
  const parts: string[] = [];
  for (let offset = 0, number = 1; offset < body.length; offset += PART_BYTES, number++) {
    const part = await upstream.send(
      'PUT',
      `${path}?partNumber=${number}&uploadId=${encodeURIComponent(uploadId)}`,
      {},
      body.subarray(offset, offset + PART_BYTES),
    );
    await text(part);
    if (part.statusCode !== 200) throw new Error(`fauxqs refused part ${number} of ${path}`);
    parts.push(`<Part><PartNumber>${number}</PartNumber><ETag>${part.headers.etag}</ETag></Part>`);
  }
  const completed = await upstream.send(
    'POST',
    `${path}?uploadId=${encodeURIComponent(uploadId)}`,
    { 'content-type': 'application/xml' },
    Buffer.from(`<CompleteMultipartUpload>${parts.join('')}</CompleteMultipartUpload>`),
  );
  const etag = (await text(completed)).match(/<ETag>([^<]+)<\/ETag>/)?.[1];
  if (completed.statusCode !== 200) throw new Error(`fauxqs refused CompleteMultipartUpload for ${path}`);
  await notifications.objectCreated('PutObject', target.bucket, target.key, call.principal.arn);
  res.writeHead(200, { ETag: (etag ?? '').replaceAll('&quot;', '"'), 'Content-Length': '0' });
  res.end();
}

async function text(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A body sent without a Content-Type is stored by S3 as `binary/octet-stream`. fauxqs (Fastify) reads a body
 * only when the request names a type, and answers a PUT with neither a type nor a body with a 500 where S3
 * stores the empty object: the proxy names S3's default type for it.
 */
function withStoredContentType(
  operation: string,
  headers: Record<string, string | string[]>,
): Record<string, string | string[]> {
  if (operation !== 'PutObject' && operation !== 'UploadPart') return headers;
  if (headers['content-type'] !== undefined) return headers;
  return { ...headers, 'content-type': 'binary/octet-stream' };
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
