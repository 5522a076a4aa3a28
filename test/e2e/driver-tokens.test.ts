import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { db, tableName } from '../../functions/data/client';
import { sha256Hex } from '../../functions/shared/crypto';
import { createTestAccount } from '../support/accounts';
import { type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';

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

beforeAll(async () => {
  api = await startTestApi('driver-tokens');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
});

afterAll(() => api?.close());

describe('login token claims', () => {
  it('refuses a token another account’s driver holds (400, 2002) without naming it; that driver still logs in', async () => {
    const token = 'acme-victim-login-token-01';
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

  it('refuses a client-chosen token shorter than 16 characters (1006 naming login_token)', async () => {
    const short = await createDriver(acme.key, 'dc-1', 'short-token', 'a'.repeat(15));
    expect(expectError(short, 400, 1006)).toMatch(/^login_token: .*16/);
    expectSuccess(await createDriver(acme.key, 'dc-1', 'sixteen', 'b'.repeat(16)), drivers.createDriver);
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
    const token = 'acme-leaver-login-token-01';
    expectSuccess(await createDriver(acme.key, 'dc-1', 'leaver', token), drivers.createDriver);
    expectSuccess(
      await request('DELETE', '/dcs/dc-1/drivers/leaver', { key: acme.key }),
      drivers.deleteDriver,
    );
    expect(await logsIn(token)).toBe(false);
    expectSuccess(await createDriver(globex.key, 'gx-1', 'newcomer', token), drivers.createDriver);
    expect(await logsIn(token)).toBe(true);
  });

  it('moves the claim when a driver’s token changes: the old one is freed, the new one taken', async () => {
    const [oldToken, newToken] = ['acme-rotating-token-old-1', 'acme-rotating-token-new-1'];
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
    const [mine, theirs] = ['acme-keeper-login-token-1', 'globex-holder-login-token-1'];
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
    const token = 'acme-legacy-login-token-01';
    expectSuccess(await createDriver(acme.key, 'dc-1', 'legacy', token), drivers.createDriver);
    await rewriteAsLegacyLookup(acme.accountId, 'dc-1', 'legacy', token);
    expect(await logsIn(token)).toBe(true);
    expectError(await createDriver(globex.key, 'gx-1', 'legacy-copy', token), 400, TOKEN_TAKEN);
    expect(await logsIn(token)).toBe(true);

    expectSuccess(
      await request('DELETE', '/dcs/dc-1/drivers/legacy', { key: acme.key }),
      drivers.deleteDriver,
    );
    expect(await logsIn(token)).toBe(false);
    expectSuccess(await createDriver(globex.key, 'gx-1', 'legacy-copy', token), drivers.createDriver);
    expect(await logsIn(token)).toBe(true);
  });
});

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
