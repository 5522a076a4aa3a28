import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { db, tableName } from '../../functions/data/client';
import { changeDriverToken, getDriver } from '../../functions/data/drivers';
import { sha256Hex } from '../../functions/shared/crypto';
import { createTestAccount } from '../support/accounts';
import { type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { strongToken } from '../support/login-tokens';

/**
 * Login tokens are unique across the service: a token is claimed when a driver is created with it (or
 * changes to it), so one account cannot lock another's driver out of the driver app by creating a driver
 * with the same token (a token two drivers shared used to be refused at login, for both).
 */

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };

const TOKEN_TAKEN = 2002;

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);

function createDriver(key: string, dcId: string, driverId: string, loginToken?: string) {
  return request('POST', `/dcs/${dcId}/drivers`, {
    key,
    body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: loginToken },
  });
}

/** True when the driver app lets the token in. */
async function logsIn(token: string): Promise<boolean> {
  const response = await request('GET', '/driver/routes', { key: token });
  expect([200, 401], response.text).toContain(response.status);
  return response.status === 200;
}

/**
 * Deletes Acme's driver `driverId` (dc-1) and checks that its token is free: it signs in no more, and a Globex
 * driver `claimedBy` can take it and sign in with it.
 */
async function expectDeleteFreesToken(driverId: string, token: string, claimedBy: string) {
  expectSuccess(
    await request('DELETE', `/dcs/dc-1/drivers/${driverId}`, { key: acme.key }),
    drivers.deleteDriver,
  );
  expect(await logsIn(token)).toBe(false);
  expectSuccess(await createDriver(globex.key, 'gx-1', claimedBy, token), drivers.createDriver);
  expect(await logsIn(token)).toBe(true);
}

beforeAll(async () => {
  api = await startTestApi('driver-tokens');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
});

afterAll(() => api?.close());

describe('login token claims', () => {
  it('refuses a token another account’s driver holds (400, 2002) without naming it; that driver still logs in', async () => {
    const token = strongToken('acme-victim-login-token-01');
    expectSuccess(await createDriver(acme.key, 'dc-1', 'victim', token), drivers.createDriver);

    const taken = await createDriver(globex.key, 'gx-1', 'attacker', token);
    const message = expectError(taken, 400, TOKEN_TAKEN);
    expect(message).toMatch(/^login_token: /);
    for (const secret of [acme.accountId, 'victim', 'dc-1', 'Acme', token])
      expect(message).not.toContain(secret);
    expectError(await request('GET', '/dcs/gx-1/drivers/attacker', { key: globex.key }), 404, 1003);
    expect(await logsIn(token)).toBe(true);

    // The same account and DC, another driver id: refused as well.
    expectError(await createDriver(acme.key, 'dc-1', 'victim-twin', token), 400, TOKEN_TAKEN);
    expect(await logsIn(token)).toBe(true);
  });

  it('refuses a client-chosen token shorter than 39 characters (1006 naming login_token)', async () => {
    const short = await createDriver(acme.key, 'dc-1', 'short-token', 'acme-driver-0001');
    expect(expectError(short, 400, 1006)).toMatch(/^login_token: must have at least 39 characters/);
  });

  it.each([
    ['one character repeated', 'a'.repeat(200)],
    ['a short pattern repeated', 'acme-driver-0001-'.repeat(3)],
    ['the driver’s own id run together', 'too-easy-driver-too-easy-driver-too-easy-driver'],
  ])('refuses a long token that is easy to guess, %s (1006 naming login_token)', async (_name, token) => {
    const weak = await createDriver(acme.key, 'dc-1', 'too-easy-driver', token);
    expect(expectError(weak, 400, 1006)).toMatch(/^login_token: too easy to guess \(about 2\^\d+ guesses/);
    expectError(await request('GET', '/dcs/dc-1/drivers/too-easy-driver', { key: acme.key }), 404, 1003);
  });

  it('accepts a strong random token, and a strong new one on PATCH', async () => {
    const chosen = randomBytes(32).toString('base64url');
    expect(
      expectSuccess(await createDriver(acme.key, 'dc-1', 'strong', chosen), drivers.createDriver),
    ).toEqual({
      driver: { id: 'strong', name: 'Driver strong', login_token: chosen },
    });
    expect(await logsIn(chosen)).toBe(true);
    const next = randomBytes(32).toString('hex');
    const changed = await request('PATCH', '/dcs/dc-1/drivers/strong', {
      key: acme.key,
      body: { login_token: next },
    });
    expect(expectSuccess(changed, drivers.updateDriver)).toMatchObject({ driver: { login_token: next } });
    const weakened = await request('PATCH', '/dcs/dc-1/drivers/strong', {
      key: acme.key,
      body: { login_token: 'strong-driver-strong-driver-strong-driver' },
    });
    expect(expectError(weakened, 400, 1006)).toMatch(/^login_token: too easy to guess/);
    expect(await logsIn(next)).toBe(true);
  });

  it('tells nobody whether a weak token is in use: 1006 before the lookup, never 2002', async () => {
    // Tokens set before they had to be strong: a short one and a long one, each held by an Acme driver.
    const [short, long] = ['acme-driver-0001', 'acme-driver-0001-acme-driver-0001-acme-driver'];
    await giveTokenAsBefore(acme.accountId, 'dc-1', 'old-short', short);
    await giveTokenAsBefore(acme.accountId, 'dc-1', 'old-long', long);
    expect(await logsIn(short)).toBe(true);
    expect(await logsIn(long)).toBe(true);

    const probeShort = await createDriver(globex.key, 'gx-1', 'prober', short);
    expect(expectError(probeShort, 400, 1006)).toMatch(/^login_token: must have at least 39 characters/);
    const probeLong = await createDriver(globex.key, 'gx-1', 'prober', long);
    expect(expectError(probeLong, 400, 1006)).toMatch(/^login_token: too easy to guess/);
    const patched = await request('PATCH', '/dcs/dc-1/drivers/strong', {
      key: acme.key,
      body: { login_token: long },
    });
    expect(expectError(patched, 400, 1006)).toMatch(/^login_token: too easy to guess/);
  });

  it('keeps a weak token set before tokens had to be strong working, also when it is sent again unchanged', async () => {
    const token = 'acme-old-timer-token-acme-old-timer-token';
    await giveTokenAsBefore(acme.accountId, 'dc-1', 'old-timer', token);
    expect(await logsIn(token)).toBe(true);
    const renamed = await request('PATCH', '/dcs/dc-1/drivers/old-timer', {
      key: acme.key,
      body: { driver_name: 'Renamed', login_token: token },
    });
    expect(expectSuccess(renamed, drivers.updateDriver)).toEqual({
      driver: { id: 'old-timer', name: 'Renamed', login_token: token },
    });
    expect(await logsIn(token)).toBe(true);
  });

  it('keeps generating tokens when none is sent, each claimed', async () => {
    const first = expectSuccess(
      await createDriver(acme.key, 'dc-1', 'generated-1'),
      drivers.createDriver,
    ) as {
      driver: { login_token: string };
    };
    expect(first.driver.login_token).toMatch(/^drv_[\w-]{43}$/);
    expect(await logsIn(first.driver.login_token)).toBe(true);
    expectError(
      await createDriver(globex.key, 'gx-1', 'copycat', first.driver.login_token),
      400,
      TOKEN_TAKEN,
    );
  });

  it('frees a deleted driver’s token: another account can claim it', async () => {
    const token = strongToken('acme-leaver-login-token-01');
    expectSuccess(await createDriver(acme.key, 'dc-1', 'leaver', token), drivers.createDriver);
    await expectDeleteFreesToken('leaver', token, 'newcomer');
  });

  it('moves the claim when a driver’s token changes: the old one is freed, the new one taken', async () => {
    const [oldToken, newToken] = [strongToken('acme-rotating-old'), strongToken('acme-rotating-new')];
    expectSuccess(await createDriver(acme.key, 'dc-1', 'rotating', oldToken), drivers.createDriver);
    const changed = await request('PATCH', '/dcs/dc-1/drivers/rotating', {
      key: acme.key,
      body: { login_token: newToken },
    });
    expect(expectSuccess(changed, drivers.updateDriver)).toEqual({
      driver: { id: 'rotating', name: 'Driver rotating', login_token: newToken },
    });
    expect(await logsIn(oldToken)).toBe(false);
    expect(await logsIn(newToken)).toBe(true);

    expectError(await createDriver(globex.key, 'gx-1', 'grabber', newToken), 400, TOKEN_TAKEN);
    expectSuccess(await createDriver(globex.key, 'gx-1', 'inheritor', oldToken), drivers.createDriver);
    expect(await logsIn(oldToken)).toBe(true);
    expect(await logsIn(newToken)).toBe(true);
  });

  it('refuses to change a token to one in use, leaving the driver’s own token as it was', async () => {
    const [mine, theirs] = [strongToken('acme-keeper'), strongToken('globex-holder')];
    expectSuccess(await createDriver(acme.key, 'dc-1', 'keeper', mine), drivers.createDriver);
    expectSuccess(await createDriver(globex.key, 'gx-1', 'holder', theirs), drivers.createDriver);
    const refused = await request('PATCH', '/dcs/dc-1/drivers/keeper', {
      key: acme.key,
      body: { driver_name: 'Renamed', login_token: theirs },
    });
    const message = expectError(refused, 400, TOKEN_TAKEN);
    for (const secret of [globex.accountId, 'holder', 'gx-1', theirs]) expect(message).not.toContain(secret);
    const read = await request('GET', '/dcs/dc-1/drivers/keeper', { key: acme.key });
    expect(expectSuccess(read, drivers.getDriver)).toEqual({
      driver: { id: 'keeper', name: 'Driver keeper', login_token: mine },
    });
    expect(await logsIn(mine)).toBe(true);
    expect(await logsIn(theirs)).toBe(true);
  });

  it('keeps honouring a lookup item written before tokens were claimed, and refuses its token to others', async () => {
    const token = strongToken('acme-legacy-login-token-01');
    expectSuccess(await createDriver(acme.key, 'dc-1', 'legacy', token), drivers.createDriver);
    await rewriteAsLegacyLookup(acme.accountId, 'dc-1', 'legacy', token);
    expect(await logsIn(token)).toBe(true);
    expectError(await createDriver(globex.key, 'gx-1', 'legacy-copy', token), 400, TOKEN_TAKEN);
    expect(await logsIn(token)).toBe(true);

    await expectDeleteFreesToken('legacy', token, 'legacy-copy');
  });
});

/**
 * A driver of the account holding `token` as drivers did before tokens had to be strong: created with a strong
 * token, then given `token` by the data layer, which checks no strength (as the operator would find it).
 */
async function giveTokenAsBefore(accountId: string, dcId: string, driverId: string, token: string) {
  const created = await createDriver(acme.key, dcId, driverId);
  expect(created.status, created.text).toBe(200);
  const driver = await getDriver(accountId, dcId, driverId);
  if (!driver) throw new Error(`driver ${driverId} was not created`);
  expect((await changeDriverToken(driver, token, undefined, Date.now())).outcome).toBe('updated');
}

/** Replaces the driver's token claim by the lookup item drivers had before claims (keyed by driver too). */
async function rewriteAsLegacyLookup(accountId: string, dcId: string, driverId: string, token: string) {
  const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const pk = `DRIVER_TOKEN#${sha256Hex(token)}`;
  await db.send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk: 'CLAIM' } }));
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk,
        sk: `${accountId}/${dcId}/${driverId}`,
        entity: 'DRIVER_TOKEN',
        account_id: accountId,
        dc_id: dcId,
        driver_id: driverId,
      },
    }),
  );
}
