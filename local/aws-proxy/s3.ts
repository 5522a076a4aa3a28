/**
 * S3 (REST, path-style or virtual-hosted) through the proxy: signature, IAM, then fauxqs, with the body
 * streamed (multipart parts can be tens of MB). A body signed with its SHA-256 is hashed on the way
 * through; when it does not match, the upstream request is aborted before fauxqs stores anything and the
 * client gets S3's XAmzContentSHA256Mismatch.
 *
 * Limits: fauxqs already refuses a CompleteMultipartUpload whose parts other than the last are under
 * 5 MiB (EntityTooSmall, node_modules/fauxqs/dist/s3/s3Store.js), as S3 does, so the proxy adds nothing.
 * Chunk signatures of STREAMING-AWS4-HMAC-SHA256-PAYLOAD bodies are not verified (the seed signature is).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { s3Operation, UnknownOperationError } from '../iam/actions';
import { authenticationError, operationDenied, sendError } from './errors';
import { authorize, type SignedCall } from './principals';
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

/**
 * Passes the body through while hashing it, always holding back the latest chunk: fauxqs never has the
 * whole body (by its content length) until the hash is found to be the signed one.
 */
class VerifyingStream extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | undefined;
  constructor(private readonly expected: string) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    const previous = this.held;
    this.held = chunk;
    callback(null, previous);
  }
  override _flush(callback: TransformCallback): void {
    const actual = this.hash.digest('hex');
    if (actual !== this.expected) {
      callback(new PayloadMismatchError(actual));
      return;
    }
    callback(null, this.held);
  }
}

export async function handleS3(call: SignedCall, upstream: Upstream): Promise<void> {
  const { req, res } = call;
  const isHead = req.method === 'HEAD';
  const declared = call.claim.presigned
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
  if (!call.signatureMatches(declared)) {
    sendError(res, 's3', authenticationError('s3', { kind: 'badSignature' }), isHead);
    return;
  }
  const { bucket, key } = bucketAndKey(String(req.headers.host ?? ''), call.rawPath);
  let checks: ReturnType<typeof s3Operation>['checks'];
  try {
    checks = s3Operation({
      method: req.method ?? 'GET',
      bucket,
      key,
      query: new URLSearchParams(call.rawQuery),
      headers: req.headers,
    }).checks;
  } catch (error) {
    if (!(error instanceof UnknownOperationError)) throw error;
    if (call.principal.policies !== 'admin') {
      sendError(res, 's3', operationDenied('s3', error.message), isHead);
      return;
    }
    checks = [];
  }
  if (!authorize('s3', call, checks)) return;

  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = upstream.open(
      req.method ?? 'GET',
      req.url ?? '/',
      endToEndHeaders(req.headers),
      resolve,
      reject,
    );
    const verifying = SHA256_HEX.test(declared) && hasBody(req);
    const stages = verifying ? [req, new VerifyingStream(declared), outgoing] : [req, outgoing];
    // A failed pipeline destroys the upstream request unfinished, so fauxqs stores nothing.
    pipeline(stages).catch((error: unknown) => {
      outgoing.destroy();
      reject(error);
    });
  });
  try {
    relay(await response, res);
  } catch (error) {
    if (!(error instanceof PayloadMismatchError)) throw error;
    sendError(res, 's3', {
      status: 400,
      type: 'XAmzContentSHA256Mismatch',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    });
  }
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
