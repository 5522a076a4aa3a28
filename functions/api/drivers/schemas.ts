import { DcParams, EpochMillis, Id, Location, Name } from '../../models/common';
import { PathId } from '../../models/path-ids';
import { SECRET_PREFIX } from '../../shared/crypto';
import { LOGIN_TOKEN_MIN_BITS, LOGIN_TOKEN_MIN_LENGTH } from '../../shared/limits';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const Driver = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    name: /* @__PURE__ */ z.string(),
    login_token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'secret the driver app signs in with',
    }),
  }),
  { id: 'Driver' },
);

export const DriverLocation = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.object({ timestamp: EpochMillis, location: Location })),
  { id: 'DriverLocation', description: 'null until the driver reports a location' },
);

export const ActiveRoute = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({ planned_start_time: EpochMillis, route_id: /* @__PURE__ */ z.string() }),
  {
    id: 'ActiveRoute',
  },
);

export const DriverParams = /* @__PURE__ */ z.extend(DcParams, { driver_id: Id });

/**
 * A client-chosen login token: unique across the service (claimed; 2002 when in use). Its strength is
 * checked by the driver use cases (functions/domain/login-tokens.ts); a shorter one can never pass it.
 */
// Messages apart: esbuild keeps a call whose argument interpolates, and with it the schema.
const TOO_SHORT = `must have at least ${LOGIN_TOKEN_MIN_LENGTH} characters: a token must take 2^${LOGIN_TOKEN_MIN_BITS} guesses or more to find`;
const API_KEY_PREFIXED = `must not start with '${SECRET_PREFIX.apiKey}' (API keys do)`;
const LOGIN_TOKEN_DESCRIPTION = `unique across the service; generated (43 random base64url characters after \`drv_\`) when absent. One the client chooses must take 2^${LOGIN_TOKEN_MIN_BITS} guesses or more by zxcvbn's estimate (e.g. 32 random bytes in base64url)`;

export const LoginToken = /* @__PURE__ */ z.string().check(
  /* @__PURE__ */ z.minLength(LOGIN_TOKEN_MIN_LENGTH, TOO_SHORT),
  /* @__PURE__ */ z.maxLength(256),
  /* @__PURE__ */ z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  /* @__PURE__ */ z.refine((token) => !token.startsWith(SECRET_PREFIX.apiKey), API_KEY_PREFIXED),
);

export const CreateDriverBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    driver_id: /* @__PURE__ */ PathId('driver_id'),
    driver_name: Name,
    login_token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(LoginToken), {
      description: LOGIN_TOKEN_DESCRIPTION,
    }),
  }),
  { id: 'CreateDriverRequest' },
);

export const UpdateDriverBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      driver_name: /* @__PURE__ */ z.optional(Name),
      login_token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(LoginToken), {
        description: `a new token, as strong as at create: claimed, and the old one stops working and is freed at once`,
      }),
    })
    .check(
      /* @__PURE__ */ z.refine((body) => body.driver_name !== undefined || body.login_token !== undefined, {
        path: ['driver_name'],
        message: 'required unless login_token is given',
      }),
    ),
  { id: 'UpdateDriverRequest' },
);

export const DriverData = /* @__PURE__ */ z.object({ driver: Driver });

export const TAG = 'Drivers';

/** What the rows about one driver share: its params, and 1003 when it is missing. */
const ONE_DRIVER = { tag: TAG, request: { params: DriverParams }, errorCodes: [1003] };

/** The drivers' rows: about one driver, an API key's and read-only unless the row says otherwise. */
export const driversEndpoint = /* @__PURE__ */ endpointGroup(ONE_DRIVER);

/** Rows that change a driver: they also write the table. */
export const driverChangeEndpoint = /* @__PURE__ */ endpointGroup({
  ...ONE_DRIVER,
  access: { table: 'readWrite' },
});
