import type { SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config';
import type { QueueName } from './resources';

interface Sqs {
  readonly sdk: typeof import('./sqs-client');
  readonly client: SQSClient;
}

let sqs: Promise<Sqs> | undefined;

/**
 * The SQS client, made on first use: functions that import this module but never send (reads that share a
 * domain module with a write) do not load the SQS SDK at cold start.
 */
function theSqs(): Promise<Sqs> {
  sqs ??= import('./sqs-client').then((sdk) => ({ sdk, client: sdk.createSqsClient() }));
  return sqs;
}

/** SQS caps a message's delay at 15 minutes; longer waits are chained by the consumer. */
export const MAX_DELAY_SECONDS = 900;

/** Sends one JSON message to a queue of QUEUES (its URL comes from the queue's environment variable). */
export async function sendToQueue(
  queue: QueueName,
  body: object,
  options: { delaySeconds?: number } = {},
): Promise<void> {
  const { sdk, client } = await theSqs();
  await client.send(
    new sdk.SendMessageCommand({
      QueueUrl: config().queueUrl(queue),
      MessageBody: JSON.stringify(body),
      DelaySeconds: options.delaySeconds,
    }),
  );
}

/** SendMessageBatch takes at most 10 messages, of at most 1 MiB together. */
const MAX_BATCH_MESSAGES = 10;
const MAX_BATCH_BYTES = 1_048_576;

/**
 * Message bodies in batches SendMessageBatch accepts: up to 10 a batch, and no more than 1 MiB together (ten
 * deliveries of a 2,000-waypoint ROUTE_ETAS_CHANGED would pass it), in order.
 */
export function messageBatches(bodies: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body, 'utf8');
    if (batch.length === MAX_BATCH_MESSAGES || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(body);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** Sends JSON messages, 10 (or 1 MiB) per request; throws unless every one was accepted. */
export async function sendAllToQueue(queue: QueueName, bodies: readonly object[]): Promise<void> {
  const queueUrl = config().queueUrl(queue);
  const { sdk, client } = await theSqs();
  for (const batch of messageBatches(bodies.map((body) => JSON.stringify(body)))) {
    const { Failed = [] } = await client.send(
      new sdk.SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
    if (Failed.length > 0) {
      throw new Error(
        `${Failed.length} of ${batch.length} messages to ${queue} failed: ${Failed[0]?.Message}`,
      );
    }
  }
}

/** Gives a message up: into the queue's DLQ, where its alarm tells an operator. */
export async function sendToDeadLetterQueue(queue: QueueName, body: object): Promise<void> {
  const { sdk, client } = await theSqs();
  await client.send(
    new sdk.SendMessageCommand({
      QueueUrl: config().deadLetterQueueUrl(queue),
      MessageBody: JSON.stringify(body),
    }),
  );
}
