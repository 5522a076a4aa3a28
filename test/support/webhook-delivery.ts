import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, expect } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { verifySignature } from '../../functions/domain/webhook-http';
import { configure } from '../../functions/shared/config';
import { createTestAccount } from './accounts';
import { functionOf } from './cdk';
import { type TestAccount, useTestApi } from './fixtures';
import { expectSuccess } from './http';
import {
  type Answer,
  eventIdOf,
  headerOf,
  independentlyVerified,
  type ReceivedDelivery,
  standardVerified,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from './webhook-receiver';
import { type CreatedWebhook, useWebhooks, type Webhook } from './webhooks';

/**
 * The API of the webhook delivery tests (webhook-delivery.test.ts, webhook-redelivery.test.ts): receivers that
 * fail, and redeliveries. The delivery consumer's
 * settings are shortened in its CDK definition for this file (its environment, as a deploy would set it):
 * - retries after 1 s and 1 s: three attempts in about 2 to 4 s, then the DLQ;
 * - a 500 ms timeout;
 * - disabled after failing for 8 s: well past one event's three attempts, so only a second event's
 *   failure, sent after that, disables.
 */
export const RETRY_DELAYS_SECONDS = [1, 1];
export const TIMEOUT_MS = 500;
export const DISABLE_AFTER_SECONDS = 8;

export type Redelivery = { delivery_id: string; redelivery_of: string };
export type WindowAnswer = { redeliveries: Redelivery[]; next_token?: string };

/** Starts the file's API with the short delivery settings, and an account with dc-1 and dc-2 (Acme). */
export function useDeliveryApi(name: string) {
  const fx = useTestApi(name, {
    streams: true,
    customize: (routes) => {
      const worker = functionOf(routes, 'workers/deliver-webhooks');
      worker.addEnvironment('WEBHOOK_RETRY_DELAYS_SECONDS', RETRY_DELAYS_SECONDS.join(','));
      worker.addEnvironment('WEBHOOK_TIMEOUT_MS', String(TIMEOUT_MS));
      worker.addEnvironment('WEBHOOK_DISABLE_AFTER_SECONDS', String(DISABLE_AFTER_SECONDS));
    },
  });
  /** Acme, filled in by the file's beforeAll: its tests read it from their start on. */
  const acme = {} as TestAccount;
  const { receiver: startReceiver, ...calls } = useWebhooks(fx, () => acme);

  const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);

  beforeAll(async () => {
    Object.assign(acme, await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]));
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
    const receiver = await startReceiver(answer);
    return { receiver, webhook: await calls.createWebhook(receiver.url, events, dcIds) };
  }

  async function getWebhook(id: string): Promise<Webhook | undefined> {
    return (await calls.listWebhooks()).find((webhook) => webhook.id === id);
  }

  const { deliveriesOf, sendTest } = calls;

  /** The delivery log once it holds `count` attempts (each is written just after its POST ended). */
  const loggedAttempts = (id: string, count: number) =>
    waitUntil(`${count} logged attempts of ${id}`, async () => {
      const log = await deliveriesOf(id);
      return log.length >= count ? log : undefined;
    });

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

  /** A reader of the functions' log lines from now on. */
  function capturedLogs(): () => string[] {
    const from = fx.api.logs.length;
    return () => fx.api.logs.slice(from).map((record) => record.line);
  }

  const isHttp500 = expect.stringMatching(/500/);

  // ---------------------------------------------------------------------------------------------------

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

  return {
    fx,
    request: fx.request,
    acme,
    asAcme,
    hookedReceiver,
    getWebhook,
    deliveriesOf,
    loggedAttempts,
    sendTest,
    expectSigned,
    expectSameEvent,
    expectRetryGaps,
    capturedLogs,
    isHttp500,
    redeliverOne,
    redeliverWindow,
    outageReceiver,
    failedPings,
    heldQueue,
    firstBodyOf,
  };
}
