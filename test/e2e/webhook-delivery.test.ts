import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as webhooks from '../../functions/api/webhooks/index';
import { encodeNextToken } from '../../functions/data/pagination';
import type { Delivery } from '../../functions/data/webhook-deliveries';
import { newDeliveryId, recordDeliveryOutcome } from '../../functions/data/webhook-deliveries';
import type { DeliveryMessage } from '../../functions/domain/webhook-events';
import { REDELIVERY_CLAIM_HOLDS_MS } from '../../functions/domain/webhook-events';
import { verifySignature } from '../../functions/domain/webhook-http';
import { redeliver } from '../../functions/domain/webhooks';
import { configure } from '../../functions/shared/config';
import { createTestAccount } from '../support/accounts';
import { functionOf } from '../support/cdk';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { exampleRoute, importRoute } from '../support/routes';
import {
  type Answer,
  eventIdOf,
  findInDeliveriesDlq,
  headerOf,
  independentlyVerified,
  type ReceivedDelivery,
  sleep,
  standardVerified,
  startWebhookReceiver,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';

/**
 * Webhook delivery when receivers fail: retries on the schedule, timeouts, the DLQ at the end of the
 * schedule, auto-disable, and webhooks disabled or deleted while a retry waits. The delivery consumer's
 * settings are shortened in its CDK definition for this file (its environment, as a deploy would set it):
 * - retries after 1 s and 1 s: three attempts in about 2 to 4 s, then the DLQ;
 * - a 500 ms timeout;
 * - disabled after failing for 8 s: well past one event's three attempts, so only a second event's
 *   failure, sent after that, disables.
 */
const RETRY_DELAYS_SECONDS = [1, 1];
const TIMEOUT_MS = 500;
const DISABLE_AFTER_SECONDS = 8;

type Webhook = z.infer<typeof webhooks.Webhook>;
type CreatedWebhook = Webhook & { secret: string };
type DeliveryAttempt = z.infer<typeof webhooks.DeliveryAttempt>;

const fx = useTestApi('webhook-delivery', {
  streams: true,
  customize: (routes) => {
    const worker = functionOf(routes, 'workers/deliver-webhooks');
    worker.addEnvironment('WEBHOOK_RETRY_DELAYS_SECONDS', RETRY_DELAYS_SECONDS.join(','));
    worker.addEnvironment('WEBHOOK_TIMEOUT_MS', String(TIMEOUT_MS));
    worker.addEnvironment('WEBHOOK_DISABLE_AFTER_SECONDS', String(DISABLE_AFTER_SECONDS));
  },
});
const { request } = fx;
let acme: TestAccount;
const receivers: WebhookReceiver[] = [];

const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/** A receiver and a webhook to it; PINGs only, unless other events are asked for (dc-2 never has routes). */
async function hookedReceiver(
  answer: (delivery: ReceivedDelivery, nthOfEvent: number) => Answer | Promise<Answer>,
  events = ['ROUTE_FINISHED'],
  dcIds = ['dc-2'],
): Promise<{ receiver: WebhookReceiver; webhook: CreatedWebhook }> {
  const receiver = await startWebhookReceiver(answer);
  receivers.push(receiver);
  const response = await asAcme('POST', '/webhooks', { webhook_url: receiver.url, events, dc_ids: dcIds });
  const { webhook } = expectSuccess(response, webhooks.createWebhook) as { webhook: CreatedWebhook };
  return { receiver, webhook };
}

async function getWebhook(id: string): Promise<Webhook | undefined> {
  const response = await asAcme('GET', '/webhooks');
  return (expectSuccess(response, webhooks.listWebhooks) as { webhooks: Webhook[] }).webhooks.find(
    (webhook) => webhook.id === id,
  );
}

async function deliveriesOf(id: string): Promise<DeliveryAttempt[]> {
  const response = await asAcme('GET', `/webhooks/${id}/deliveries`);
  return (expectSuccess(response, webhooks.listWebhookDeliveries) as { deliveries: DeliveryAttempt[] })
    .deliveries;
}

/** The delivery log once it holds `count` attempts (each is written just after its POST ended). */
const loggedAttempts = (id: string, count: number) =>
  waitUntil(`${count} logged attempts of ${id}`, async () => {
    const log = await deliveriesOf(id);
    return log.length >= count ? log : undefined;
  });

async function sendTest(id: string): Promise<string> {
  const response = await asAcme('POST', `/webhooks/${id}/test`);
  return (expectSuccess(response, webhooks.testWebhook) as { event_id: string }).event_id;
}

function expectSigned(delivery: ReceivedDelivery, webhook: CreatedWebhook) {
  const signature = headerOf(delivery, 'X-Signature') ?? '';
  expect(headerOf(delivery, 'X-Webhook-Id')).toBe(webhook.id);
  expect(standardVerified(webhook.secret, delivery)).toBe(true);
  expect(verifySignature(webhook.secret, signature, delivery.body)).toBe(true);
  expect(independentlyVerified(webhook.secret, signature, delivery.body)).toBe(true);
}

/** Every delivery of one event: same event id, same bytes, each signed. */
function expectSameEvent(deliveries: ReceivedDelivery[], webhook: CreatedWebhook, eventId: string) {
  const [first] = deliveries;
  for (const delivery of deliveries) {
    expect(eventIdOf(delivery)).toBe(eventId);
    expect(delivery.json.event_id).toBe(eventId);
    expect(delivery.body).toBe(first?.body);
    expectSigned(delivery, webhook);
  }
}

/** Gaps between arrivals: each retry waits its delay of the schedule. */
function expectRetryGaps(deliveries: ReceivedDelivery[]) {
  deliveries.slice(1).forEach((delivery, index) => {
    const previous = deliveries[index] as ReceivedDelivery;
    const delay = (RETRY_DELAYS_SECONDS[index] as number) * 1000;
    expect(delivery.receivedAt - previous.receivedAt).toBeGreaterThanOrEqual(delay - 100);
  });
}

/** Records what is written to stdout and stderr (the logger's JSON lines) until `stop` is called. */
/** A reader of the functions' log lines from now on. */
function capturedLogs(): () => string[] {
  const from = fx.api.logs.length;
  return () => fx.api.logs.slice(from).map((record) => record.line);
}

const isHttp500 = expect.stringMatching(/500/);

// ---------------------------------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------------------------------

describe('retries', () => {
  it('redelivers an event its receiver failed twice (HTTP 500): same event id, same body, attempts 1 to 3 logged', async () => {
    const { receiver, webhook } = await hookedReceiver(
      (_delivery, nth) => (nth <= 2 ? 500 : 204),
      ['ROUTE_CREATED'],
      ['dc-1'],
    );
    const route = exampleRoute('retry-1', { waypoints: 1 });
    await importRoute(fx.api.url, acme.key, 'dc-1', route);

    const deliveries = await receiver.waitFor((delivery) => delivery.json.route_id === route.id, 3);
    const eventId = eventIdOf(deliveries[0] as ReceivedDelivery) as string;
    expect(deliveries[0]?.json).toMatchObject({ event: 'ROUTE_CREATED', dc_id: 'dc-1', route_id: route.id });
    expectSameEvent(deliveries, webhook, eventId);
    expectRetryGaps(deliveries);

    const log = await loggedAttempts(webhook.id, 3);
    const deliveryId = log[0]?.delivery_id;
    expect(deliveryId).toMatch(/^dlv_/);
    const attempt = (n: number, statusCode: number, error: unknown) => ({
      delivery_id: deliveryId,
      redelivery_of: null,
      event_id: eventId,
      event_type: 'ROUTE_CREATED',
      attempt: n,
      status_code: statusCode,
      error,
      duration_ms: expect.any(Number),
      timestamp: expect.any(Number),
    });
    // Newest first.
    expect(log).toEqual([attempt(3, 204, null), attempt(2, 500, isHttp500), attempt(1, 500, isHttp500)]);
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    expect(receiver.deliveries).toHaveLength(3);
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);
  });

  it(`retries a receiver that does not answer within WEBHOOK_TIMEOUT_MS (${TIMEOUT_MS} ms) instead of losing the event`, async () => {
    const { receiver, webhook } = await hookedReceiver((_delivery, nth) => (nth === 1 ? 'hang' : 200));
    const eventId = await sendTest(webhook.id);

    const deliveries = await receiver.waitFor((delivery) => eventIdOf(delivery) === eventId, 2);
    expectSameEvent(deliveries, webhook, eventId);
    const [first, second] = deliveries as [ReceivedDelivery, ReceivedDelivery];
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(TIMEOUT_MS + 1000 - 100);

    const [succeeded, timedOut] = await loggedAttempts(webhook.id, 2);
    expect(succeeded).toMatchObject({ event_id: eventId, attempt: 2, status_code: 200, error: null });
    expect(timedOut).toMatchObject({
      event_id: eventId,
      event_type: 'PING',
      attempt: 1,
      status_code: null,
      error: expect.stringMatching(/time/i),
    });
    expect(timedOut?.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(timedOut?.duration_ms).toBeLessThan(TIMEOUT_MS + 2000);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(2);
  });

  it('gives up after the schedule (3 attempts): the delivery goes to the DLQ, every attempt is logged', async () => {
    const { receiver, webhook } = await hookedReceiver(() => 500);
    const logs = capturedLogs();
    const eventId = await sendTest(webhook.id);
    const dead = await findInDeliveriesDlq<DeliveryMessage>(
      fx.api,
      (body) => body.webhook_id === webhook.id && body.event?.event_id === eventId,
    );
    expect(dead).toMatchObject({
      account_id: acme.accountId,
      webhook_id: webhook.id,
      event: { event_id: eventId, type: 'PING' },
      attempt: 3,
    });
    // The worker sends to the DLQ before its invocation ends, and with it the invocation's log lines.
    await waitUntil('a log line about the delivery given up', async () =>
      logs().find((line) => line.includes(eventId) && line.includes(webhook.id) && /given up/i.test(line)),
    );

    await waitForQueuesDrained(fx.api, ['deliveries']);
    const deliveries = receiver.deliveries;
    expect(deliveries).toHaveLength(3);
    expectSameEvent(deliveries, webhook, eventId);
    expectRetryGaps(deliveries);
    const log = await loggedAttempts(webhook.id, 3);
    expect(log.map((attempt) => [attempt.attempt, attempt.status_code, attempt.event_id])).toEqual([
      [3, 500, eventId],
      [2, 500, eventId],
      [1, 500, eventId],
    ]);
    for (const attempt of log) expect(attempt.error).toEqual(isHttp500);
    // Three attempts in a few seconds: not yet long enough to disable the webhook.
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------
// Disabled and deleted webhooks
// ---------------------------------------------------------------------------------------------------

describe('disabled and deleted webhooks', () => {
  it(`disables a webhook whose deliveries failed continuously for ${DISABLE_AFTER_SECONDS} s; enabling it starts afresh`, async () => {
    const { receiver, webhook } = await hookedReceiver(() => 500);
    // A first event fails its three attempts within a few seconds and is given up.
    const firstEvent = await sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === firstEvent, 3);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);

    // The next failure after the webhook has been failing for DISABLE_AFTER_SECONDS disables it.
    const failingSince = (receiver.deliveries[0] as ReceivedDelivery).receivedAt;
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_SECONDS * 1000 + 300 - Date.now()));
    const secondEvent = await sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === secondEvent);
    const disabled = await waitUntil('the webhook disabled', async () => {
      const listed = await getWebhook(webhook.id);
      return listed?.enabled === false ? listed : undefined;
    });
    expect(disabled).toEqual({
      id: webhook.id,
      url: webhook.url,
      enabled: false,
      dc_ids: webhook.dc_ids,
      events: webhook.events,
    });
    await waitForQueuesDrained(fx.api, ['deliveries']);
    // Disabled at that failure: no retry of the second event.
    expect(receiver.deliveries.filter((delivery) => eventIdOf(delivery) === secondEvent)).toHaveLength(1);
    const log = await loggedAttempts(webhook.id, 4);
    expect(log.map((attempt) => [attempt.event_id, attempt.attempt, attempt.status_code])).toEqual([
      [secondEvent, 1, 500],
      [firstEvent, 3, 500],
      [firstEvent, 2, 500],
      [firstEvent, 1, 500],
    ]);

    // Nothing goes to a disabled webhook.
    await sendTest(webhook.id);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(4);

    // Enabled again, the failure run starts afresh: a new failure does not disable it at once.
    const response = await asAcme('PATCH', `/webhooks/${webhook.id}`, { enabled: true });
    expect((expectSuccess(response, webhooks.updateWebhook) as { webhook: Webhook }).webhook.enabled).toBe(
      true,
    );
    const thirdEvent = await sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === thirdEvent, 3);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);
    expect(receiver.deliveries).toHaveLength(7);
  }, 45_000);

  it('sends nothing more to a webhook disabled while a delivery waits for its retry', async () => {
    let webhookId = '';
    const { receiver, webhook } = await hookedReceiver(async (_delivery, nth) => {
      // Disabled before the first attempt is even answered: the retry is queued for a disabled webhook.
      if (nth === 1) {
        const response = await asAcme('PATCH', `/webhooks/${webhookId}`, { enabled: false });
        expect(response.status, response.text).toBe(200);
      }
      return 500;
    });
    webhookId = webhook.id;
    const eventId = await sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === eventId);
    const [attempt] = await loggedAttempts(webhook.id, 1);
    expect(attempt).toMatchObject({ event_id: eventId, attempt: 1, status_code: 500 });
    // The retry (due a second later) has been taken off the queue and dropped.
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(1);
    expect(await deliveriesOf(webhook.id)).toHaveLength(1);
    expect((await getWebhook(webhook.id))?.enabled).toBe(false);
  });

  it('sends nothing more to a webhook deleted while a delivery waits for its retry', async () => {
    let webhookId = '';
    const { receiver, webhook } = await hookedReceiver(async (_delivery, nth) => {
      if (nth === 1) {
        const response = await asAcme('DELETE', `/webhooks/${webhookId}`);
        expect(response.status, response.text).toBe(200);
      }
      return 500;
    });
    webhookId = webhook.id;
    const eventId = await sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === eventId);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(1);
    expect(await getWebhook(webhook.id)).toBeUndefined();
    expectError(await asAcme('GET', `/webhooks/${webhook.id}/deliveries`), 404, 1003);
  });
});

// ---------------------------------------------------------------------------------------------------
// Redelivery
// ---------------------------------------------------------------------------------------------------

type Redelivery = { delivery_id: string; redelivery_of: string };
type WindowAnswer = { redeliveries: Redelivery[]; next_token?: string };

async function redeliverOne(webhookId: string, deliveryId: string): Promise<Redelivery> {
  const response = await asAcme('POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`);
  return expectSuccess(response, webhooks.redeliverWebhookDelivery, 202);
}

async function redeliverWindow(webhookId: string, body: Record<string, unknown>): Promise<WindowAnswer> {
  const response = await asAcme('POST', `/webhooks/${webhookId}/redeliver`, body);
  return expectSuccess(response, webhooks.redeliverFailedWebhookDeliveries, 202);
}

/** A receiver that answers 500 while `state.up` is false, 204 once it is, and keeps what it answered 204. */
async function outageReceiver() {
  const state = { up: false, accepted: [] as ReceivedDelivery[] };
  const hooked = await hookedReceiver((delivery) => {
    if (!state.up) return 500;
    state.accepted.push(delivery);
    return 204;
  });
  return { ...hooked, state };
}

/** Sends `count` PINGs at once; waits until each failed its three attempts and nothing is left queued. */
async function failedPings(webhookId: string, receiver: WebhookReceiver, count: number): Promise<string[]> {
  const eventIds = await Promise.all(Array.from({ length: count }, () => sendTest(webhookId)));
  await receiver.waitFor((delivery) => eventIds.includes(eventIdOf(delivery) as string), 3 * count);
  await waitForQueuesDrained(fx.api, ['deliveries']);
  return eventIds;
}

/**
 * A queue of the test's own that nothing consumes. `queueing` runs the service's code with it in place of the
 * deliveries queue, so what that code queues waits here (a redelivery stays pending for as long as the test
 * needs, whatever the machine's speed); `release` hands it on to the deliveries queue, as SQS would.
 */
async function heldQueue() {
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const { QueueUrl: url } = await sqs.send(
    new CreateQueueCommand({ QueueName: `held-deliveries-${randomBytes(4).toString('hex')}` }),
  );
  if (!url) throw new Error('the held queue was not created');
  return {
    async queueing<T>(action: () => Promise<T>): Promise<T> {
      configure({ ...fx.api.cloud.operatorEnvironment, DELIVERY_QUEUE_URL: url });
      try {
        return await action();
      } finally {
        configure(fx.api.cloud.operatorEnvironment);
      }
    },
    /** Moves every held message to the deliveries queue; answers how many there were. */
    async release(): Promise<number> {
      let moved = 0;
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (Messages.length === 0) return moved;
        for (const message of Messages) {
          await sqs.send(
            new SendMessageCommand({
              QueueUrl: fx.api.resources.queueUrls.deliveries,
              MessageBody: message.Body,
            }),
          );
          await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
          moved++;
        }
      }
    },
    async close() {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
      sqs.destroy();
    },
  };
}

/** The body the receiver first got for the event: a redelivery sends the same bytes. */
const firstBodyOf = (receiver: WebhookReceiver, eventId: string) =>
  receiver.deliveries.find((delivery) => eventIdOf(delivery) === eventId)?.body;

describe('redelivery', () => {
  it('redelivers one past delivery: same body and webhook-id, signed afresh, logged as a redelivery of it', async () => {
    const { receiver, webhook, state } = await outageReceiver();
    const since = Date.now();
    const [eventId] = (await failedPings(webhook.id, receiver, 1)) as [string];
    const failed = await loggedAttempts(webhook.id, 3);
    const originalId = failed[0]?.delivery_id as string;
    expect(failed.map((attempt) => attempt.delivery_id)).toEqual([originalId, originalId, originalId]);

    expectError(
      await asAcme('POST', `/webhooks/${webhook.id}/deliveries/dlv_0000000000000ffff/redeliver`),
      404,
      1003,
    );
    // The receiver is up: anything sent from now on is accepted, and counted.
    state.up = true;
    const held = await heldQueue();
    try {
      // The redelivery's message waits in the held queue: it stays pending for as long as the test needs.
      const queued = await held.queueing(() => redeliver(acme.accountId, webhook.id, originalId));
      const redelivery: Redelivery = { delivery_id: queued.deliveryId, redelivery_of: queued.redeliveryOf };
      expect(redelivery).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), redelivery_of: originalId });
      expect(redelivery.delivery_id).not.toBe(originalId);
      // While it is pending, asking again (for the original or for the redelivery) answers it and sends
      // nothing; a window redelivery leaves it alone too.
      expect(await redeliverOne(webhook.id, originalId)).toEqual(redelivery);
      expect(await redeliverOne(webhook.id, redelivery.delivery_id)).toEqual(redelivery);
      const window = { since, until: Date.now(), status: 'FAILED' };
      expect(await redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
      await waitForQueuesDrained(fx.api, ['deliveries']);
      expect(state.accepted).toEqual([]);

      // SQS hands the redelivery on: it is sent, once.
      expect(await held.release()).toBe(1);
      const [again] = (await waitUntil('the redelivery accepted', () =>
        state.accepted.length > 0 ? state.accepted : undefined,
      )) as [ReceivedDelivery];
      await waitForQueuesDrained(fx.api, ['deliveries']);
      expect(state.accepted).toHaveLength(1);
      expect(again.body).toBe(firstBodyOf(receiver, eventId));
      expect(headerOf(again, 'webhook-id')).toBe(eventId);
      const firstTry = receiver.deliveries[0] as ReceivedDelivery;
      expect(Number(headerOf(again, 'webhook-timestamp'))).toBeGreaterThanOrEqual(
        Number(headerOf(firstTry, 'webhook-timestamp')),
      );
      expect(headerOf(again, 'webhook-signature')).not.toBe(headerOf(firstTry, 'webhook-signature'));
      expectSigned(again, webhook);

      const log = await deliveriesOf(webhook.id);
      const redelivered = log.filter((attempt) => attempt.delivery_id === redelivery.delivery_id);
      expect(redelivered).toHaveLength(1);
      expect(redelivered[0]).toMatchObject({
        redelivery_of: originalId,
        event_id: eventId,
        event_type: 'PING',
        attempt: 1,
        status_code: 204,
        error: null,
      });

      // Once it has ended, asking again sends the event again, as a new redelivery of the original.
      const second = await redeliverOne(webhook.id, originalId);
      expect(second.redelivery_of).toBe(originalId);
      expect(second.delivery_id).not.toBe(redelivery.delivery_id);
      await waitUntil('the second redelivery accepted', () =>
        state.accepted.length === 2 ? true : undefined,
      );
      await waitForQueuesDrained(fx.api, ['deliveries']);
      expect(state.accepted).toHaveLength(2);
      expect(state.accepted[1]?.body).toBe(again.body);
    } finally {
      await held.close();
    }
  }, 60_000);

  it('redelivers a delivery whose redelivery was claimed but never queued, once the claim has expired', async () => {
    const { receiver, webhook, state } = await outageReceiver();
    const since = Date.now();
    const [staleEvent, freshEvent] = (await failedPings(webhook.id, receiver, 2)) as [string, string];
    const log = await loggedAttempts(webhook.id, 6);
    const originalOf = (eventId: string) =>
      log.find((attempt) => attempt.event_id === eventId)?.delivery_id as string;

    // Claims written as a redelivery request writes them, by a call that then died before it queued the
    // redelivery: the original marked (conditionally, at `at`) and the redelivery recorded as pending.
    const data = await import('../../functions/data/webhook-deliveries');
    const claimWithoutQueueing = async (eventId: string, at: number, seen?: string) => {
      const originalId = originalOf(eventId);
      const original = (await data.getDelivery(acme.accountId, webhook.id, originalId)) as Delivery;
      const redeliveryId = data.newDeliveryId(at);
      const mark = { redeliveryId, seen, onlyIfFailed: seen === undefined, at, claimExpiredBefore: 0 };
      expect(await data.markRedelivery(acme.accountId, webhook.id, originalId, mark)).toBe(true);
      await data.recordDeliveryOutcome(acme.accountId, webhook.id, {
        deliveryId: redeliveryId,
        redeliveryOf: originalId,
        eventId,
        eventType: original.eventType,
        eventJson: original.eventJson,
        status: 'PENDING',
        attempt: 0,
        firstAttemptAt: at,
        at,
      });
      return { originalId, redeliveryId };
    };
    const expiredAt = () => Date.now() - REDELIVERY_CLAIM_HOLDS_MS - 60_000;
    const stale = await claimWithoutQueueing(staleEvent, expiredAt());
    const fresh = await claimWithoutQueueing(freshEvent, Date.now());
    state.up = true;

    // The window redelivery takes the delivery whose claim expired, and leaves the one whose claim holds.
    const window = { since, until: Date.now(), status: 'FAILED' };
    const { redeliveries } = await redeliverWindow(webhook.id, window);
    expect(redeliveries).toEqual([
      { delivery_id: expect.stringMatching(/^dlv_/), redelivery_of: stale.originalId },
    ]);
    expect(redeliveries[0]?.delivery_id).not.toBe(stale.redeliveryId);
    await waitUntil('the event of the expired claim accepted', () =>
      state.accepted.length > 0 ? true : undefined,
    );
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(state.accepted.map(eventIdOf)).toEqual([staleEvent]);
    expect(await data.getDelivery(acme.accountId, webhook.id, stale.originalId)).toMatchObject({
      redeliveredAs: redeliveries[0]?.delivery_id,
      redeliveryStatus: 'SUCCEEDED',
    });
    expect(await redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    // A claim that holds is a pending redelivery: asking for the delivery again answers it.
    const pending = { delivery_id: fresh.redeliveryId, redelivery_of: fresh.originalId };
    expect(await redeliverOne(webhook.id, fresh.originalId)).toEqual(pending);

    // Once that claim has expired too, asking for the delivery sends it.
    const expired = await claimWithoutQueueing(freshEvent, expiredAt(), fresh.redeliveryId);
    const single = await redeliverOne(webhook.id, fresh.originalId);
    expect(single.redelivery_of).toBe(fresh.originalId);
    expect([fresh.redeliveryId, expired.redeliveryId]).not.toContain(single.delivery_id);
    await waitUntil('the event of the second expired claim accepted', () =>
      state.accepted.length > 1 ? true : undefined,
    );
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(state.accepted.map(eventIdOf)).toEqual([staleEvent, freshEvent]);
    for (const delivery of state.accepted) {
      expect(delivery.body).toBe(firstBodyOf(receiver, eventIdOf(delivery) as string));
    }
  }, 60_000);

  it(`refuses a retry schedule that could keep a delivery pending as long as a redelivery's claim holds`, async () => {
    const { deliverySettings, REDELIVERY_CLAIM_HOLDS_MS } = await import(
      '../../functions/domain/webhook-events'
    );
    // The default schedule (7 h 51 min of waits, 12 attempts of 10 s) is well inside it.
    const defaults = deliverySettings({});
    const longest =
      defaults.retryDelaysSeconds.reduce((sum, delay) => sum + delay, 0) * 1000 +
      (defaults.retryDelaysSeconds.length + 1) * defaults.timeoutMs;
    expect(longest * 2).toBeLessThan(REDELIVERY_CLAIM_HOLDS_MS);
    expect(() => deliverySettings({ WEBHOOK_RETRY_DELAYS_SECONDS: '43200,43200' })).toThrow(/claim/);
  });

  it('answers 4010 for a delivery still being retried, and 1003 for another account’s', async () => {
    const { webhook } = await hookedReceiver(() => 204);
    // A delivery whose first attempt failed and whose retry waits (written as the delivery worker does).
    const deliveryId = newDeliveryId(Date.now());
    const event = {
      event_id: 'evt_pending',
      type: 'PING',
      dc_id: null,
      route_id: null,
      occurred_at: Date.now(),
      details: {},
    };
    await recordDeliveryOutcome(acme.accountId, webhook.id, {
      deliveryId,
      eventId: event.event_id,
      eventType: event.type,
      eventJson: JSON.stringify(event),
      status: 'PENDING',
      attempt: 1,
      error: 'HTTP 500',
      firstAttemptAt: Date.now(),
      at: Date.now(),
    });
    const path = `/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`;
    expect(expectError(await asAcme('POST', path), 400, 4010)).toContain(deliveryId);
    const globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
    expectError(await request('POST', path, { key: globex.key }), 404, 1003);
  });

  it(`catches up a webhook disabled after failing: enabled again, its failed window redelivered, every event arrives once`, async () => {
    const { receiver, webhook, state } = await outageReceiver();
    const since = Date.now();
    const givenUp = await failedPings(webhook.id, receiver, 3);
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);

    // Still failing DISABLE_AFTER_SECONDS after the first failure: the next failure disables the webhook.
    const failingSince = (receiver.deliveries[0] as ReceivedDelivery).receivedAt;
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_SECONDS * 1000 + 300 - Date.now()));
    const disabling = await sendTest(webhook.id);
    await waitUntil('the webhook disabled', async () =>
      (await getWebhook(webhook.id))?.enabled === false ? true : undefined,
    );
    // Queued for the disabled webhook: dropped, and recorded as failed.
    const dropped = await sendTest(webhook.id);
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(receiver.deliveries.filter((delivery) => eventIdOf(delivery) === dropped)).toEqual([]);
    const window = { since, until: Date.now(), status: 'FAILED' };

    // The receiver is back; nothing is redelivered to the webhook while it is disabled.
    state.up = true;
    const refused = expectError(await asAcme('POST', `/webhooks/${webhook.id}/redeliver`, window), 400, 4011);
    expect(refused).toMatch(/enable/);
    const enabled = await asAcme('PATCH', `/webhooks/${webhook.id}`, { enabled: true });
    expect((expectSuccess(enabled, webhooks.updateWebhook) as { webhook: Webhook }).webhook.enabled).toBe(
      true,
    );

    // Two calls at once: the conditional mark gives each failed delivery to one of them.
    const answers = await Promise.all([
      redeliverWindow(webhook.id, window),
      redeliverWindow(webhook.id, window),
    ]);
    const redeliveries = answers.flatMap((answer) => answer.redeliveries);
    for (const answer of answers) expect(answer.next_token).toBeUndefined();
    expect(redeliveries).toHaveLength(5);
    expect(new Set(redeliveries.map((redelivery) => redelivery.redelivery_of)).size).toBe(5);

    const events = [...givenUp, disabling, dropped];
    await waitUntil('every failed event accepted', () =>
      events.every((eventId) => state.accepted.some((delivery) => eventIdOf(delivery) === eventId))
        ? true
        : undefined,
    );
    // Pending or succeeded: calling again queues nothing.
    expect(await redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(await redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    // Each event arrived once, as it was first sent, signed.
    expect(state.accepted.map(eventIdOf).sort()).toEqual([...events].sort());
    for (const delivery of state.accepted) {
      expectSigned(delivery, webhook);
      const first = firstBodyOf(receiver, eventIdOf(delivery) as string);
      expect(delivery.body).toBe(first);
    }

    // The log: each redelivery's attempt names the delivery it sends again; the originals are the failed ones.
    const log = await deliveriesOf(webhook.id);
    const redelivered = log.filter((attempt) => attempt.redelivery_of !== null);
    expect(redelivered.map((attempt) => `${attempt.delivery_id} ${attempt.redelivery_of}`).sort()).toEqual(
      redeliveries.map((redelivery) => `${redelivery.delivery_id} ${redelivery.redelivery_of}`).sort(),
    );
    for (const attempt of redelivered)
      expect(attempt).toMatchObject({ attempt: 1, status_code: 204, error: null });
    const failedOriginals = new Set(
      log.filter((attempt) => attempt.redelivery_of === null).map((attempt) => attempt.delivery_id),
    );
    // Four were attempted before; the dropped one never was.
    expect(failedOriginals.size).toBe(4);
    for (const id of failedOriginals) expect(redeliveries.map((r) => r.redelivery_of)).toContain(id);
    expect((await getWebhook(webhook.id))?.enabled).toBe(true);
  }, 90_000);

  it('redelivers a window a page at a time: `limit` a call, oldest first, `next_token` to go on', async () => {
    const { receiver, webhook, state } = await outageReceiver();
    const since = Date.now();
    await failedPings(webhook.id, receiver, 3);
    state.up = true;
    const window = { since, until: Date.now(), status: 'FAILED', limit: 2 };

    const first = await redeliverWindow(webhook.id, window);
    expect(first.redeliveries).toHaveLength(2);
    expect(first.next_token).toEqual(expect.any(String));
    const rest = await redeliverWindow(webhook.id, { ...window, next_token: first.next_token });
    expect(rest.redeliveries).toHaveLength(1);
    expect(rest.next_token).toBeUndefined();
    const originals = [...first.redeliveries, ...rest.redeliveries].map(
      (redelivery) => redelivery.redelivery_of,
    );
    expect(originals).toEqual([...originals].sort());
    expect(new Set(originals).size).toBe(3);

    await waitUntil('the three events accepted', () => (state.accepted.length >= 3 ? true : undefined));
    await waitForQueuesDrained(fx.api, ['deliveries']);
    expect(state.accepted).toHaveLength(3);
    expect(new Set(state.accepted.map(eventIdOf)).size).toBe(3);
  }, 60_000);

  it('refuses a bad window with 1006 naming the field', async () => {
    const { webhook } = await hookedReceiver(() => 204);
    const path = `/webhooks/${webhook.id}/redeliver`;
    const now = Date.now();
    const bodies: [Record<string, unknown> | undefined, string][] = [
      [{ since: now, until: now - 1, status: 'FAILED' }, 'until'],
      [{ since: now, until: now, status: 'SUCCEEDED' }, 'status'],
      [{ since: now, until: now }, 'status'],
      [{ until: now, status: 'FAILED' }, 'since'],
      [{ since: -1, until: now, status: 'FAILED' }, 'since'],
      [{ since: 0, until: now, status: 'FAILED', limit: 101 }, 'limit'],
      [{ since: 0, until: now, status: 'FAILED', limit: 0 }, 'limit'],
      [{ since: 0, until: now, status: 'FAILED', next_token: 'not-a-token' }, 'next_token'],
      [{ since: 0, until: now, status: 'FAILED', webhook_id: 'x' }, 'webhook_id'],
    ];
    for (const [body, field] of bodies) {
      expect(expectError(await asAcme('POST', path, body), 400, 1006), JSON.stringify(body)).toContain(field);
    }
    expectError(await asAcme('POST', path), 400, 1006);
    // A token of another window or another webhook does not continue this one.
    const elsewhere = [
      { pk: `WEBHOOK_DELIVERY#${acme.accountId}/${webhook.id}`, sk: `dlv_${String(now + 10 * 60_000)}0000` },
      { pk: `WEBHOOK_DELIVERY#${acme.accountId}/wh_other`, sk: `dlv_${String(now)}0000` },
    ];
    for (const key of elsewhere) {
      const body = { since: now - 60_000, until: now, status: 'FAILED', next_token: encodeNextToken(key) };
      expect(expectError(await asAcme('POST', path, body), 400, 1006)).toContain('next_token');
    }
  });
});
