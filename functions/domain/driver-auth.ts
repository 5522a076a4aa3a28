import { findTokenOwners } from '../data/drivers';
import type { DriverCaller } from '../shared/auth-context';
import { SECRET_PREFIX, sha256Hex } from '../shared/crypto';

/**
 * The driver a login token belongs to, looked up by hash on every request: deleting a driver deletes the
 * lookup item in the same transaction, so its token stops working at once. Undefined for an unknown
 * token, an API key, or a token two drivers share (refused rather than guessed).
 */
export async function authenticateDriverToken(token: string): Promise<DriverCaller | undefined> {
  if (token.startsWith(SECRET_PREFIX.apiKey)) return undefined;
  const owners = await findTokenOwners(sha256Hex(token));
  const [owner] = owners;
  return owner && owners.length === 1 ? { kind: 'driverToken', ...owner } : undefined;
}
