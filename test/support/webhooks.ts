import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { db } from '../../functions/data/client';
import { verifySignature } from '../../functions/domain/webhook-http';
import {
  type EventType,
  SUBSCRIBABLE_EVENTS,
  WEBHOOK_BODY_SCHEMAS,
} from '../../functions/models/event-catalog';
import * as z from '../../functions/shared/zod';
import { createTestAccount } from './accounts';
import { type TestAccount, type TestApiFixture, useTestApi } from './fixtures';
import { expectSuccess } from './http';
import type { TestApiOptions } from './local-api';
import {
  eventIdOf,
  eventTypeOf,
  headerOf,
  independentlyVerified,
  type ReceivedDelivery,
  standardVerified,
  startWebhookReceiver,
  type WebhookReceiver,
  waitUntil,
} from './webhook-receiver';

/** Webhooks through the API in e2e tests: calls of the webhook endpoints and checks of what receivers got. */

export type Webhook = z.infer<typeof webhooks.Webhook>;
export type CreatedWebhook = Webhook & { secret: string };
export type DeliveryAttempt = z.infer<typeof webhooks.DeliveryAttempt>;

/** Every type a webhook can subscribe to, from the event catalog. */
export const ALL_EVENTS: string[] = [...SUBSCRIBABLE_EVENTS];

export const MINUTE = 60_000;

export const createBody = (url: string, events = ALL_EVENTS, dcIds = ['dc-1']) => ({
  webhook_url: url,
  events,
  dc_ids: dcIds,
});

/** The view every read shows: the creation answer without the secret. */
export const viewOf = ({ secret: _secret, ...view }: CreatedWebhook): Webhook => view;

/** The delivery log's entry for the first attempt at the PING `eventId`, which ended as `outcome` says. */
export const firstPingAttempt = (
  eventId: string,
  outcome: { status_code: unknown; error: unknown; duration_ms: unknown },
) => ({
  delivery_id: expect.stringMatching(/^dlv_/),
  redelivery_of: null,
  event_id: eventId,
  event_type: 'PING',
  attempt: 1,
  ...outcome,
  timestamp: expect.any(Number),
});

/**
 * The webhook calls of a test file, as `account()` (by default) or another key, and its receivers, closed
 * after the file (call at the top of the file, after `useTestApi`).
 */
export function useWebhooks(fx: TestApiFixture, account: () => TestAccount) {
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  const keyOf = (key?: string) => key ?? account().key;
  const asAccount = (method: string, path: string, body?: unknown) => fx.as(keyOf(), method, path, body);

  async function createWebhook(
    url: string,
    events = ALL_EVENTS,
    dcIds = ['dc-1'],
    key?: string,
  ): Promise<CreatedWebhook> {
    const response = await fx.request('POST', '/webhooks', {
      key: keyOf(key),
      body: createBody(url, events, dcIds),
    });
    return (expectSuccess(response, webhooks.createWebhook) as { webhook: CreatedWebhook }).webhook;
  }

  async function listWebhooks(key?: string): Promise<Webhook[]> {
    const response = await fx.request('GET', '/webhooks', { key: keyOf(key) });
    return (expectSuccess(response, webhooks.listWebhooks) as { webhooks: Webhook[] }).webhooks;
  }

  async function deliveriesOf(id: string, key?: string): Promise<DeliveryAttempt[]> {
    const response = await fx.request('GET', `/webhooks/${id}/deliveries`, { key: keyOf(key) });
    return (expectSuccess(response, webhooks.listWebhookDeliveries) as { deliveries: DeliveryAttempt[] })
      .deliveries;
  }

  return {
    asAccount,
    createWebhook,
    listWebhooks,
    deliveriesOf,
    /** The newest attempt of the webhook's delivery log, once it has one. */
    async newestAttempt(id: string): Promise<DeliveryAttempt> {
      const [attempt] = await waitUntil(`a delivery attempt of ${id}`, async () => {
        const log = await deliveriesOf(id);
        return log.length > 0 ? log : undefined;
      });
      return attempt as DeliveryAttempt;
    },
    async receiver(...args: Parameters<typeof startWebhookReceiver>) {
      const started = await startWebhookReceiver(...args);
      receivers.push(started);
      return started;
    },
    async setEnabled(id: string, enabled: boolean, method: 'PATCH' | 'PUT' = 'PATCH'): Promise<Webhook> {
      const response = await asAccount(method, `/webhooks/${id}`, { enabled });
      return (expectSuccess(response, webhooks.updateWebhook) as { webhook: Webhook }).webhook;
    },
    async sendTest(id: string): Promise<string> {
      const response = await asAccount('POST', `/webhooks/${id}/test`);
      return (expectSuccess(response, webhooks.testWebhook) as { event_id: string }).event_id;
    },
    /** Sends a PING to the webhook and waits for it at the receiver. */
    async ping(to: WebhookReceiver, id: string): Promise<ReceivedDelivery> {
      const response = await asAccount('POST', `/webhooks/${id}/test`);
      const { event_id: eventId } = expectSuccess(response, webhooks.testWebhook) as { event_id: string };
      const [delivery] = await to.waitFor((received) => eventIdOf(received) === eventId);
      return delivery as ReceivedDelivery;
    },
    async rotate(id: string, body?: unknown) {
      const response = await asAccount('POST', `/webhooks/${id}/rotate-secret`, body);
      return expectSuccess(response, webhooks.rotateWebhookSecret) as {
        webhook_id: string;
        secret: string;
        previous_secret_expires_at: number;
      };
    },
    async deleteWebhook(id: string) {
      expect(expectSuccess(await asAccount('DELETE', `/webhooks/${id}`), webhooks.deleteWebhook)).toEqual({});
    },
  };
}

/**
 * The local API of a webhook test file (`useTestApi`), its two accounts made in a beforeAll: Acme (dc-1,
 * dc-2) and Globex, with a DC with the same id as one of Acme's (webhooks never cross accounts) and gx-1;
 * and the webhook calls of `useWebhooks`, as Acme. Call at the top of the file.
 */
export function useWebhookApi(name: string, options?: TestApiOptions) {
  const fx = useTestApi(name, options);
  const accounts = {} as { acme: TestAccount; globex: TestAccount };
  beforeAll(async () => {
    accounts.acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
    accounts.globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }, { dcId: 'gx-1' }]);
  });
  return { fx, request: fx.request, accounts, ...useWebhooks(fx, () => accounts.acme) };
}

/**
 * Headers and signatures of one delivery: `webhook-signature` checked with the `standardwebhooks` package,
 * the older X-Signature with the service's verifier and independently.
 */
export function expectSigned(delivery: ReceivedDelivery, webhook: CreatedWebhook, type: EventType) {
  expect(delivery.method).toBe('POST');
  // The body is the event catalog's for the type, every field declared (what the OpenAPI document shows).
  const documented = z.strictObject(WEBHOOK_BODY_SCHEMAS[type].shape).safeParse(delivery.json);
  expect(documented.error?.issues ?? []).toEqual([]);
  expect(headerOf(delivery, 'Content-Type')).toMatch(/^application\/json\b/);
  expect(headerOf(delivery, 'X-Webhook-Id')).toBe(webhook.id);
  expect(headerOf(delivery, 'X-Event-Type')).toBe(type);
  expect(headerOf(delivery, 'webhook-id')).toBe(delivery.json.event_id);
  expect(headerOf(delivery, 'X-Event-Id')).toBe(delivery.json.event_id);
  const timestamp = Number(headerOf(delivery, 'webhook-timestamp'));
  expect(timestamp * 1000).toBeLessThanOrEqual(delivery.receivedAt);
  expect(timestamp * 1000).toBeGreaterThan(delivery.receivedAt - MINUTE);
  // One signature per valid secret (two during a rotation).
  expect(headerOf(delivery, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$/);
  expect(standardVerified(webhook.secret, delivery)).toBe(true);
  expect(standardVerified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, delivery)).toBe(false);
  const signature = headerOf(delivery, 'X-Signature') ?? '';
  expect(signature).toMatch(/^t=\d+(,v1=[0-9a-f]{64}){1,2}$/);
  const t = Number(/^t=(\d+)/.exec(signature)?.[1]);
  expect(t).toBeLessThanOrEqual(delivery.receivedAt);
  expect(t).toBeGreaterThan(delivery.receivedAt - MINUTE);
  expect(verifySignature(webhook.secret, signature, delivery.body)).toBe(true);
  expect(independentlyVerified(webhook.secret, signature, delivery.body)).toBe(true);
  // Neither check passes with another secret or with other bytes.
  expect(verifySignature(`${webhook.secret}x`, signature, delivery.body)).toBe(false);
  expect(independentlyVerified(`${webhook.secret}x`, signature, delivery.body)).toBe(false);
  expect(verifySignature(webhook.secret, signature, delivery.body.replace('}', ', "x": 1}'))).toBe(false);
}

/** The time the event happened is the time of the action that caused it. */
export function expectHookTime(delivery: ReceivedDelivery, actionStartedAt: number) {
  const hookTime = delivery.json.hook_timestamp_millis as number;
  expect(hookTime).toEqual(expect.any(Number));
  expect(hookTime).toBeGreaterThanOrEqual(actionStartedAt);
  expect(hookTime).toBeLessThanOrEqual(delivery.receivedAt);
}

/** The one delivery of `type` (for the route) at the receiver; waits for it. */
export async function arrived(
  to: WebhookReceiver,
  type: string,
  routeId?: string,
): Promise<ReceivedDelivery> {
  const [delivery] = await to.waitFor(
    (delivery) =>
      eventTypeOf(delivery) === type && (routeId === undefined || delivery.json.route_id === routeId),
  );
  return delivery as ReceivedDelivery;
}

/** The key of a webhook's item in the table. */
const webhookKey = (accountId: string, id: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `WEBHOOK#${id}` });

/** The webhook's item as the table holds it, read with the operator's DynamoDB client. */
export async function rawWebhookItem(tableName: string, accountId: string, id: string) {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: webhookKey(accountId, id) }));
  if (!Item) throw new Error(`no item for webhook ${id}`);
  return Item as Record<string, unknown>;
}

/** Writes a webhook's stored secret as the operator (a secret of an older form, or a copied one). */
export async function setStoredSecret(tableName: string, accountId: string, id: string, secret: unknown) {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: webhookKey(accountId, id),
      UpdateExpression: 'SET #secret = :secret',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#secret': 'secret' },
      ExpressionAttributeValues: { ':secret': secret },
    }),
  );
}

/** Runs `action` while recording everything written to stdout and stderr (the logger writes JSON lines there). */
export async function capturingLogs<T>(action: () => Promise<T>): Promise<{ result: T; logs: string }> {
  const chunks: string[] = [];
  const record = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(record);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(record);
  try {
    return { result: await action(), logs: chunks.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
