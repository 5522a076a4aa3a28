import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import { DRIVER_SIGN_IN_FAILURES } from '../../functions/shared/limits';
import { inParallel } from '../../functions/shared/parallel';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { proxyGetEvent } from '../support/lambda-fixtures';

/**
 * Failed driver-app sign-ins are limited per source address, so the driver API cannot be used to probe for
 * login tokens: a source that presented DRIVER_SIGN_IN_FAILURES.tokens different unknown tokens gets 429
 * (1008) on every driver-app request, a valid token included. Its own DynamoDB, as every file has: the
 * failures this file makes from 127.0.0.1 (every local request's source) reach no other file.
 */

const fx = useTestApi('driver-sign-in-limit');
const LIMIT = DRIVER_SIGN_IN_FAILURES.tokens;
const unknownToken = () => `unknown-${randomBytes(32).toString('base64url')}`;

/** GET /driver/routes as API Gateway would invoke its function for a caller at `sourceIp`. */
async function routesFrom(
  sourceIp: string,
  token: string,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  const result = await fx.api.invoke(
    driverApp.listDriverRoutes,
    proxyGetEvent(
      '/driver/routes',
      { Authorization: `Bearer ${token}` },
      { requestId: `sign-in-${randomBytes(4).toString('hex')}`, identity: { sourceIp } },
    ),
  );
  if (result.kind !== 'success') throw new Error(`invocation failed: ${JSON.stringify(result)}`);
  return result.payload as { statusCode: number; headers: Record<string, string>; body: string };
}

describe('failed driver-app sign-ins from one address', () => {
  let account: TestAccount;
  let token: string;
  // A 429 is what is tested here: not retried, as the test helper otherwise does.
  const routes = (key: string) => fx.request('GET', '/driver/routes', { key, retryThrottled: false });

  beforeAll(async () => {
    account = await fx.account('Acme', [{ dcId: 'dc-1' }]);
    token = await fx.createDriver(account.key, 'dc-1', 'limited', 'Limited');
  });

  it(`locks the address after ${LIMIT} different unknown tokens: 429 (1008) for every token, a valid one included`, {
    timeout: 120_000,
  }, async () => {
    // A driver app whose token was revoked retries that one token: it counts once, however often it is sent
    // (counted per request, these and the others below would pass the limit before the valid token's turn).
    const revoked = unknownToken();
    for (let i = 0; i < 5; i++) expectError(await routes(revoked), 401, 1001);
    expectSuccess(await routes(token), driverApp.listDriverRoutes);

    const others = Array.from({ length: LIMIT - 2 }, unknownToken);
    await inParallel(others, 4, async (other) => expectError(await routes(other), 401, 1001));
    // LIMIT - 1 different tokens so far: the valid one still signs in; the next unknown one is the LIMIT-th.
    expectSuccess(await routes(token), driverApp.listDriverRoutes);
    expectError(await routes(unknownToken()), 401, 1001);

    const lockedAnswer = await routes(token);
    const locked = expectError(lockedAnswer, 429, 1008);
    expect(locked).toMatch(/^too many unknown login tokens from this address/);
    // Until the window after the current one starts at the latest, when none of these failures count.
    const retryAfter = Number(lockedAnswer.headers.get('Retry-After'));
    const { windowMs } = DRIVER_SIGN_IN_FAILURES;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((2 * windowMs - (Date.now() % windowMs)) / 1000) + 1);
    expectError(await routes(unknownToken()), 429, 1008);
    expectError(await routes(revoked), 429, 1008);
    const ping = await fx.request('POST', '/driver/location', {
      key: token,
      body: {},
      retryThrottled: false,
    });
    expectError(ping, 429, 1008);

    // Only the driver app, and only from this address: the account's API key works, and so does the
    // driver's token from elsewhere.
    expect((await fx.as(account.key, 'GET', '/dcs/dc-1/drivers')).status).toBe(200);
    expect((await routesFrom('198.51.100.7', token)).statusCode).toBe(200);
    expect((await routesFrom('127.0.0.1', token)).statusCode).toBe(429);
  });

  it('counts an IPv6 caller by its /64: addresses of the same /64 share a lock, another /64 has its own', {
    timeout: 120_000,
  }, async () => {
    const addresses = Array.from({ length: LIMIT }, (_, i) => `2001:db8:5:6:${(i + 1).toString(16)}::1`);
    await inParallel(addresses, 4, async (address) =>
      expect((await routesFrom(address, unknownToken())).statusCode).toBe(401),
    );
    const locked = await routesFrom('2001:db8:5:6:ffff::9', token);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
    expect((await routesFrom('2001:db8:5:7::1', token)).statusCode).toBe(200);
  });
});
