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
  RATE_LIMITED: { code: 1008, httpStatus: 429, meaning: 'too many requests' },
  DRIVER_EXISTS: { code: 2000, httpStatus: 400, meaning: 'a driver with that id already exists in the DC' },
  DRIVER_HAS_ACTIVE_ROUTES: { code: 2001, httpStatus: 400, meaning: 'the driver still has active routes' },
} as const satisfies Record<string, { code: number; httpStatus: number; meaning: string }>;

export type ErrorCodeName = keyof typeof ERROR_CODES;
