/**
 * Largest request body a handler accepts. On AWS a body reaches the handler only inside its invocation event,
 * which Lambda caps at 6 MB (6,291,456 bytes) with the body JSON-escaped and the headers beside it; bodies past
 * that get API Gateway's 500 before any code of ours runs. 5 MB leaves that headroom for plain JSON, so a body
 * just over the limit gets a clear 413 instead.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Largest route body an upload (POST .../invoiced-routes/uploads) may carry: 2,000 waypoints and 50,000 items
 * with long texts stay under it. A presigned PUT cannot bound the size it accepts (content-length-range is a
 * condition of POST policies only; one PUT may carry up to 5 GB), so the import worker refuses a larger object.
 */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/**
 * Bytes of rows a page of a list may hold, weighed by `proxyBytesOf`. Lambda caps the whole proxy result at
 * 6 MB (6,291,556 bytes of its JSON); besides the rows it holds the status, the Content-Type header, the
 * envelope and `next_token` (a few KB at most), so 4 MiB of rows leaves about 2 MB of headroom. A page ends
 * before the row that would pass it, but always holds its first row: a single row up to about 6 MB still
 * goes alone.
 */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

/**
 * What a row adds to the proxy result: its JSON and a comma, escaped once more inside the body string.
 * JSON.stringify leaves no control character or lone surrogate unescaped, so escaping its output again
 * doubles `"` and `\` only: at most 2 bytes for each byte (a `"` in a text: 1 byte, `\"` in the body,
 * `\\\"` in the proxy result).
 */
export function proxyBytesOf(row: unknown): number {
  return 2 * (Buffer.byteLength(JSON.stringify(row)) + 1);
}

/**
 * How many of `rows`, in order, fit `budget` bytes (PAGE_BYTE_BUDGET unless part of it is spent); never
 * fewer than `atLeast` (one by default), so that a page always makes progress.
 */
export function countWithinBudget<T>(
  rows: readonly T[],
  bytesOf: (row: T) => number,
  { budget = PAGE_BYTE_BUDGET, atLeast = 1 } = {},
): number {
  let total = 0;
  for (const [index, row] of rows.entries()) {
    total += bytesOf(row);
    if (total > budget && index >= atLeast) return index;
  }
  return rows.length;
}

/**
 * Per-account limits (docs/api.md §9), so one account cannot spend the capacity of all; each is configurable by
 * CDK context (docs/configuration.md).
 */
export const ACCOUNT_LIMITS = {
  /** Requests per second of one account on the account-key methods: the API's usage plan throttle. */
  throttlingRateLimit: 50,
  /** Requests one account may send at once (the usage plan's token bucket). */
  throttlingBurstLimit: 100,
  /** Webhooks an account may have at once, by default (MAX_WEBHOOKS_PER_ACCOUNT). */
  webhooks: 20,
  /**
   * Highest webhook limit the service takes: the fan-out reads an account's webhooks for every event, and
   * GET /webhooks returns them whole.
   */
  maxWebhooks: 1000,
} as const;

/** The most deliveries one window redelivery (POST /webhooks/{id}/redeliver-failed) queues a call. */
export const MAX_REDELIVERIES_PER_CALL = 100;

/** The most deliveries of the window one redelivery call reads. */
export const MAX_DELIVERIES_EXAMINED_PER_CALL = 1000;

/**
 * How hard a login token a client chooses must be to guess (docs/architecture.md, Decisions): at least
 * 2^128 guesses by zxcvbn's estimate (functions/domain/login-tokens.ts).
 */
export const LOGIN_TOKEN_MIN_BITS = 128;

/**
 * The shortest client-chosen login token: zxcvbn credits a character it recognises in no pattern 10 guesses
 * (its brute-force cardinality), its most, so no token shorter than this can reach LOGIN_TOKEN_MIN_BITS (39).
 */
export const LOGIN_TOKEN_MIN_LENGTH = Math.ceil(LOGIN_TOKEN_MIN_BITS / Math.log2(10));

/**
 * Failed driver-app sign-ins (docs/api.md §2): a source address that presented this many different unknown
 * login tokens within the current and the previous window gets 429 on every driver-app request until
 * enough of them are older than that. Different tokens, because a driver app whose token was revoked
 * repeats that one token: it counts once, however often it retries.
 */
export const DRIVER_SIGN_IN_FAILURES = { tokens: 50, windowMs: 15 * 60_000 } as const;

/**
 * Idempotency-Key (docs/api.md §1): how long a key's first answer is replayed, the longest key, and the
 * largest answer kept (gzipped; a DynamoDB item holds 400 KB, the record's other attributes a few hundred
 * bytes). An answer past that is not kept: the request may then be sent again, as without a key.
 */
export const IDEMPOTENCY_KEYS = {
  keptMs: 24 * 3_600_000,
  maxKeyLength: 255,
  maxStoredAnswerBytes: 350 * 1024,
} as const;

/**
 * Proofs of delivery: the most bytes one may have (a phone photo, downscaled by the app, is well under it),
 * the most a waypoint may have (a photo per parcel and a signature, with retakes), the most one attempt may
 * name (its transaction holds a write per proof), and how long an upload link works.
 */
export const PROOF_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  perWaypoint: 50,
  perAttempt: 20,
  uploadLinkSeconds: 15 * 60,
  /** How long a download link of a proof or a delivery note works. */
  downloadLinkSeconds: 10 * 60,
} as const;
