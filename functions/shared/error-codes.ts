/**
 * Every error code the service answers with. The spec's codes (2000, 3003, 3005, 3006, 3008, 3009, 6000)
 * keep their numbers; the rest are ours. Never reuse a number: clients switch on them.
 */
export const ERROR_CODES = {
  INTERNAL: {
    code: 1000,
    httpStatus: 500,
    meaning: 'internal error (generic message; the request id is logged)',
  },
  INVALID_CREDENTIALS: {
    code: 1001,
    httpStatus: 401,
    meaning: 'missing, malformed or unknown API key or driver token',
  },
  DC_FORBIDDEN: {
    code: 1002,
    httpStatus: 403,
    meaning: 'the DC does not exist or is not in the key’s account',
  },
  NOT_FOUND: { code: 1003, httpStatus: 404, meaning: 'resource not found' },
  BODY_TOO_LARGE: { code: 1004, httpStatus: 413, meaning: 'request body larger than the limit' },
  MALFORMED_JSON: { code: 1005, httpStatus: 400, meaning: 'request body is not valid JSON' },
  VALIDATION_FAILED: {
    code: 1006,
    httpStatus: 400,
    meaning: 'validation failed; the message names the field path',
  },
  UNKNOWN_ENDPOINT: { code: 1007, httpStatus: 404, meaning: 'no such endpoint or method' },
  RATE_LIMITED: {
    code: 1008,
    httpStatus: 429,
    meaning:
      'too many requests: the account’s request rate (usage plan), the endpoint’s own limit, the stage’s limit for all callers together, or unknown login tokens from the caller’s address',
  },
  ACCOUNT_NOT_ENABLED: {
    code: 1009,
    httpStatus: 403,
    meaning: 'the account has no usage key registered with the API’s usage plan (an operator registers it)',
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 1010,
    httpStatus: 422,
    meaning:
      'the Idempotency-Key was used within 24 hours for another request (method, path, query or body): use a new key for a new request',
  },
  IDEMPOTENCY_KEY_IN_FLIGHT: {
    code: 1011,
    httpStatus: 409,
    meaning: 'a request with the same Idempotency-Key is still being processed: retry once it has answered',
  },
  DRIVER_EXISTS: { code: 2000, httpStatus: 400, meaning: 'a driver with that id already exists in the DC' },
  DRIVER_HAS_ACTIVE_ROUTES: { code: 2001, httpStatus: 400, meaning: 'the driver still has active routes' },
  LOGIN_TOKEN_TAKEN: {
    code: 2002,
    httpStatus: 400,
    meaning: 'the login token is already in use (tokens are unique across the service); choose another',
  },
  ROUTE_NOT_FOUND: {
    code: 3003,
    httpStatus: 404,
    meaning: 'route not found in this DC (400 on the invoice status and accounting reads)',
  },
  IMPORT_NOT_FOUND: { code: 3004, httpStatus: 404, meaning: 'no route import with that txid in this DC' },
  ROUTE_ID_TAKEN: {
    code: 3005,
    httpStatus: 400,
    meaning: 'another route with the same id was already imported',
  },
  WAYPOINT_ID_TAKEN: { code: 3006, httpStatus: 400, meaning: 'another waypoint with the same id exists' },
  INVOICE_ID_TAKEN: { code: 3008, httpStatus: 400, meaning: 'another invoice with the same id exists' },
  ITEM_ID_TAKEN: { code: 3009, httpStatus: 400, meaning: 'another invoice item with the same id exists' },
  DRIVER_NOT_IN_DC: { code: 3010, httpStatus: 400, meaning: 'the driver_id is not a driver of this DC' },
  TRANSITION_NOT_ALLOWED: {
    code: 3011,
    httpStatus: 400,
    meaning: 'the route’s state does not allow this change',
  },
  ROUTE_FINALIZED: { code: 3012, httpStatus: 400, meaning: 'the route is already finished' },
  NOT_ON_ROUTE: { code: 3013, httpStatus: 400, meaning: 'the waypoint or item is not on this route' },
  ACCOUNTING_ID_TAKEN: {
    code: 3014,
    httpStatus: 400,
    meaning: 'the accounting record id is already used in the account',
  },
  UPLOAD_EXPIRED: {
    code: 3015,
    httpStatus: 400,
    meaning: 'the route upload did not arrive before its upload link expired',
  },
  IMPORT_ABANDONED: {
    code: 3016,
    httpStatus: 400,
    meaning:
      'the import was given up (its worker failed on every delivery, or it was still pending at its deadline); nothing of it was kept: send it again',
  },
  WAYPOINT_VISITED: {
    code: 3100,
    httpStatus: 400,
    meaning:
      'the waypoint was visited (it has an attempt): it, its invoices and items can no longer be removed or changed; once its visit is done (SUCCESSFUL or FAILED) it keeps its place in the route’s order',
  },
  WAYPOINT_ORDER_CHANGED: {
    code: 3101,
    httpStatus: 400,
    meaning:
      'a revision lists a new waypoint before a waypoint whose visit is done: new waypoints go after the visited ones',
  },
  ROUTE_BEING_REVISED: {
    code: 3102,
    httpStatus: 409,
    meaning: 'a revision of the route is being applied (seconds): retry the change once it is in',
  },
  REVISION_IMAGE_LOST: {
    code: 3103,
    httpStatus: 400,
    meaning:
      'a revision could not be rolled back: what it replaced is no longer kept and some of its rows may be written; the route stays locked (3102) until an operator sees to it (docs/operations.md)',
  },
  OPTIMIZATION_RUNNING: {
    code: 3104,
    httpStatus: 409,
    meaning: 'an optimization of the route is running (one at a time per route): read it, then ask again',
  },
  OPTIMIZATION_ABANDONED: {
    code: 3105,
    httpStatus: 400,
    meaning:
      'the optimization could not finish (its worker failed on every delivery, or it was still pending at its deadline); nothing was applied: ask again',
  },
  ROUTE_CHANGED_SINCE_OPTIMIZED: {
    code: 3106,
    httpStatus: 409,
    meaning:
      'the route changed after its optimization read it (a visit, a revision, another order): the optimization’s order was not applied; optimize again',
  },
  REVISION_SUPERSEDED: {
    code: 3107,
    httpStatus: 400,
    meaning:
      'a revision of the route accepted after this one was applied first: this one was not applied, so that it cannot revert the newer one',
  },
  WEBHOOK_URL_INVALID: {
    code: 4001,
    httpStatus: 400,
    meaning: 'the webhook URL is not a fully formed http(s) URL without credentials',
  },
  UNKNOWN_EVENT_TYPE: { code: 4002, httpStatus: 400, meaning: 'an event type that does not exist' },
  WEBHOOK_DC_FORBIDDEN: { code: 4003, httpStatus: 400, meaning: 'a DC of the webhook is not in the account' },
  WEBHOOK_LIMIT_REACHED: {
    code: 4004,
    httpStatus: 400,
    meaning: 'the account already has as many webhooks as it may (20 by default); delete one first',
  },
  WEBHOOK_DUPLICATE: {
    code: 4005,
    httpStatus: 400,
    meaning: 'another webhook of the account already sends one of these event types to the same URL',
  },
  WEBHOOK_DELIVERY_PENDING: {
    code: 4010,
    httpStatus: 400,
    meaning: 'the delivery is still being retried on its schedule: redeliver it once it has ended',
  },
  WEBHOOK_DISABLED: {
    code: 4011,
    httpStatus: 400,
    meaning: 'the webhook is disabled: enable it before redelivering',
  },
  DOWNLOAD_NOT_FOUND: {
    code: 6000,
    httpStatus: 400,
    meaning: 'no download request with that txid in the account (unknown, expired or failed)',
  },
  INVALID_DATE: { code: 6001, httpStatus: 400, meaning: 'a date that is not a YYYY-MM-DD calendar date' },
  DATE_RANGE_REVERSED: { code: 6002, httpStatus: 400, meaning: 'from_date is after to_date' },
  DATE_RANGE_TOO_LONG: { code: 6003, httpStatus: 400, meaning: 'the date range is longer than 92 days' },
  UNKNOWN_ANALYTICS_TYPE: { code: 6004, httpStatus: 400, meaning: 'an analytics type that does not exist' },
  EMPTY_DC_IDS: { code: 6005, httpStatus: 400, meaning: 'dc_ids is empty' },
  TRACKING_LINK_NOT_FOUND: {
    code: 7000,
    httpStatus: 404,
    meaning: 'no waypoint has this tracking link (never had, or its route was deleted)',
  },
  TRACKING_LINK_EXPIRED: {
    code: 7001,
    httpStatus: 410,
    meaning: 'the tracking link expired: 24 hours after its waypoint was done or its route finished',
  },
  UNSUBSCRIBE_LINK_NOT_FOUND: {
    code: 7002,
    httpStatus: 404,
    meaning:
      'the unsubscribe link’s address key names no email address of its stop (mistyped, or the stop’s email changed since)',
  },
  FEED_CURSOR_INVALID: {
    code: 8000,
    httpStatus: 400,
    meaning: 'the `after` cursor is not one this account’s event feed gave (changed, or another account’s)',
  },
  FEED_CURSOR_EXPIRED: {
    code: 8001,
    httpStatus: 410,
    meaning:
      'the `after` cursor is older than the event feed keeps events (30 days): events after it may be gone; read from the oldest kept (no `after`)',
  },
  PROOF_LIMIT_REACHED: {
    code: 9000,
    httpStatus: 400,
    meaning: 'the waypoint already has as many proofs as it may (50)',
  },
  PROOF_NOT_ON_WAYPOINT: {
    code: 9001,
    httpStatus: 400,
    meaning: 'a proof the attempt names is not a proof of this waypoint',
  },
  PROOF_NOT_AVAILABLE: {
    code: 9002,
    httpStatus: 400,
    meaning:
      'a proof the attempt names is not AVAILABLE (its upload has not arrived, or was rejected) or another attempt names it',
  },
  REQUIRED_PHOTOS_MISSING: {
    code: 9100,
    httpStatus: 400,
    meaning: 'the stop requires PHOTO proofs (`requirements.photos`) the attempt does not name',
  },
  REQUIRED_SIGNATURE_MISSING: {
    code: 9101,
    httpStatus: 400,
    meaning:
      'the stop requires a SIGNATURE proof and the signer’s name (`requirements.signature`); the attempt lacks one',
  },
  REQUIRED_SCANS_MISSING: {
    code: 9102,
    httpStatus: 400,
    meaning:
      'the stop requires every delivered item scanned (`requirements.scan_items`); no scan matches a barcode of the items named',
  },
  REQUIRED_PIN_MISSING: {
    code: 9103,
    httpStatus: 400,
    meaning: 'the stop requires the customer’s PIN (`requirements.pin`); the attempt sends no `pin`',
  },
  PIN_WRONG: {
    code: 9104,
    httpStatus: 400,
    meaning:
      'the `pin` is not the stop’s code; the message says how many tries are left before the stop’s PIN check locks',
  },
  PIN_CHECK_LOCKED: {
    code: 9105,
    httpStatus: 409,
    meaning:
      'the stop’s PIN check is locked after 5 wrong codes: no visit may deliver there until the dispatcher resets its PIN (`POST .../waypoints/{waypoint_id}/reset-pin`)',
  },
  REQUIRED_AGE_CHECK_MISSING: {
    code: 9106,
    httpStatus: 400,
    meaning:
      'the stop requires the recipient’s ID checked (`requirements.minimum_age`); the attempt sends no `age_check`',
  },
  RECIPIENT_UNDER_MINIMUM_AGE: {
    code: 9107,
    httpStatus: 400,
    meaning:
      'the recipient is younger than the stop’s `minimum_age` on the day of the attempt (in the DC’s time zone)',
  },
  PIN_NOT_REQUIRED: {
    code: 9108,
    httpStatus: 409,
    meaning: 'the waypoint requires no PIN (`requirements.pin` is false), so it has none to reset',
  },
} as const satisfies Record<string, { code: number; httpStatus: number; meaning: string }>;

export type ErrorCodeName = keyof typeof ERROR_CODES;

/** The name of a code, for errors stored by number (a failed import's code). */
/** The HTTP status a code is answered with, unless an endpoint says otherwise (EndpointDefinition.errorStatuses). */
export function httpStatusOfCode(code: number): number {
  return ERROR_CODES[errorCodeName(code)].httpStatus;
}

export function errorCodeName(code: number): ErrorCodeName {
  const names = Object.keys(ERROR_CODES) as ErrorCodeName[];
  return names.find((name) => ERROR_CODES[name].code === code) ?? 'INTERNAL';
}
