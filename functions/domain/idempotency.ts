import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  type IdempotencyScope,
  idempotencyKeyKey,
  keepIdempotentAnswer,
  lockIdempotencyKey,
  releaseIdempotencyKey,
} from '../data/idempotency-keys';
import { REPLAYED_HEADER } from '../models/idempotency';
import { IdempotencyKeyInFlightError, IdempotencyKeyReusedError } from '../shared/errors';
import { IDEMPOTENCY_KEYS } from '../shared/limits';
import { logger } from '../shared/observability';

export type { IdempotencyScope };

/** A write sent with an Idempotency-Key. */
export interface KeyedRequest {
  scope: IdempotencyScope;
  /** The key as the client sent it (the Structured Field string's value). */
  key: string;
  /** What makes two requests the same one: their method, path, query and body (functions/api/idempotency-key.ts). */
  requestHash: string;
  /** Epoch ms the function may run until: past it, a request holding the key can no longer be running. */
  deadline: number;
}

/**
 * The answer to a keyed request, given once (IETF httpapi "The Idempotency-Key HTTP Header Field"): the first
 * request with a key of its scope is answered by `answer`, and for 24 hours its answer is replayed to the
 * same request with that key, marked with REPLAYED_HEADER. Another request with the key is refused with 422
 * (1010), and the same one while the first is still being processed with 409 (1011).
 *
 * Every answer under 500 is kept, refusals included (a 3005 is the request's outcome: sending it again
 * changes nothing); a 5xx is not, nor is an answer too large to store, so the key is freed and the request
 * may be sent again. Requests refused before they reach the use case (credentials, DC, malformed input) never
 * lock a key: `answer` is what runs after them.
 */
export async function answerOnce(
  request: KeyedRequest,
  answer: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  const now = Date.now();
  const key = idempotencyKeyKey(request.scope, request.key);
  const lockId = randomUUID();
  const held = await lockIdempotencyKey(key, {
    requestHash: request.requestHash,
    lockId,
    inFlightUntil: request.deadline,
    expiresAt: now + IDEMPOTENCY_KEYS.keptMs,
    now,
  });
  if (held) {
    if (held.requestHash !== request.requestHash) throw new IdempotencyKeyReusedError();
    if (held.state === 'IN_FLIGHT')
      throw new IdempotencyKeyInFlightError(Math.max(1, Math.ceil((held.inFlightUntil - now) / 1000)));
    logger.debug('idempotent answer replayed', { status_code: held.answer.statusCode });
    return {
      statusCode: held.answer.statusCode,
      headers: { ...held.answer.headers, [REPLAYED_HEADER]: 'true' },
      body: openAnswer(request.key, key, held.answer.body),
    };
  }

  let result: APIGatewayProxyResult;
  try {
    result = await answer();
  } catch (error) {
    await releaseIdempotencyKey(key, lockId);
    throw error;
  }
  await keep(request.key, key, lockId, result);
  return result;
}

type RecordKey = ReturnType<typeof idempotencyKeyKey>;

/**
 * The key that seals a kept answer: derived from the client's Idempotency-Key, which the table holds only as
 * its SHA-256, so an answer at rest (a webhook's signing secret, a driver's login token) is readable only
 * with the key its request was sent with (HKDF-SHA256, salted by the record's key).
 */
const sealingKey = (idempotencyKey: string, record: RecordKey) =>
  Buffer.from(hkdfSync('sha256', idempotencyKey, `${record.pk}\n${record.sk}`, 'idempotent answer', 32));

/** The answer's body gzipped and sealed (AES-256-GCM): IV, tag, ciphertext. */
function sealAnswer(idempotencyKey: string, record: RecordKey, body: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(idempotencyKey, record), iv);
  const sealed = Buffer.concat([cipher.update(gzipSync(body)), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function openAnswer(idempotencyKey: string, record: RecordKey, stored: Uint8Array): string {
  const bytes = Buffer.from(stored);
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(idempotencyKey, record), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return gunzipSync(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()])).toString('utf8');
}

/** Keeps the answer for replays, or frees the key when it is a 5xx or too large to keep. */
async function keep(
  idempotencyKey: string,
  key: RecordKey,
  lockId: string,
  result: APIGatewayProxyResult,
): Promise<void> {
  if (result.statusCode >= 500) return releaseIdempotencyKey(key, lockId);
  const body = sealAnswer(idempotencyKey, key, result.body);
  if (body.length > IDEMPOTENCY_KEYS.maxStoredAnswerBytes) {
    logger.warn('idempotent answer too large to keep', { bytes: body.length });
    return releaseIdempotencyKey(key, lockId);
  }
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  try {
    const kept = await keepIdempotentAnswer(
      key,
      lockId,
      { statusCode: result.statusCode, headers, body },
      Date.now() + IDEMPOTENCY_KEYS.keptMs,
    );
    if (!kept) logger.warn('idempotency key was taken over before its answer was kept');
  } catch (error) {
    // The request's work is done and its answer stands: the key stays in flight until the deadline, then
    // frees itself (a retry after that is processed again).
    logger.error('idempotent answer not kept', { error });
  }
}
