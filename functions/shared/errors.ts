import { ERROR_CODES, type ErrorCodeName } from './error-codes';
import { DRIVER_SIGN_IN_FAILURES, IDEMPOTENCY_KEYS } from './limits';
import { quote } from './quote';

/**
 * An error a client caused or may act on, by its code; the HTTP layer turns it into the error envelope, with
 * the code's HTTP status (or the one an endpoint answers that code with: functions/api/http-handler.ts).
 */
export class ApiError extends Error {
  readonly code: number;
  /** Response headers the refusal adds (a 429's Retry-After). */
  readonly headers: Readonly<Record<string, string>> = {};

  constructor(name: ErrorCodeName, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = ERROR_CODES[name].code;
  }
}

export class ValidationError extends ApiError {
  constructor(message: string) {
    super('VALIDATION_FAILED', message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class ForbiddenDcError extends ApiError {
  constructor(dcId: string) {
    super('DC_FORBIDDEN', `DC ${quote(dcId)} does not exist or is not in this account`);
  }
}

/** A 400 whose code says which rule the request broke (2000, 2001, 3005 ...). */
export class ConflictError extends ApiError {}

/**
 * 409 (3102): a revision of the route is being applied. The document promises every 409 a Retry-After; a
 * revision holds its lock for seconds, so two.
 */
export class RouteBeingRevisedError extends ApiError {
  override readonly headers = { 'Retry-After': '2' };

  constructor(routeId: string, revisionTxid: string) {
    super(
      'ROUTE_BEING_REVISED',
      `route ${quote(routeId)} is being revised (revision ${quote(revisionTxid)}); retry once it is in (Retry-After)`,
    );
  }
}

/** 401 on the driver app's paths: no token, an unknown or shared one, or a deleted driver's. */
export class InvalidDriverTokenError extends ApiError {
  constructor() {
    super(
      'INVALID_CREDENTIALS',
      'missing or invalid driver login token: send Authorization: Bearer <login_token>',
    );
  }
}

/**
 * 429 (1008) on the driver app's paths for a source address that presented too many unknown login tokens
 * (functions/domain/driver-auth.ts): refused until enough of them are older than two windows, which
 * Retry-After says in seconds.
 */
export class TooManyFailedSignInsError extends ApiError {
  override readonly headers: Readonly<Record<string, string>>;

  constructor(retryAfterSeconds: number) {
    super(
      'RATE_LIMITED',
      `too many unknown login tokens from this address: driver-app requests from it are refused for up to ${(2 * DRIVER_SIGN_IN_FAILURES.windowMs) / 60_000} minutes, here ${retryAfterSeconds} s more (Retry-After)`,
    );
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}

/** 422 (1010): the Idempotency-Key was already used for another request (functions/domain/idempotency.ts). */
export class IdempotencyKeyReusedError extends ApiError {
  constructor() {
    super(
      'IDEMPOTENCY_KEY_REUSED',
      `header.Idempotency-Key: already used in the last ${IDEMPOTENCY_KEYS.keptMs / 3_600_000} hours for another request (method, path, query or body); send a new key with a new request`,
    );
  }
}

/**
 * 409 (1011): the request that first sent the Idempotency-Key is still being processed. Retry-After is one
 * second (most answers are ready by then; asking again costs one conditional write); the message says when
 * the key is freed at the latest: the first request's function deadline.
 */
export class IdempotencyKeyInFlightError extends ApiError {
  override readonly headers = { 'Retry-After': '1' };

  constructor(secondsToDeadline: number) {
    super(
      'IDEMPOTENCY_KEY_IN_FLIGHT',
      `header.Idempotency-Key: a request with this key is still being processed; send it again once that one has answered (Retry-After), at the latest in ${secondsToDeadline} s`,
    );
  }
}

/**
 * 409 (3104): another optimization of the route is running (one at a time per route). Retry-After is a few
 * seconds, about what one takes; the message names it, for the caller to read it meanwhile.
 */
export class OptimizationRunningError extends ApiError {
  override readonly headers = { 'Retry-After': '5' };

  constructor(message: string) {
    super('OPTIMIZATION_RUNNING', message);
  }
}
