import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requireEnv } from './env';
import { QUEUES, type QueueName } from './resources';

// Requests go to the client's endpoint (the regional one on AWS, AWS_ENDPOINT_URL_SQS locally), not to
// the host inside the queue URL, which the local emulator names sqs.<region>.localhost.
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });

/** Sends one JSON message to a queue of QUEUES (its URL comes from the queue's environment variable). */
export async function sendToQueue(queue: QueueName, body: Record<string, unknown>): Promise<void> {
  await sqs.send(
    new SendMessageCommand({ QueueUrl: requireEnv(QUEUES[queue].urlEnv), MessageBody: JSON.stringify(body) }),
  );
}
