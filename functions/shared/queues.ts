import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requireEnv } from './env';
import { traceAwsClient } from './observability';
import { chunks } from './parallel';
import { QUEUES, type QueueName } from './resources';

// Requests go to the client's endpoint (the regional one on AWS, AWS_ENDPOINT_URL_SQS locally), not to
// the host inside the queue URL, which the local emulator names sqs.<region>.localhost.
const sqs = traceAwsClient(new SQSClient({ useQueueUrlAsEndpoint: false }));

/** SQS caps a message's delay at 15 minutes; longer waits are chained by the consumer. */
export const MAX_DELAY_SECONDS = 900;

/** Sends one JSON message to a queue of QUEUES (its URL comes from the queue's environment variable). */
export async function sendToQueue(
  queue: QueueName,
  body: object,
  options: { delaySeconds?: number } = {},
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(QUEUES[queue].urlEnv),
      MessageBody: JSON.stringify(body),
      DelaySeconds: options.delaySeconds,
    }),
  );
}

/** Sends JSON messages, 10 per request; throws unless every one was accepted. */
export async function sendAllToQueue(queue: QueueName, bodies: readonly object[]): Promise<void> {
  const queueUrl = requireEnv(QUEUES[queue].urlEnv);
  for (const batch of chunks(bodies, 10)) {
    const { Failed = [] } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((body, index) => ({ Id: String(index), MessageBody: JSON.stringify(body) })),
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
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(QUEUES[queue].deadLetterUrlEnv),
      MessageBody: JSON.stringify(body),
    }),
  );
}
