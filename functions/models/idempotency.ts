import { IDEMPOTENCY_KEYS } from '../shared/limits';

/**
 * The headers of an idempotent write (docs/api.md §1): the request's key, as the IETF httpapi draft "The
 * Idempotency-Key HTTP Header Field" names it, and the mark of a replayed answer, as Stripe names it.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The same, as header maps are searched (request-parsing.ts, headerValues). */
export const IDEMPOTENCY_HEADER_NAME = IDEMPOTENCY_KEY_HEADER.toLowerCase();
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const MAX = IDEMPOTENCY_KEYS.maxKeyLength;

/**
 * A key sent bare, as most clients send it (Stripe's libraries do): visible ASCII but the characters that
 * would make it a Structured Field string (`"`, `\`), a list (`,`) or parameters (`;`).
 */
export const BARE_IDEMPOTENCY_KEY = `[\\x21\\x23-\\x2B\\x2D-\\x3A\\x3C-\\x5B\\x5D-\\x7E]{1,${MAX}}`;

/** A key as the draft sends it, a Structured Field string (RFC 8941): printable ASCII in quotes, `"` and `\` escaped. */
const QUOTED_IDEMPOTENCY_KEY = `"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\["\\\\]){1,${MAX}}"`;

/** The header field as the API takes it: either form, denoting the same key (the OpenAPI parameter's pattern). */
export const IDEMPOTENCY_KEY_FIELD_PATTERN = `^(?:${BARE_IDEMPOTENCY_KEY}|${QUOTED_IDEMPOTENCY_KEY})$`;
