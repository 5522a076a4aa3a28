import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { expect } from 'vitest';
import { type ReceivedRequest, startHttpReceiver } from '../../bench/http-receiver';
import type { ChannelName } from '../../functions/models/channels';
import { deliveryContractViolations } from './http';
import type { TestApi } from './local-api';

export { independentlyVerified } from '../../bench/http-receiver';

/** One request a receiver got, as it arrived. */
export interface ReceivedDelivery extends ReceivedRequest {
  /** The body parsed (an empty object when it is not JSON). */
  json: Record<string, unknown>;
  receivedAt: number;
  /** What is wrong with it by the OpenAPI document's `webhooks` section (empty when it fits). */
  contractViolations: string[];
}

/**
 * Fails unless every delivery fits the OpenAPI document's `webhooks` entry of its type, headers and body, as
 * `call` holds every answer of the API to the document.
 */
function expectDocumentedDeliveries(deliveries: readonly ReceivedDelivery[]): void {
  const broken = deliveries.filter((delivery) => delivery.contractViolations.length > 0);
  expect(
    broken.flatMap((delivery) => delivery.contractViolations),
    `deliveries break the OpenAPI document's webhooks: ${broken.map((delivery) => delivery.body.slice(0, 500)).join(' | ')}`,
  ).toEqual([]);
}

/** What the receiver answers: an HTTP status, or 'hang' to never answer (the sender's timeout ends it). */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Everything received so far, in arrival order. */
  deliveries: ReceivedDelivery[];
  /** Waits (polling) until `count` deliveries match; fails with what did arrive after `timeoutMs`. */
  waitFor(
    predicate: (delivery: ReceivedDelivery) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

const header = (delivery: ReceivedDelivery, name: string) => {
  const value = delivery.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
};

/** The event id: Standard Webhooks' `webhook-id`, the same on every attempt and redelivery of the event. */
export const eventIdOf = (delivery: ReceivedDelivery) => header(delivery, 'webhook-id');
export const eventTypeOf = (delivery: ReceivedDelivery) => delivery.json.event as string | undefined;
export const headerOf = header;

/**
 * A real HTTP receiver on 127.0.0.1 (port 0). `answer` decides each response; it gets the request and
 * how many times this event id has arrived so far, this one included (1 for the first attempt).
 */
export async function startWebhookReceiver(
  answer: (delivery: ReceivedDelivery, nthOfEvent: number) => Answer | Promise<Answer> = () => 200,
): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const receiver = await startHttpReceiver(async (request, respond) => {
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      // kept as the raw body only
    }
    const delivery: ReceivedDelivery = {
      ...request,
      json,
      receivedAt: Date.now(),
      contractViolations: deliveryContractViolations(request),
    };
    deliveries.push(delivery);
    const nth = deliveries.filter((other) => eventIdOf(other) === eventIdOf(delivery)).length;
    let status: Answer = 500;
    try {
      status = await answer(delivery, nth);
    } catch (error) {
      console.error('webhook receiver: answer failed', error);
    }
    if (status === 'hang') return; // never answered; the connection closes when the sender gives up
    respond(status, status < 300 ? 'ok' : 'failing on purpose');
  });
  const { port } = receiver;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    deliveries,
    async waitFor(predicate, count = 1, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = deliveries.filter(predicate);
        if (matching.length >= count) {
          expectDocumentedDeliveries(matching);
          return matching;
        }
        if (Date.now() > deadline) {
          const got = deliveries.map((d) => `${eventTypeOf(d)} ${eventIdOf(d)} ${d.json.route_id ?? ''}`);
          expect.fail(
            `receiver ${port}: ${matching.length} of ${count} expected deliveries after ${timeoutMs} ms; got ${got.length}: ${got.join('; ')}`,
          );
        }
        await sleep(50);
      }
    },
    async close() {
      await receiver.close();
      expectDocumentedDeliveries(deliveries);
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something other than undefined; fails naming `what` after the deadline. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) expect.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Whether the `standardwebhooks` package (what integrators use) accepts the delivery as signed with `secret`,
 * as it arrived: the raw body and the headers. `format: 'raw'` reads the secret as its own bytes.
 */
export function standardVerified(
  secret: string,
  delivery: Pick<ReceivedDelivery, 'body' | 'headers'>,
  options?: { format: 'raw' },
): boolean {
  try {
    new Webhook(secret, options).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}

/** The local operator's SQS client: the test's environment points it at the local endpoint. */
function sqsClient() {
  return new SQSClient({ useQueueUrlAsEndpoint: false });
}

/**
 * Waits until the queues hold nothing (visible, in flight or delayed) on several checks in a row: every
 * message queued so far (retries included) has been handled by its consumer.
 */
export async function waitForQueuesDrained(api: TestApi, queues: ChannelName[], timeoutMs = 20_000) {
  let quietChecks = 0;
  await waitUntil(
    `queues ${queues.join(', ')} to drain`,
    async () => {
      let total = 0;
      for (const queue of queues) total += await messagesHeld(api.resources.queueUrls[queue]);
      quietChecks = total === 0 ? quietChecks + 1 : 0;
      return quietChecks >= 3 ? true : undefined;
    },
    timeoutMs,
  );
}

/** The messages a queue holds now: visible, in flight and delayed. */
export async function messagesHeld(queueUrl: string): Promise<number> {
  const sqs = sqsClient();
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return (
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
    );
  } finally {
    sqs.destroy();
  }
}

/** Receives (without deleting) messages of the deliveries DLQ until one matches; returns its parsed body. */
export async function findInDeliveriesDlq<T = Record<string, unknown>>(
  api: TestApi,
  predicate: (body: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const sqs = sqsClient();
  try {
    return await waitUntil(
      'the message in the deliveries DLQ',
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: api.resources.dlqUrls.deliveries,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 0,
          }),
        );
        return Messages.map((message) => JSON.parse(message.Body ?? '{}') as T).find(predicate);
      },
      timeoutMs,
    );
  } finally {
    sqs.destroy();
  }
}
