import { createHash, randomBytes } from 'node:crypto';

/** Secrets (API keys, driver tokens) are looked up by this hash; the table never holds an API key itself. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Generated secrets carry their kind as a prefix. A driver's login token may not start with the API-key
 * prefix, so no string can authenticate on both the public API and the driver app.
 */
export const SECRET_PREFIX = { apiKey: 'drs_', driverToken: 'drv_' } as const;

/** A CSPRNG secret with the given prefix, e.g. `drs_` + 43 base64url characters for 32 bytes. */
export function randomSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(8).toString('hex')}`;
}
