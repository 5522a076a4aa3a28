import { DcParams, EpochMillis, Id, Location, Name } from '../../models/common';
import { PathId } from '../../models/path-ids';
import { SECRET_PREFIX } from '../../shared/crypto';
import { LOGIN_TOKEN_MIN_BITS, LOGIN_TOKEN_MIN_LENGTH } from '../../shared/limits';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

export const Driver = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    login_token: z.withMeta(z.string(), { description: 'secret the driver app signs in with' }),
  }),
  { id: 'Driver' },
);

export const DriverLocation = z.withMeta(
  z.nullable(z.object({ timestamp: EpochMillis, location: Location })),
  { id: 'DriverLocation', description: 'null until the driver reports a location' },
);

export const ActiveRoute = z.withMeta(z.object({ planned_start_time: EpochMillis, route_id: z.string() }), {
  id: 'ActiveRoute',
});

export const DriverParams = z.extend(DcParams, { driver_id: Id });

/**
 * A client-chosen login token: unique across the service (claimed; 2002 when in use). Its strength is
 * checked by the driver use cases (functions/domain/login-tokens.ts); a shorter one can never pass it.
 */
export const LoginToken = z.string().check(
  z.minLength(
    LOGIN_TOKEN_MIN_LENGTH,
    `must have at least ${LOGIN_TOKEN_MIN_LENGTH} characters: a token must take 2^${LOGIN_TOKEN_MIN_BITS} guesses or more to find`,
  ),
  z.maxLength(256),
  z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  z.refine(
    (token) => !token.startsWith(SECRET_PREFIX.apiKey),
    `must not start with '${SECRET_PREFIX.apiKey}' (API keys do)`,
  ),
);

export const CreateDriverBody = z.withMeta(
  z.object({
    driver_id: PathId('driver_id'),
    driver_name: Name,
    login_token: z.withMeta(z.optional(LoginToken), {
      description: `unique across the service; generated (43 random base64url characters after \`drv_\`) when absent. One the client chooses must take 2^${LOGIN_TOKEN_MIN_BITS} guesses or more by zxcvbn's estimate (e.g. 32 random bytes in base64url)`,
    }),
  }),
  { id: 'CreateDriverRequest' },
);

export const UpdateDriverBody = z.withMeta(
  z
    .object({
      driver_name: z.optional(Name),
      login_token: z.withMeta(z.optional(LoginToken), {
        description: `a new token, as strong as at create: claimed, and the old one stops working and is freed at once`,
      }),
    })
    .check(
      z.refine((body) => body.driver_name !== undefined || body.login_token !== undefined, {
        path: ['driver_name'],
        message: 'required unless login_token is given',
      }),
    ),
  { id: 'UpdateDriverRequest' },
);

export const DriverData = z.object({ driver: Driver });

export const TAG = 'Drivers';

/** What the rows about one driver share: its params, and 1003 when it is missing. */
const ONE_DRIVER = { tag: TAG, request: { params: DriverParams }, errorCodes: [1003] };

/** The drivers' rows: about one driver, an API key's and read-only unless the row says otherwise. */
export const driversEndpoint = endpointGroup(ONE_DRIVER);

/** Rows that change a driver: they also write the table. */
export const driverChangeEndpoint = endpointGroup({ ...ONE_DRIVER, access: { table: 'readWrite' } });
