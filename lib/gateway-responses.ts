import { ERROR_CODES, type ErrorCodeName } from '../functions/shared/error-codes';

/**
 * What API Gateway answers on its own (before or instead of a Lambda), in the spec's envelope. CDK
 * installs these as gateway responses; the local server answers the same bodies in the same cases.
 */
export const GATEWAY_RESPONSES = {
  UNAUTHORIZED: {
    statusCode: 401,
    error: 'INVALID_CREDENTIALS',
    message: 'missing or invalid credentials: send Authorization: Bearer <key>',
  },
  ACCESS_DENIED: {
    statusCode: 401,
    error: 'INVALID_CREDENTIALS',
    message: 'these credentials are not valid for this endpoint',
  },
  // API Gateway answers an unknown path or method with 403 "Missing Authentication Token" (or, when an
  // Authorization header is present, an incomplete-signature 403); both mean "no such endpoint".
  MISSING_AUTHENTICATION_TOKEN: {
    statusCode: 404,
    error: 'UNKNOWN_ENDPOINT',
    message: 'no such endpoint or method',
  },
  INCOMPLETE_SIGNATURE: { statusCode: 404, error: 'UNKNOWN_ENDPOINT', message: 'no such endpoint or method' },
  REQUEST_TOO_LARGE: { statusCode: 413, error: 'BODY_TOO_LARGE', message: 'request body too large' },
  // A method that takes an account key needs the account's usage key (the authorizer's usageIdentifierKey)
  // in the API's usage plan; API Gateway answers 403 without one. An account is registered when it is made
  // (functions/domain/usage-keys.ts); this is an operator's fault, not the caller's key.
  INVALID_API_KEY: {
    statusCode: 403,
    error: 'ACCOUNT_NOT_ENABLED',
    message: 'this account is not enabled for API requests yet; ask the service operator',
  },
  // THROTTLED: the account's usage plan throttle, a method's own limit or the stage's; QUOTA_EXCEEDED: a
  // usage plan quota (none is set). Both say when to retry (Retry-After, throttledRetryAfterSeconds).
  THROTTLED: {
    statusCode: 429,
    error: 'RATE_LIMITED',
    message: 'too many requests; retry after the seconds Retry-After gives',
    retryAfter: true,
  },
  QUOTA_EXCEEDED: {
    statusCode: 429,
    error: 'RATE_LIMITED',
    message: 'too many requests; retry after the seconds Retry-After gives',
    retryAfter: true,
  },
  DEFAULT_4XX: { statusCode: undefined, error: 'VALIDATION_FAILED', message: 'invalid request' },
  DEFAULT_5XX: { statusCode: undefined, error: 'INTERNAL', message: 'internal error' },
} as const satisfies Record<
  string,
  { statusCode: number | undefined; error: ErrorCodeName; message: string; retryAfter?: true }
>;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

/**
 * The Retry-After of API Gateway's throttling answers, in whole seconds (RFC 9110 §10.2.3). A gateway response
 * is the API's, not a method's, and its headers are static: so the time the slowest token bucket of the stage
 * takes to refill one request, at least a second. Every throttle is a token bucket refilled continuously at
 * its rate, so one request more passes by then.
 */
export function throttledRetryAfterSeconds(ratesPerSecond: readonly number[]): number {
  return Math.max(1, Math.ceil(1 / Math.min(...ratesPerSecond)));
}

/** The headers of a gateway response, as its `responseParameters` values (static: quoted). */
export function gatewayResponseHeaders(
  type: GatewayResponseType,
  retryAfterSeconds: number,
): Record<string, string> {
  const retryAfter = 'retryAfter' in GATEWAY_RESPONSES[type];
  return {
    'Content-Type': "'application/json'",
    ...(retryAfter ? { 'Retry-After': `'${retryAfterSeconds}'` } : {}),
  };
}

/** The JSON body of a gateway response. */
export function gatewayResponseBody(type: GatewayResponseType): string {
  const { error, message } = GATEWAY_RESPONSES[type];
  return JSON.stringify({ status: 'error', data: { code: ERROR_CODES[error].code, message } });
}
