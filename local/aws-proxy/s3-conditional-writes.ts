/**
 * S3 conditional writes (If-None-Match: *), which fauxqs does not implement: it stores every PutObject and
 * CompleteMultipartUpload, replacing what the key held. As S3 does (S3 User Guide, "How to prevent object
 * overwrites with conditional writes"; API Reference, PutObject and CompleteMultipartUpload):
 * - `If-None-Match: *` writes only while the key holds no object; otherwise 412 PreconditionFailed, and the
 *   object stays as it was. Of conditional writes to one key at once, the first to finish wins and the others
 *   get 412 (here: they are decided one at a time per key, in arrival order).
 * - Any other If-None-Match value, and If-Match (S3 compares ETags; the local runtime does not), are answered
 *   501 NotImplemented: stricter than S3 for If-Match, never more lenient.
 * Multipart parts and their creation take no condition (S3 ignores none there: they do not accept the headers),
 * so only PutObject and CompleteMultipartUpload are conditional.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceError } from './errors';
import type { Upstream } from './upstream';

/** The operations whose If-None-Match S3 reads. */
const CONDITIONAL_OPERATIONS = new Set(['PutObject', 'CompleteMultipartUpload']);

/** What a write's headers ask: nothing, create only, or a condition this runtime answers with an error. */
export type WriteCondition =
  | { kind: 'unconditional' }
  | { kind: 'createOnly' }
  | { kind: 'refused'; error: ServiceError };

const NOT_IMPLEMENTED: ServiceError = {
  status: 501,
  type: 'NotImplemented',
  message: 'A header you provided implies functionality that is not implemented',
};

export const PRECONDITION_FAILED: ServiceError = {
  status: 412,
  type: 'PreconditionFailed',
  message: 'At least one of the pre-conditions you specified did not hold',
};

/** The condition a write's headers put on it. */
export function writeConditionOf(operation: string, headers: IncomingHttpHeaders): WriteCondition {
  if (!CONDITIONAL_OPERATIONS.has(operation)) return { kind: 'unconditional' };
  const ifNoneMatch = headers['if-none-match'];
  if (headers['if-match'] !== undefined) return { kind: 'refused', error: NOT_IMPLEMENTED };
  if (ifNoneMatch === undefined) return { kind: 'unconditional' };
  return ifNoneMatch.trim() === '*' ? { kind: 'createOnly' } : { kind: 'refused', error: NOT_IMPLEMENTED };
}

/** The IAM condition keys of a write (S3's `s3:if-none-match`), for the caller's policies. */
export function writeConditionKeys(operation: string, headers: IncomingHttpHeaders): Record<string, string> {
  const ifNoneMatch = headers['if-none-match'];
  return CONDITIONAL_OPERATIONS.has(operation) && ifNoneMatch !== undefined
    ? { 's3:if-none-match': ifNoneMatch }
    : {};
}

/** The create-only writes in flight, by bucket and key: each waits for the one before it. */
const inFlight = new Map<string, Promise<void>>();

/**
 * Runs `write` when the key holds no object, after every create-only write of the key that came before it
 * finished; 'exists' (nothing written) when the key holds one then. `path` is the request's own path (the
 * object's, path-style or virtual-hosted under `host`), which a HEAD to fauxqs answers 200 or 404.
 */
export async function createOnly<T>(
  upstream: Upstream,
  target: { bucket: string; key: string; path: string; host: string | undefined },
  write: () => Promise<T>,
): Promise<T | 'exists'> {
  const id = `${target.bucket}/${target.key}`;
  const before = inFlight.get(id) ?? Promise.resolve();
  let done = () => {};
  const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  inFlight.set(id, mine);
  try {
    await before;
    const head = await upstream.send('HEAD', target.path, target.host ? { host: target.host } : {});
    head.resume();
    if (head.statusCode === 200) return 'exists';
    if (head.statusCode !== 404)
      throw new Error(`fauxqs answered HEAD ${target.path} with ${head.statusCode}`);
    return await write();
  } finally {
    done();
    if (inFlight.get(id) === mine) inFlight.delete(id);
  }
}
