import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ConsumerDefinition } from '../functions/consumers';
import type { QueueName } from '../functions/shared/resources';
import { loadHandler } from './handlers';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

export interface QueuePollers {
  stop(): Promise<void>;
}

/**
 * The local stand-in for Lambda's SQS event source: long-polls each consumer's queue, hands batches to
 * the same handler as an SQSEvent, deletes what succeeded and leaves the `batchItemFailures` (or the
 * whole batch when the handler throws) on the queue. Redrive to the DLQ stays the queue's job, as on AWS.
 * Failed messages become visible again after `retryDelaySeconds` rather than the full visibility timeout,
 * so local retries take seconds.
 */
export function startQueuePollers(options: {
  consumers: readonly ConsumerDefinition[];
  awsEndpoint: string;
  queueUrls: Record<QueueName, string>;
  retryDelaySeconds?: number;
  /** Caps the pollers per consumer below its maxConcurrency (tests: many test files share one machine). */
  maxPollersPerConsumer?: number;
}): QueuePollers {
  const sqs = new SQSClient({
    endpoint: options.awsEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  let running = true;
  // As many loops per consumer as its maximum concurrency: Lambda runs that many batches at once.
  const loops = options.consumers.flatMap((consumer) =>
    Array.from({ length: Math.min(consumer.maxConcurrency, options.maxPollersPerConsumer ?? Infinity) }, () =>
      poll(consumer),
    ),
  );

  async function poll(consumer: ConsumerDefinition): Promise<void> {
    const queueUrl = options.queueUrls[consumer.queue];
    while (running) {
      let messages: Message[] = [];
      try {
        const received = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: consumer.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (running) console.error(`receiving from ${consumer.queue} failed`, error);
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (messages.length === 0) continue;
      const failed = await invoke(consumer, queueUrl, messages);
      const succeeded = messages.filter((message) => !failed.has(message.MessageId as string));
      if (succeeded.length) {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: succeeded.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      }
      for (const message of messages.filter((candidate) => failed.has(candidate.MessageId as string))) {
        await sqs
          .send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queueUrl,
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: options.retryDelaySeconds ?? 1,
            }),
          )
          .catch(() => undefined); // the message may already be gone to the DLQ
      }
    }
  }

  /** Runs the consumer's handler; returns the ids of the messages to retry. */
  async function invoke(
    consumer: ConsumerDefinition,
    queueUrl: string,
    messages: Message[],
  ): Promise<Set<string>> {
    const queueArn = `arn:aws:sqs:${LOCAL_REGION}:000000000000:${queueUrl.split('/').pop()}`;
    const event: SQSEvent = {
      Records: messages.map((message) => ({
        messageId: message.MessageId as string,
        receiptHandle: message.ReceiptHandle as string,
        body: message.Body ?? '',
        attributes: message.Attributes as SQSEvent['Records'][number]['attributes'],
        messageAttributes: {},
        md5OfBody: message.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: LOCAL_REGION,
      })),
    };
    const requestId = randomUUID();
    const context = {
      awsRequestId: requestId,
      functionName: `local-${consumer.id}`,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:000000000000:function:local-${consumer.id}`,
      memoryLimitInMB: String(consumer.memorySize),
      getRemainingTimeInMillis: () => consumer.timeoutSeconds * 1000,
    } as Context;
    try {
      const handler = await loadHandler(consumer.handler);
      const response = (await handler(event, context)) as SQSBatchResponse | undefined;
      return new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      console.error(`consumer ${consumer.id} failed its whole batch`, error);
      return new Set(messages.map((message) => message.MessageId as string));
    }
  }

  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      sqs.destroy();
    },
  };
}
