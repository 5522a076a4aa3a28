import type { ErrorCodeName } from './error-codes';

/**
 * What each error code means (functions/shared/error-codes.ts), for the OpenAPI document and docs/api.md's
 * table. Apart from the codes so that the functions, which answer with a code and its status, do not carry
 * (or parse at every cold start) text only the documentation reads; the type asks for every code's meaning.
 */
export const ERROR_MEANINGS: Record<ErrorCodeName, string> = {
  INTERNAL: 'internal error (generic message; the request id is logged)',
  INVALID_CREDENTIALS: 'missing, malformed or unknown API key or driver token',
  DC_FORBIDDEN: 'the DC does not exist or is not in the key’s account',
  NOT_FOUND: 'resource not found',
  BODY_TOO_LARGE: 'request body larger than the limit',
  MALFORMED_JSON: 'request body is not valid JSON',
  VALIDATION_FAILED: 'validation failed; the message names the field path',
  UNKNOWN_ENDPOINT: 'no such endpoint or method',
  RATE_LIMITED:
    'too many requests: the account’s request rate (usage plan), the endpoint’s own limit, the stage’s limit for all callers together, or unknown login tokens from the caller’s address',
  ACCOUNT_NOT_ENABLED:
    'the account has no usage key registered with the API’s usage plan (an operator registers it)',
  IDEMPOTENCY_KEY_REUSED:
    'the Idempotency-Key was used within 24 hours for another request (method, path, query or body): use a new key for a new request',
  IDEMPOTENCY_KEY_IN_FLIGHT:
    'a request with the same Idempotency-Key is still being processed: retry once it has answered',
  DRIVER_EXISTS: 'a driver with that id already exists in the DC',
  DRIVER_HAS_ACTIVE_ROUTES: 'the driver still has active routes',
  LOGIN_TOKEN_TAKEN:
    'the login token is already in use (tokens are unique across the service); choose another',
  ROUTE_NOT_FOUND: 'route not found in this DC (400 on the invoice status and accounting reads)',
  IMPORT_NOT_FOUND: 'no route import with that txid in this DC',
  ROUTE_ID_TAKEN: 'another route with the same id was already imported',
  WAYPOINT_ID_TAKEN: 'another waypoint with the same id exists',
  INVOICE_ID_TAKEN: 'another invoice with the same id exists',
  ITEM_ID_TAKEN: 'another invoice item with the same id exists',
  DRIVER_NOT_IN_DC: 'the driver_id is not a driver of this DC',
  TRANSITION_NOT_ALLOWED: 'the route’s state does not allow this change',
  ROUTE_FINALIZED: 'the route is already finished',
  NOT_ON_ROUTE: 'the waypoint or item is not on this route',
  ACCOUNTING_ID_TAKEN: 'the accounting record id is already used in the account',
  UPLOAD_EXPIRED: 'the route upload did not arrive before its upload link expired',
  IMPORT_ABANDONED:
    'the import was given up (its worker failed on every delivery, or it was still pending at its deadline); nothing of it was kept: send it again',
  WAYPOINT_VISITED:
    'the waypoint was visited (it has an attempt): it, its invoices and items can no longer be removed or changed; once its visit is done (SUCCESSFUL or FAILED) it keeps its place in the route’s order',
  WAYPOINT_ORDER_CHANGED:
    'a revision lists a new waypoint before a waypoint whose visit is done: new waypoints go after the visited ones',
  ROUTE_BEING_REVISED: 'a revision of the route is being applied (seconds): retry the change once it is in',
  REVISION_IMAGE_LOST:
    'a revision could not be rolled back: what it replaced is no longer kept and some of its rows may be written; the route stays locked (3102) until an operator sees to it (docs/operations.md)',
  OPTIMIZATION_RUNNING:
    'an optimization of the route is running (one at a time per route): read it, then ask again',
  OPTIMIZATION_ABANDONED:
    'the optimization could not finish (its worker failed on every delivery, or it was still pending at its deadline); nothing was applied: ask again',
  ROUTE_CHANGED_SINCE_OPTIMIZED:
    'the route changed after its optimization read it (a visit, a revision, another order): the optimization’s order was not applied; optimize again',
  REVISION_SUPERSEDED:
    'a revision of the route accepted after this one was applied first: this one was not applied, so that it cannot revert the newer one',
  WEBHOOK_URL_INVALID: 'the webhook URL is not a fully formed http(s) URL without credentials',
  UNKNOWN_EVENT_TYPE: 'an event type that does not exist',
  WEBHOOK_DC_FORBIDDEN: 'a DC of the webhook is not in the account',
  WEBHOOK_LIMIT_REACHED:
    'the account already has as many webhooks as it may (20 by default); delete one first',
  WEBHOOK_DUPLICATE: 'another webhook of the account already sends one of these event types to the same URL',
  WEBHOOK_DELIVERY_PENDING:
    'the delivery is still being retried on its schedule: redeliver it once it has ended',
  WEBHOOK_DISABLED: 'the webhook is disabled: enable it before redelivering',
  DOWNLOAD_NOT_FOUND: 'no download request with that txid in the account (unknown, expired or failed)',
  INVALID_DATE: 'a date that is not a YYYY-MM-DD calendar date',
  DATE_RANGE_REVERSED: 'from_date is after to_date',
  DATE_RANGE_TOO_LONG: 'the date range is longer than 92 days',
  UNKNOWN_ANALYTICS_TYPE: 'an analytics type that does not exist',
  EMPTY_DC_IDS: 'dc_ids is empty',
  TRACKING_LINK_NOT_FOUND: 'no waypoint has this tracking link (never had, or its route was deleted)',
  TRACKING_LINK_EXPIRED:
    'the tracking link expired: 24 hours after its waypoint was done or its route finished',
  UNSUBSCRIBE_LINK_NOT_FOUND:
    'the unsubscribe link’s address key names no email address of its stop (mistyped, or the stop’s email changed since)',
  FEED_CURSOR_INVALID:
    'the `after` cursor is not one this account’s event feed gave (changed, or another account’s)',
  FEED_CURSOR_EXPIRED:
    'the `after` cursor is older than the event feed keeps events (30 days): events after it may be gone; read from the oldest kept (no `after`)',
  PROOF_LIMIT_REACHED: 'the waypoint already has as many proofs as it may (50)',
  PROOF_NOT_ON_WAYPOINT: 'a proof the attempt names is not a proof of this waypoint',
  PROOF_NOT_AVAILABLE:
    'a proof the attempt names is not AVAILABLE (its upload has not arrived, or was rejected) or another attempt names it',
  REQUIRED_PHOTOS_MISSING: 'the stop requires PHOTO proofs (`requirements.photos`) the attempt does not name',
  REQUIRED_SIGNATURE_MISSING:
    'the stop requires a SIGNATURE proof and the signer’s name (`requirements.signature`); the attempt lacks one',
  REQUIRED_SCANS_MISSING:
    'the stop requires every delivered item scanned (`requirements.scan_items`); no scan matches a barcode of the items named',
  REQUIRED_PIN_MISSING:
    'the stop requires the customer’s PIN (`requirements.pin`); the attempt sends no `pin`',
  PIN_WRONG:
    'the `pin` is not the stop’s code; the message says how many tries are left before the stop’s PIN check locks',
  PIN_CHECK_LOCKED:
    'the stop’s PIN check is locked after 5 wrong codes: no visit may deliver there until the dispatcher resets its PIN (`POST .../waypoints/{waypoint_id}/reset-pin`)',
  REQUIRED_AGE_CHECK_MISSING:
    'the stop requires the recipient’s ID checked (`requirements.minimum_age`); the attempt sends no `age_check`',
  RECIPIENT_UNDER_MINIMUM_AGE:
    'the recipient is younger than the stop’s `minimum_age` on the day of the attempt (in the DC’s time zone)',
  PIN_NOT_REQUIRED: 'the waypoint requires no PIN (`requirements.pin` is false), so it has none to reset',
};
