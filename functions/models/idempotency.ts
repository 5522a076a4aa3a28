/**
 * The headers of an idempotent write (docs/api.md §1): the request's key, as the IETF httpapi draft "The
 * Idempotency-Key HTTP Header Field" names it, and the mark of a replayed answer, as Stripe names it.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
