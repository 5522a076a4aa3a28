import { randomUUID } from 'node:crypto';
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import { requestHash } from '../../functions/api/idempotency-key';
import * as routes from '../../functions/api/routes/index';
import * as webhooks from '../../functions/api/webhooks/index';
import { db, tableName } from '../../functions/data/client';
import {
  type IdempotencyScope,
  idempotencyKeyKey,
  lockIdempotencyKey,
} from '../../functions/data/idempotency-keys';
import { IDEMPOTENCY_KEYS } from '../../functions/shared/limits';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { type ApiResponse, expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, waitForImport } from '../support/routes';
import { createBody } from '../support/webhooks';

/**
 * Idempotency-Key on every write (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): the same
 * request with the same key within 24 hours gets the first answer again, status and body, marked
 * `Idempotent-Replayed: true`; another request with the key 422 (1010); the same one while the first is in
 * flight 409 (1011). Keys are the account's, on the driver app the driver's. Every answer here is also held
 * to the OpenAPI document by the test client, its headers included.
 */

const fx = useTestApi('idempotency');

/** A key as the header carries it: a quoted Structured Field string. */
const newKey = () => randomUUID();
const keyHeader = (key: string) => ({ 'Idempotency-Key': `"${key}"` });

const send = (key: string, method: string, path: string, body: unknown, idempotencyKey?: string) =>
  fx.request(method, path, {
    key,
    body,
    headers: idempotencyKey === undefined ? {} : keyHeader(idempotencyKey),
  });

const replayed = (response: ApiResponse) => response.headers.get('Idempotent-Replayed');

async function storedKey(scope: IdempotencyScope, key: string) {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: idempotencyKeyKey(scope, key), ConsistentRead: true }),
  );
  return Item;
}

let acme: TestAccount;
let globex: TestAccount;

beforeAll(async () => {
  acme = await fx.account('Acme', [{ dcId: 'dc-1' }]);
  globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
});

describe('the same request with the same key', () => {
  it('replays the first answer, status and body, marked Idempotent-Replayed, and does the work once', async () => {
    const key = newKey();
    const body = { driver_id: 'd-replayed', driver_name: 'Replayed' };
    const first = await send(acme.key, 'POST', '/dcs/dc-1/drivers', body, key);
    const created = expectSuccess(first, drivers.createDriver);
    expect(replayed(first)).toBeNull();

    // Fields in another order and other spacing are the same JSON: the same request.
    const again = await send(
      acme.key,
      'POST',
      '/dcs/dc-1/drivers',
      '{"driver_name":"Replayed",  "driver_id":"d-replayed"}',
      key,
    );
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(replayed(again)).toBe('true');
    expect(again.body.data).toEqual(created);

    // Without the key the request is processed again: the driver exists (2000), so the first did it once.
    expectError(await send(acme.key, 'POST', '/dcs/dc-1/drivers', body), 400, 2000);
  });

  it('gives a retried route import the txid of the first, and imports the route once', async () => {
    const key = newKey();
    const body = { route: exampleRoute('R-retried', { waypoints: 2 }) };
    const first = await send(acme.key, 'POST', '/dcs/dc-1/invoiced-routes', body, key);
    const { txid } = expectSuccess(first, routes.importRoute, 202) as { txid: string };
    const retried = await send(acme.key, 'POST', '/dcs/dc-1/invoiced-routes', body, key);
    expect(expectSuccess(retried, routes.importRoute, 202)).toEqual({ txid });
    expect(replayed(retried)).toBe('true');
    const finished = await waitForImport(fx.api.url, acme.key, 'dc-1', txid);
    expect(finished.status, finished.text).toBe(200);
    // After the import too: still the txid, never 3005.
    const late = await send(acme.key, 'POST', '/dcs/dc-1/invoiced-routes', body, key);
    expect(expectSuccess(late, routes.importRoute, 202)).toEqual({ txid });
  });

  it('replays a refusal of the use case as well: its outcome does not change by sending it again', async () => {
    expectSuccess(
      await send(acme.key, 'POST', '/dcs/dc-1/drivers', { driver_id: 'd-taken', driver_name: 'Taken' }),
      drivers.createDriver,
    );
    const key = newKey();
    const body = { driver_id: 'd-taken', driver_name: 'Second' };
    const refused = await send(acme.key, 'POST', '/dcs/dc-1/drivers', body, key);
    expectError(refused, 400, 2000);
    expectSuccess(
      await send(acme.key, 'DELETE', '/dcs/dc-1/drivers/d-taken', undefined),
      drivers.deleteDriver,
    );
    const again = await send(acme.key, 'POST', '/dcs/dc-1/drivers', body, key);
    expectError(again, 400, 2000);
    expect(again.text).toBe(refused.text);
    expect(replayed(again)).toBe('true');
  });

  it('keeps the first answer for 24 hours (the record’s TTL), sealed with the key, which it holds only hashed', async () => {
    const key = newKey();
    const before = Date.now();
    const body = createBody('https://receiver.example/kept');
    const first = await send(acme.key, 'POST', '/webhooks', body, key);
    const { webhook } = expectSuccess(first, webhooks.createWebhook) as { webhook: { secret: string } };

    const item = await storedKey({ accountId: acme.accountId }, key);
    expect(item?.state).toBe('ANSWERED');
    const expiresAtMs = (item?.expires_at as number) * 1000;
    expect(expiresAtMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + IDEMPOTENCY_KEYS.keptMs);
    expect(expiresAtMs).toBeLessThanOrEqual(Date.now() + IDEMPOTENCY_KEYS.keptMs);
    // Neither the key nor the answer (the webhook's signing secret, which is stored sealed) is readable there.
    const stored = JSON.stringify(item, (_name, value) =>
      value instanceof Uint8Array
        ? [Buffer.from(value).toString('latin1'), Buffer.from(value).toString('base64')]
        : value,
    );
    for (const text of [key, webhook.secret, webhook.secret.replace(/^whsec_/, ''), 'receiver.example'])
      expect(stored).not.toContain(text);

    const again = await send(acme.key, 'POST', '/webhooks', body, key);
    expect(again.text).toBe(first.text);
    expect(replayed(again)).toBe('true');
  });
});

describe('a key used for another request', () => {
  it('is refused with 422 (1010): another body, another path, another method', async () => {
    const key = newKey();
    expectSuccess(
      await send(acme.key, 'POST', '/dcs/dc-1/drivers', { driver_id: 'd-422', driver_name: 'First' }, key),
      drivers.createDriver,
    );
    const message = expectError(
      await send(acme.key, 'POST', '/dcs/dc-1/drivers', { driver_id: 'd-422', driver_name: 'Other' }, key),
      422,
      1010,
    );
    expect(message).toMatch(/^header\.Idempotency-Key: /);
    expectError(
      await send(acme.key, 'PATCH', '/dcs/dc-1/drivers/d-422', { driver_name: 'First' }, key),
      422,
      1010,
    );
    expectError(await send(acme.key, 'DELETE', '/dcs/dc-1/drivers/d-422', undefined, key), 422, 1010);
    // None of them was processed.
    const read = expectSuccess(
      await fx.request('GET', '/dcs/dc-1/drivers/d-422', { key: acme.key }),
      drivers.getDriver,
    ) as { driver: { name: string } };
    expect(read.driver.name).toBe('First');
  });

  it('is another account’s own: the same key and request of two accounts are two requests', async () => {
    const key = newKey();
    const body = { driver_id: 'd-shared-key', driver_name: 'Shared' };
    for (const account of [acme, globex]) {
      const answer = await send(account.key, 'POST', '/dcs/dc-1/drivers', body, key);
      expectSuccess(answer, drivers.createDriver);
      expect(replayed(answer)).toBeNull();
    }
  });

  it('is each driver’s own on the driver app', async () => {
    const tokens = await Promise.all(
      ['d-app-1', 'd-app-2'].map(async (id) => {
        const login_token = strongToken(id);
        expectSuccess(
          await send(acme.key, 'POST', '/dcs/dc-1/drivers', { driver_id: id, driver_name: id, login_token }),
          drivers.createDriver,
        );
        return login_token;
      }),
    );
    const key = newKey();
    const ping = { timestamp: Date.now(), location: { latitude: 41.9, longitude: -87.6 } };
    for (const token of tokens) {
      const answer = await send(token, 'POST', '/driver/location', ping, key);
      expectSuccess(answer, driverApp.reportDriverLocation);
      expect(replayed(answer)).toBeNull();
    }
    const again = await send(tokens[0] as string, 'POST', '/driver/location', ping, key);
    expectSuccess(again, driverApp.reportDriverLocation);
    expect(replayed(again)).toBe('true');
  });
});

describe('a key whose first request is still being processed', () => {
  const path = '/dcs/dc-1/drivers';
  const body = { driver_id: 'd-in-flight', driver_name: 'In flight' };
  const scope = () => ({ accountId: acme.accountId });
  /** The lock the first request would hold, with its function's deadline. */
  const lockAsFirst = (key: string, deadline: number) =>
    lockIdempotencyKey(idempotencyKeyKey(scope(), key), {
      requestHash: requestHash(drivers.createDriver, { dc_id: 'dc-1' }, {}, body),
      lockId: randomUUID(),
      inFlightUntil: deadline,
      expiresAt: Date.now() + IDEMPOTENCY_KEYS.keptMs,
      now: Date.now(),
    });

  it('refuses the same request with 409 (1011) until the first has answered', async () => {
    const key = newKey();
    expect(await lockAsFirst(key, Date.now() + 60_000)).toBeUndefined();
    const inFlight = await send(acme.key, 'POST', path, body, key);
    const message = expectError(inFlight, 409, 1011);
    expect(message).toMatch(/^header\.Idempotency-Key: .* at the latest in (5\d|60) s$/);
    expect(inFlight.headers.get('Retry-After')).toBe('1');
    // Another request with the key is 422, in flight or not.
    expectError(await send(acme.key, 'POST', path, { ...body, driver_name: 'Other' }, key), 422, 1010);
    expectError(await fx.request('GET', '/dcs/dc-1/drivers/d-in-flight', { key: acme.key }), 404, 1003);
  });

  it('takes the key over once the first request’s function is past its deadline (it timed out or crashed)', async () => {
    const key = newKey();
    expect(await lockAsFirst(key, Date.now() - 1)).toBeUndefined();
    const answer = await send(acme.key, 'POST', path, body, key);
    expectSuccess(answer, drivers.createDriver);
    expect(replayed(answer)).toBeNull();
  });

  it('lets one of simultaneous requests with the key do the work: the others wait (409) or replay it', async () => {
    const key = newKey();
    const simultaneous = { driver_id: 'd-simultaneous', driver_name: 'Simultaneous' };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => send(acme.key, 'POST', path, simultaneous, key)),
    );
    const processed = answers.filter((answer) => answer.status === 200 && replayed(answer) === null);
    expect(processed).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) expectError(answer, 409, 1011);
      else expect(answer.text).toBe(processed[0]?.text);
    }
  });
});

describe('the key as clients send it', () => {
  it('takes a bare key, and its quoted form as the same key', async () => {
    const key = newKey();
    const body = { driver_id: 'd-bare-key', driver_name: 'Bare key' };
    const post = (header: string) =>
      fx.request('POST', '/dcs/dc-1/drivers', {
        key: acme.key,
        body,
        headers: { 'Idempotency-Key': header },
      });
    const first = await post(key);
    expectSuccess(first, drivers.createDriver);
    expect(replayed(first)).toBeNull();
    const quoted = await post(`"${key}"`);
    expect(quoted.status).toBe(first.status);
    expect(replayed(quoted)).toBe('true');
    expect(await storedKey({ accountId: acme.accountId }, key)).toBeDefined();
  });
});

describe('what locks no key', () => {
  it('leaves the key free after a request refused for its input, so that the corrected one goes through', async () => {
    const key = newKey();
    expectError(await send(acme.key, 'POST', '/dcs/dc-1/drivers', { driver_id: 'd-fixed' }, key), 400, 1006);
    const fixed = await send(
      acme.key,
      'POST',
      '/dcs/dc-1/drivers',
      { driver_id: 'd-fixed', driver_name: 'Fixed' },
      key,
    );
    expectSuccess(fixed, drivers.createDriver);
    expect(replayed(fixed)).toBeNull();
  });

  it('refuses a key that is neither bare nor one quoted string with 1006 naming the header, and processes nothing', async () => {
    const body = { driver_id: 'd-bad-key', driver_name: 'Bad key' };
    for (const header of [
      'two words',
      'a;b',
      '"a"; p=1',
      '"a", "b"',
      '""',
      `"${'k'.repeat(256)}"`,
      '"\u00e9"',
    ]) {
      const answer = await fx.request('POST', '/dcs/dc-1/drivers', {
        key: acme.key,
        body,
        headers: { 'Idempotency-Key': header },
      });
      expect(expectError(answer, 400, 1006), header).toMatch(
        /^header\.Idempotency-Key: must be 1\.\.255 printable ASCII characters/,
      );
    }
    expectError(await fx.request('GET', '/dcs/dc-1/drivers/d-bad-key', { key: acme.key }), 404, 1003);
  });

  it('answers requests without a key as before', async () => {
    const body = { driver_id: 'd-unkeyed', driver_name: 'Unkeyed' };
    expectSuccess(await send(acme.key, 'POST', '/dcs/dc-1/drivers', body), drivers.createDriver);
    expectError(await send(acme.key, 'POST', '/dcs/dc-1/drivers', body), 400, 2000);
  });

  // Last: it deletes this file's deliveries queue.
  it('frees the key after a 5xx, so that the request can be sent again', async () => {
    const created = await send(acme.key, 'POST', '/webhooks', createBody('https://receiver.example/hooks'));
    const { webhook } = expectSuccess(created, webhooks.createWebhook) as { webhook: { id: string } };
    await new SQSClient({}).send(new DeleteQueueCommand({ QueueUrl: fx.api.resources.queueUrls.deliveries }));
    const key = newKey();
    const path = `/webhooks/${webhook.id}/test`;
    expectError(await send(acme.key, 'POST', path, undefined, key), 500, 1000);
    expect(await storedKey({ accountId: acme.accountId }, key)).toBeUndefined();
    const again = await send(acme.key, 'POST', path, undefined, key);
    expectError(again, 500, 1000);
    expect(replayed(again)).toBeNull();
  });
});
