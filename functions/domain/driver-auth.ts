import { findTokenOwners } from '../data/driver-tokens';
import { failedTokenTags, recordFailedToken } from '../data/sign-in-failures';
import type { DriverCaller } from '../shared/auth-context';
import { nodeNet } from '../shared/builtins';
import { SECRET_PREFIX, sha256Hex } from '../shared/crypto';
import { TooManyFailedSignInsError } from '../shared/errors';
import { ipv6Bytes } from '../shared/ip-address';
import { DRIVER_SIGN_IN_FAILURES } from '../shared/limits';

/** How long this process trusts a token lookup for endpoints whose write re-checks the token itself. */
const OWNER_CACHE_MS = 30_000;
const ownerCache = new Map<string, { caller: DriverCaller; expiresAt: number }>();

/**
 * The driver a login token belongs to. Undefined for an unknown token, an API key, or a token two
 * drivers share (refused rather than guessed; only drivers created before tokens were claimed can).
 *
 * By default the token is looked up by hash on every request (its claim item): deleting a driver, or
 * changing its token, deletes the claim in the same transaction, so the token stops working at once. With
 * `verifiedByWrite`, a lookup made in the last 30 s by this process is reused: only for endpoints whose
 * write is conditional on the driver item still holding this token (location pings), so a deleted driver
 * is still refused at once.
 *
 * Failed sign-ins are counted per source address (`signInSource`): a source that presented
 * DRIVER_SIGN_IN_FAILURES.tokens different unknown tokens within the current and the previous window gets
 * 429 (1008) for every token, a valid one included, until enough of them are older than that: were a valid
 * token let through, its 200 among the 429s would tell a prober which guess was right.
 */
export async function authenticateDriverToken(
  token: string,
  options: { verifiedByWrite?: boolean; sourceIp?: string } = {},
): Promise<DriverCaller | undefined> {
  const source = signInSource(options.sourceIp);
  const now = Date.now();
  const windowStart = now - (now % DRIVER_SIGN_IN_FAILURES.windowMs);
  // An API key is never a login token, nor a guess at one: refused without a lookup, and not counted.
  const isApiKey = token.startsWith(SECRET_PREFIX.apiKey);
  const tokenHash = sha256Hex(token);
  // The failures are read beside the lookup: a request waits for the slower of the two, not for both.
  const [failed, caller] = await Promise.all([
    failedTokenTags(source, windowStart - DRIVER_SIGN_IN_FAILURES.windowMs),
    isApiKey ? undefined : lookUpCaller(token, tokenHash, options.verifiedByWrite === true),
  ]);
  const retryAt = signInRetryTime(failed, windowStart);
  if (retryAt !== undefined) throw new TooManyFailedSignInsError(Math.ceil((retryAt - now) / 1000));
  if (caller || isApiKey) return caller;
  await recordFailedToken(
    source,
    { start: windowStart, expiresAt: windowStart + 2 * DRIVER_SIGN_IN_FAILURES.windowMs },
    // 64 bits of the hash tell different tokens apart well enough, and keep the item small.
    tokenHash.slice(0, 16),
  );
  return undefined;
}

/**
 * When a refused source may sign in again (epoch ms), or undefined when it is not refused: at the next
 * window's start the previous window's failures stop counting, unless the current window's alone reach the
 * limit; then at the start of the one after. A refused request records no failure, so nothing moves it later.
 */
export function signInRetryTime(failed: ReadonlyMap<number, ReadonlySet<string>>, windowStart: number) {
  const { tokens, windowMs } = DRIVER_SIGN_IN_FAILURES;
  if (new Set([...failed.values()].flatMap((tags) => [...tags])).size < tokens) return undefined;
  const current = failed.get(windowStart)?.size ?? 0;
  return windowStart + (current >= tokens ? 2 : 1) * windowMs;
}

async function lookUpCaller(
  token: string,
  tokenHash: string,
  verifiedByWrite: boolean,
): Promise<DriverCaller | undefined> {
  const cached = ownerCache.get(tokenHash);
  if (verifiedByWrite && cached && cached.expiresAt > Date.now()) return cached.caller;
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

/**
 * What failed sign-ins are counted by: the caller's address as API Gateway saw it (`identity.sourceIp`, the
 * connection's peer: a client cannot set it with X-Forwarded-For, aws-solutions/aws-waf-security-automations
 * PR #123), for IPv6 its /64, which one subscriber, host or phone usually holds whole, so an attacker cannot
 * step through its addresses. An IPv4-mapped address is its IPv4 address.
 */
export function signInSource(sourceIp: string | undefined): string {
  const address = sourceIp?.replace(/%.*$/, '') ?? '';
  const family = nodeNet().isIP(address);
  if (family === 4) return address;
  const bytes = family === 6 ? ipv6Bytes(address) : undefined;
  if (!bytes) return 'unknown';
  if (bytes.subarray(0, 12).every((byte, index) => byte === (index < 10 ? 0 : 0xff))) {
    return Array.from(bytes.subarray(12)).join('.');
  }
  const groups = [0, 2, 4, 6].map((at) =>
    ((bytes[at] as number) * 256 + (bytes[at + 1] as number)).toString(16),
  );
  return `${groups.join(':')}::/64`;
}
