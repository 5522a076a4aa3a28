import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { accountKeys } from '../../functions/data/accounts';
import { db, tableName } from '../../functions/data/client';
import { ACCOUNT_LIMITS } from '../../functions/shared/limits';
import { createTestAccount } from '../support/accounts';
import { type ApiResponse, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';

/**
 * An account's webhook limits (DESIGN §2): at most 20 webhooks (the default of maxWebhooksPerAccount), and one
 * webhook per URL and event type; both hold under concurrent creates, and a delete frees what it held.
 */

const LIMIT = ACCOUNT_LIMITS.webhooks;

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi('webhook-limits', { pollers: false });
});

afterAll(() => api?.close());

async function newAccount(name: string) {
  return createTestAccount(name, [{ dcId: 'dc-1' }]);
}

const create = (key: string, url: string, events = ['ROUTE_CREATED']): Promise<ApiResponse> =>
  call(api.url, 'POST', '/webhooks', { key, body: { webhook_url: url, events, dc_ids: ['dc-1'] } });

const created = (response: ApiResponse) =>
  (expectSuccess(response, webhooks.createWebhook) as { webhook: { id: string } }).webhook;

async function count(key: string): Promise<number> {
  const listed = expectSuccess(await call(api.url, 'GET', '/webhooks', { key }), webhooks.listWebhooks) as {
    webhooks: unknown[];
  };
  return listed.webhooks.length;
}

describe('webhooks per account', () => {
  // About 25 calls one after another: a few seconds alone, many more on a loaded machine (hence the timeout).
  it(`refuses the ${LIMIT + 1}st webhook with 400 (4004), and a delete frees a place`, async () => {
    const { key } = await newAccount('Acme');
    const ids: string[] = [];
    for (let n = 1; n <= LIMIT; n++) ids.push(created(await create(key, `http://127.0.0.1:9/hook-${n}`)).id);
    const message = expectError(await create(key, 'http://127.0.0.1:9/one-too-many'), 400, 4004);
    expect(message).toContain(`${LIMIT} webhooks`);
    expect(await count(key)).toBe(LIMIT);

    expectSuccess(await call(api.url, 'DELETE', `/webhooks/${ids[0]}`, { key }), webhooks.deleteWebhook);
    created(await create(key, 'http://127.0.0.1:9/one-too-many'));
    expectError(await create(key, 'http://127.0.0.1:9/yet-another'), 400, 4004);
    // Deleting what is gone frees nothing.
    expectError(await call(api.url, 'DELETE', `/webhooks/${ids[0]}`, { key }), 404, 1003);
    expectError(await create(key, 'http://127.0.0.1:9/yet-another'), 400, 4004);
  }, 120_000);

  it(`lets exactly ${LIMIT} of 30 concurrent creates through`, async () => {
    const { key } = await newAccount('Globex');
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, n) => create(key, `http://127.0.0.1:9/concurrent-${n}`)),
    );
    const succeeded = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status !== 200);
    expect(succeeded).toHaveLength(LIMIT);
    for (const response of refused) expectError(response, 400, 4004);
    expect(await count(key)).toBe(LIMIT);
  });

  it('counts each account on its own', async () => {
    const { key } = await newAccount('Initech');
    created(await create(key, 'http://127.0.0.1:9/hook-1'));
    expect(await count(key)).toBe(1);
  });
});

describe('one webhook per URL and event type', () => {
  it('refuses the same URL for an event type it already gets, with 400 (4005) naming the field', async () => {
    const { key } = await newAccount('Umbrella');
    created(await create(key, 'https://hooks.example.com/in', ['ROUTE_CREATED', 'ROUTE_STARTED']));
    const message = expectError(await create(key, 'https://hooks.example.com/in'), 400, 4005);
    expect(message).toMatch(/^webhook_url: .*ROUTE_CREATED/);
    // Overlapping event types are refused too; disjoint ones are another target.
    expectError(
      await create(key, 'https://hooks.example.com/in', ['ROUTE_STARTED', 'ROUTE_FINISHED']),
      400,
      4005,
    );
    created(await create(key, 'https://hooks.example.com/in', ['ROUTE_FINISHED', 'WAYPOINT_STATUS_CHANGED']));
    expect(await count(key)).toBe(2);
  });

  it('compares normalized URLs: scheme and host case, default port, fragment', async () => {
    const { key } = await newAccount('Stark');
    created(await create(key, 'https://hooks.example.com/in?a=1'));
    for (const same of [
      'HTTPS://Hooks.Example.COM/in?a=1',
      'https://hooks.example.com:443/in?a=1',
      'https://hooks.example.com/in?a=1#top',
      'https://hooks.example.com/./in?a=1',
    ]) {
      expectError(await create(key, same), 400, 4005);
    }
    // Another path, query, scheme or port is another URL.
    for (const other of [
      'https://hooks.example.com/IN?a=1',
      'https://hooks.example.com/in?a=2',
      'http://hooks.example.com/in?a=1',
      'https://hooks.example.com:8443/in?a=1',
    ]) {
      created(await create(key, other));
    }
  });

  it('lets another account register the same URL and event type', async () => {
    const first = await newAccount('Wayne');
    const second = await newAccount('Tyrell');
    created(await create(first.key, 'https://hooks.example.com/shared'));
    created(await create(second.key, 'https://hooks.example.com/shared'));
  });

  it('frees the URL and event types of a deleted webhook, and keeps them through disable and enable', async () => {
    const { key } = await newAccount('Cyberdyne');
    const webhook = created(await create(key, 'https://hooks.example.com/again'));
    const patch = (body: unknown) => call(api.url, 'PATCH', `/webhooks/${webhook.id}`, { key, body });
    expectSuccess(await patch({ enabled: false }), webhooks.updateWebhook);
    expectError(await create(key, 'https://hooks.example.com/again'), 400, 4005);
    expectSuccess(await patch({ enabled: true }), webhooks.updateWebhook);
    // An update cannot move a webhook onto another's target: its URL and events cannot change at all.
    expectError(await patch({ enabled: true, webhook_url: 'https://hooks.example.com/x' }), 400, 1006);

    expectSuccess(await call(api.url, 'DELETE', `/webhooks/${webhook.id}`, { key }), webhooks.deleteWebhook);
    created(await create(key, 'https://hooks.example.com/again'));
  });

  it('lets one of 8 concurrent creates of the same URL and event type through', async () => {
    const { key } = await newAccount('Soylent');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => create(key, 'https://hooks.example.com/race')),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 400, 4005);
    expect(await count(key)).toBe(1);
  });
});

describe('webhooks made before the limits', () => {
  it('are counted when the account next creates or deletes one', async () => {
    const { accountId, key } = await newAccount('Legacy');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    // LIMIT webhook items as the service wrote them before it counted them: no counter, no target claims.
    for (let n = 1; n <= LIMIT; n++) {
      await db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            pk: accountKeys.partition(accountId),
            sk: `WEBHOOK#wh_legacy${n}`,
            entity: 'WEBHOOK',
            account_id: accountId,
            webhook_id: `wh_legacy${n}`,
            url: `http://127.0.0.1:9/legacy-${n}`,
            enabled: true,
            dc_ids: ['dc-1'],
            events: ['ROUTE_CREATED'],
            secret: 'whsec_legacy',
            created_at: n,
          },
        }),
      );
    }
    expectError(await create(key, 'http://127.0.0.1:9/new'), 400, 4004);
    expectSuccess(await call(api.url, 'DELETE', '/webhooks/wh_legacy1', { key }), webhooks.deleteWebhook);
    created(await create(key, 'http://127.0.0.1:9/new'));
    expect(await count(key)).toBe(LIMIT);
  });
});
