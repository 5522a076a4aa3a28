import { findTokenOwners } from '../data/driver-tokens';
import type { DriverCaller } from '../shared/auth-context';
import { SECRET_PREFIX, sha256Hex } from '../shared/crypto';

/** How long this process trusts a token lookup for endpoints whose write re-checks the token itself. */
const OWNER_CACHE_MS = 30_000;
const ownerCache = new Map<string, { caller: DriverCaller; expiresAt: number }>();

/**
 * The driver a login token belongs to. Undefined for an unknown token, an API key, or a token two
 * drivers share (refused rather than guessed; only drivers created before tokens were claimed can).
 *
 * By default the token is looked up by hash on every request (its claim item): deleting a driver, or
 * changing its token, deletes the claim in the same transaction, so the token stops working at once. With `verifiedByWrite`, a lookup made in
 * the last 30 s by this process is reused: only for endpoints whose write is conditional on the driver
 * item still holding this token (location pings), so a deleted driver is still refused at once.
 */
export async function authenticateDriverToken(
  token: string,
  options: { verifiedByWrite?: boolean } = {},
): Promise<DriverCaller | undefined> {
  if (token.startsWith(SECRET_PREFIX.apiKey)) return undefined;
  const tokenHash = sha256Hex(token);
  const cached = ownerCache.get(tokenHash);
  if (options.verifiedByWrite && cached && cached.expiresAt > Date.now()) return cached.caller;

  const owners = await findTokenOwners(tokenHash);
  const [owner] = owners;
  if (!owner || owners.length !== 1) {
    ownerCache.delete(tokenHash);
    return undefined;
  }
  const caller: DriverCaller = { kind: 'driverToken', ...owner, loginToken: token };
  ownerCache.set(tokenHash, { caller, expiresAt: Date.now() + OWNER_CACHE_MS });
  return caller;
}

/** Drops a cached lookup the write found stale (the driver was deleted or holds another token now). */
export function forgetDriverToken(token: string): void {
  ownerCache.delete(sha256Hex(token));
}
