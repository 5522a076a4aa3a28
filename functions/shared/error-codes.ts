/**
 * Every error code the service answers with, and its HTTP status; what each means is in error-meanings.ts.
 * The spec's codes (2000, 3003, 3005, 3006, 3008, 3009, 6000) keep their numbers; the rest are ours. Never
 * reuse a number: clients switch on them.
 */
export const ERROR_CODES = {
  INTERNAL: { code: 1000, httpStatus: 500 },
  INVALID_CREDENTIALS: { code: 1001, httpStatus: 401 },
  DC_FORBIDDEN: { code: 1002, httpStatus: 403 },
  NOT_FOUND: { code: 1003, httpStatus: 404 },
  BODY_TOO_LARGE: { code: 1004, httpStatus: 413 },
  MALFORMED_JSON: { code: 1005, httpStatus: 400 },
  VALIDATION_FAILED: { code: 1006, httpStatus: 400 },
  UNKNOWN_ENDPOINT: { code: 1007, httpStatus: 404 },
  RATE_LIMITED: { code: 1008, httpStatus: 429 },
  ACCOUNT_NOT_ENABLED: { code: 1009, httpStatus: 403 },
  IDEMPOTENCY_KEY_REUSED: { code: 1010, httpStatus: 422 },
  IDEMPOTENCY_KEY_IN_FLIGHT: { code: 1011, httpStatus: 409 },
  DRIVER_EXISTS: { code: 2000, httpStatus: 400 },
  DRIVER_HAS_ACTIVE_ROUTES: { code: 2001, httpStatus: 400 },
  LOGIN_TOKEN_TAKEN: { code: 2002, httpStatus: 400 },
  ROUTE_NOT_FOUND: { code: 3003, httpStatus: 404 },
  IMPORT_NOT_FOUND: { code: 3004, httpStatus: 404 },
  ROUTE_ID_TAKEN: { code: 3005, httpStatus: 400 },
  WAYPOINT_ID_TAKEN: { code: 3006, httpStatus: 400 },
  INVOICE_ID_TAKEN: { code: 3008, httpStatus: 400 },
  ITEM_ID_TAKEN: { code: 3009, httpStatus: 400 },
  DRIVER_NOT_IN_DC: { code: 3010, httpStatus: 400 },
  TRANSITION_NOT_ALLOWED: { code: 3011, httpStatus: 400 },
  ROUTE_FINALIZED: { code: 3012, httpStatus: 400 },
  NOT_ON_ROUTE: { code: 3013, httpStatus: 400 },
  ACCOUNTING_ID_TAKEN: { code: 3014, httpStatus: 400 },
  UPLOAD_EXPIRED: { code: 3015, httpStatus: 400 },
  IMPORT_ABANDONED: { code: 3016, httpStatus: 400 },
  WAYPOINT_VISITED: { code: 3100, httpStatus: 400 },
  WAYPOINT_ORDER_CHANGED: { code: 3101, httpStatus: 400 },
  ROUTE_BEING_REVISED: { code: 3102, httpStatus: 409 },
  REVISION_IMAGE_LOST: { code: 3103, httpStatus: 400 },
  OPTIMIZATION_RUNNING: { code: 3104, httpStatus: 409 },
  OPTIMIZATION_ABANDONED: { code: 3105, httpStatus: 400 },
  ROUTE_CHANGED_SINCE_OPTIMIZED: { code: 3106, httpStatus: 409 },
  REVISION_SUPERSEDED: { code: 3107, httpStatus: 400 },
  WEBHOOK_URL_INVALID: { code: 4001, httpStatus: 400 },
  UNKNOWN_EVENT_TYPE: { code: 4002, httpStatus: 400 },
  WEBHOOK_DC_FORBIDDEN: { code: 4003, httpStatus: 400 },
  WEBHOOK_LIMIT_REACHED: { code: 4004, httpStatus: 400 },
  WEBHOOK_DUPLICATE: { code: 4005, httpStatus: 400 },
  WEBHOOK_DELIVERY_PENDING: { code: 4010, httpStatus: 400 },
  WEBHOOK_DISABLED: { code: 4011, httpStatus: 400 },
  DOWNLOAD_NOT_FOUND: { code: 6000, httpStatus: 400 },
  INVALID_DATE: { code: 6001, httpStatus: 400 },
  DATE_RANGE_REVERSED: { code: 6002, httpStatus: 400 },
  DATE_RANGE_TOO_LONG: { code: 6003, httpStatus: 400 },
  UNKNOWN_ANALYTICS_TYPE: { code: 6004, httpStatus: 400 },
  EMPTY_DC_IDS: { code: 6005, httpStatus: 400 },
  TRACKING_LINK_NOT_FOUND: { code: 7000, httpStatus: 404 },
  TRACKING_LINK_EXPIRED: { code: 7001, httpStatus: 410 },
  UNSUBSCRIBE_LINK_NOT_FOUND: { code: 7002, httpStatus: 404 },
  FEED_CURSOR_INVALID: { code: 8000, httpStatus: 400 },
  FEED_CURSOR_EXPIRED: { code: 8001, httpStatus: 410 },
  PROOF_LIMIT_REACHED: { code: 9000, httpStatus: 400 },
  PROOF_NOT_ON_WAYPOINT: { code: 9001, httpStatus: 400 },
  PROOF_NOT_AVAILABLE: { code: 9002, httpStatus: 400 },
  REQUIRED_PHOTOS_MISSING: { code: 9100, httpStatus: 400 },
  REQUIRED_SIGNATURE_MISSING: { code: 9101, httpStatus: 400 },
  REQUIRED_SCANS_MISSING: { code: 9102, httpStatus: 400 },
  REQUIRED_PIN_MISSING: { code: 9103, httpStatus: 400 },
  PIN_WRONG: { code: 9104, httpStatus: 400 },
  PIN_CHECK_LOCKED: { code: 9105, httpStatus: 409 },
  REQUIRED_AGE_CHECK_MISSING: { code: 9106, httpStatus: 400 },
  RECIPIENT_UNDER_MINIMUM_AGE: { code: 9107, httpStatus: 400 },
  PIN_NOT_REQUIRED: { code: 9108, httpStatus: 409 },
} as const satisfies Record<string, { code: number; httpStatus: number }>;

export type ErrorCodeName = keyof typeof ERROR_CODES;

/** The HTTP status a code is answered with, unless an endpoint says otherwise (EndpointDefinition.errorStatuses). */
export function httpStatusOfCode(code: number): number {
  return ERROR_CODES[errorCodeName(code)].httpStatus;
}

/** The name of a code, for errors stored by number (a failed import's code). */
export function errorCodeName(code: number): ErrorCodeName {
  const names = Object.keys(ERROR_CODES) as ErrorCodeName[];
  return names.find((name) => ERROR_CODES[name].code === code) ?? 'INTERNAL';
}
