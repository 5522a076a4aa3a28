import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { EventSourceMappingSpec, QueueSpec } from '../cloud/model';
import type { LambdaRuntime } from '../lambda/runtime';
import { withoutSdkLogging } from '../services';
import { matchesPattern } from './event-pattern';
import type { InFlightJournal } from './in-flight-journal';

/** AWS credentials of the function whose execution role the event source polls with, as on AWS. */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SqsEventSources {
  stop(): Promise<void>;
}

export interface SqsEventSourceOptions {
  mappings: readonly EventSourceMappingSpec[];
  queues: readonly QueueSpec[];
  lambda: LambdaRuntime;
  /** The local AWS endpoint (the signing proxy). */
  endpoint: string;
  region: string;
  /** The credentials of a function's execution role: Lambda polls the queue with them. */
  credentialsOf(functionName: string): Credentials;
  /**
   * At most this many batches in flight per mapping, below its maximum concurrency (tests: many test files
   * share two cores). Lambda runs up to MaximumConcurrency at once, and without one scales further.
   * @default each mapping's MaximumConcurrency, or 5 without one
   */
  concurrencyCap?: number;
  /**
   * Keeps the messages handed to functions between runs (npm start): what a killed run held is made visible
   * again before polling starts.
   */
  journal?: InFlightJournal;
}

/**
 * How many batches each queue consumer of `npm start` works on at once (below its maximum concurrency):
 * LOCAL_CONSUMER_CONCURRENCY, or twice the cores. On Lambda every environment has CPU of its own; here each is
 * a process on this machine's cores, and more of them than the cores keep busy only split the cores further:
 * each warms up slower and the emulators get less. On two cores, with the webhook_delivery bench, 16
 * environments of the delivery consumer delivered about 85 webhooks a second, 4 about 118.
 */
export function localConsumerConcurrency(env: Record<string, string | undefined>): number {
  const value = env.LOCAL_CONSUMER_CONCURRENCY;
  if (value === undefined || value === '') return 2 * availableParallelism();
  const cap = Number(value);
  if (!Number.isInteger(cap) || cap < 1)
    throw new Error(`LOCAL_CONSUMER_CONCURRENCY must be a whole number of at least 1, not '${value}'`);
  return cap;
}

/** How soon a FIFO queue's poller looks again while its batches are in flight and it found nothing. */
const FIFO_REPOLL_MS = 25;

/**
 * The local stand-in for Lambda's SQS event source mappings, configured as deployed: each mapping's batch
 * size, batching window, maximum concurrency, filter and partial batch responses. Like Lambda it polls with
 * the function's execution role (so the role needs the SQS grants it needs on AWS), invokes the function
 * synchronously, deletes what succeeded and leaves the rest alone: a failed message becomes visible again
 * when its visibility timeout ends, and the queue's redrive policy moves it to the DLQ.
 */
export function startSqsEventSources(options: SqsEventSourceOptions): SqsEventSources {
  const controller = new AbortController();
  // Every long poll in flight listens to it.
  setMaxListeners(Number.POSITIVE_INFINITY, controller.signal);
  const clients: SQSClient[] = [];
  const consumers: { mapping: EventSourceMappingSpec; queue: QueueSpec; sqs: SQSClient }[] = [];
  for (const mapping of options.mappings) {
    if (!mapping.enabled) continue;
    const queue = options.queues.find((candidate) => candidate.arn === mapping.eventSourceArn);
    if (!queue) continue; // not an SQS source (the app has only SQS mappings)
    const sqs = withoutSdkLogging(
      new SQSClient({
        endpoint: options.endpoint,
        region: options.region,
        credentials: options.credentialsOf(mapping.functionName),
        useQueueUrlAsEndpoint: false,
      }),
    );
    clients.push(sqs);
    consumers.push({ mapping, queue, sqs });
  }
  const handedBack = handBackLastRunsMessages();
  const loops = consumers.map(({ mapping, queue, sqs }) => {
    const concurrency = Math.min(mapping.maximumConcurrency ?? 5, options.concurrencyCap ?? Infinity);
    return handedBack.then(() => poll(mapping, queue, sqs, concurrency));
  });

  /** Makes what a killed run's invocations held visible again, with its consumer's role, as Lambda could. */
  async function handBackLastRunsMessages(): Promise<void> {
    const journal = options.journal;
    if (!journal) return;
    for (const [queueName, handles] of journal.heldByLastRun()) {
      const consumer = consumers.find((candidate) => candidate.queue.name === queueName);
      if (!consumer) continue; // the queue has no consumer any more: its messages wait as they are
      for (let start = 0; start < handles.length; start += 10) {
        const entries = handles
          .slice(start, start + 10)
          // One second, not zero: fauxqs 2.4's SQLite store refuses a change to zero (it writes a NULL receive
          // count into a NOT NULL column and answers 500); one second later the message is visible all the same.
          .map((handle, index) => ({ Id: String(index), ReceiptHandle: handle, VisibilityTimeout: 1 }));
        try {
          const { Failed = [] } = await consumer.sqs.send(
            new ChangeMessageVisibilityBatchCommand({ QueueUrl: consumer.queue.url, Entries: entries }),
          );
          // A message deleted, or visible again, since its line was written has no valid handle: nothing to do.
          const unexpected = Failed.filter((failure) => failure.Code !== 'ReceiptHandleIsInvalid');
          if (unexpected.length > 0)
            console.error(`event source: ${queueName} kept messages of the last run in flight`, unexpected);
        } catch (error) {
          console.error(`event source: handing back ${queueName}'s messages of the last run failed`, error);
        }
      }
    }
    journal.clear();
  }

  /**
   * One long poll per mapping at a time, handing each batch to an invocation of its own, up to `concurrency`
   * invocations at once; at the limit nothing more is received, and the messages wait visible in the queue,
   * as they do when Lambda reaches a mapping's maximum concurrency. Not one long poll per invocation slot:
   * the local SQS wakes every waiting poll for each message sent, and all but one would come back empty and
   * ask again, each request through the signing proxy, which is work on the runtime's one event loop.
   */
  async function poll(
    mapping: EventSourceMappingSpec,
    queue: QueueSpec,
    sqs: SQSClient,
    concurrency: number,
  ): Promise<void> {
    const invocations = new Set<Promise<void>>();
    while (!controller.signal.aborted) {
      if (invocations.size >= concurrency) {
        await Promise.race(invocations);
        continue;
      }
      try {
        // A FIFO queue hands out no message of a group while one of it is in flight, and an ended invocation's
        // deletes make the group available without waking a waiting long poll (SQS does not either): while
        // batches are in flight, look again at once, each time one ends or after a moment.
        const fifo = queue.attributes.FifoQueue === 'true';
        const messages = await receiveBatch(mapping, queue, sqs, fifo && invocations.size > 0);
        if (messages.length === 0) {
          if (fifo && invocations.size > 0)
            await Promise.race([...invocations, sleep(FIFO_REPOLL_MS, controller.signal)]);
          continue;
        }
        const handles = messages.map((message) => message.ReceiptHandle as string);
        options.journal?.received(queue.name, handles);
        const invocation = deliver(mapping, queue, sqs, messages)
          .then(
            () => options.journal?.finished(queue.name, handles),
            (error) => {
              // A batch cut off by stop() stays in the journal: the next run hands it back.
              if (controller.signal.aborted) return;
              options.journal?.finished(queue.name, handles);
              console.error(`event source ${mapping.logicalId}: a batch of ${queue.name} failed`, error);
            },
          )
          .finally(() => invocations.delete(invocation));
        invocations.add(invocation);
      } catch (error) {
        if (controller.signal.aborted) break;
        console.error(`event source ${mapping.logicalId}: polling ${queue.name} failed; retrying`, error);
        await sleep(1000, controller.signal);
      }
    }
    await Promise.allSettled(invocations);
  }

  /** Up to the batch size, gathered for at most the batching window (one long poll without a window). */
  async function receiveBatch(
    mapping: EventSourceMappingSpec,
    queue: QueueSpec,
    sqs: SQSClient,
    shortPoll = false,
  ) {
    const messages: Message[] = [];
    const windowEnds = Date.now() + mapping.maximumBatchingWindowSeconds * 1000;
    do {
      const remaining = Math.ceil((windowEnds - Date.now()) / 1000);
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: Math.min(10, mapping.batchSize - messages.length),
          WaitTimeSeconds: messages.length === 0 && !shortPoll ? 20 : Math.max(0, Math.min(20, remaining)),
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: controller.signal },
      );
      messages.push(...Messages);
    } while (messages.length > 0 && messages.length < mapping.batchSize && Date.now() < windowEnds);
    return messages;
  }

  async function deliver(
    mapping: EventSourceMappingSpec,
    queue: QueueSpec,
    sqs: SQSClient,
    messages: Message[],
  ): Promise<void> {
    const records = messages.map((message) => sqsRecord(message, queue, options.region));
    // Messages the filter drops are deleted without an invocation, as Lambda does.
    const wanted = records.filter((record) => passesFilters(mapping.filterPatterns, record));
    const done = new Set(records.filter((record) => !wanted.includes(record)).map((r) => r.messageId));
    if (wanted.length > 0) {
      const event: SQSEvent = { Records: wanted };
      const result = await options.lambda.invoke(mapping.functionName, event, { requestId: randomUUID() });
      if (result.kind === 'success') {
        const failed = mapping.reportBatchItemFailures
          ? failedItems(result.payload, wanted)
          : new Set<string>();
        for (const record of wanted) if (!failed.has(record.messageId)) done.add(record.messageId);
      }
    }
    const toDelete = messages.filter((message) => done.has(message.MessageId as string));
    if (toDelete.length === 0) return;
    const { Failed = [] } = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: toDelete.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    if (Failed.length > 0)
      console.error(`event source ${mapping.logicalId}: ${Failed.length} deletes failed`);
  }

  return {
    stop: async () => {
      controller.abort();
      await Promise.allSettled(loops);
      for (const client of clients) client.destroy();
    },
  };
}

/**
 * The message ids a partial batch response reports as failed. As Lambda does, a response that names an id
 * that is not in the batch, or names none at all where it should, fails the whole batch.
 */
function failedItems(payload: unknown, records: readonly SQSRecord[]): Set<string> {
  const all = new Set(records.map((record) => record.messageId));
  if (payload === null || payload === undefined) return new Set();
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown })?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

function passesFilters(patterns: readonly string[], record: SQSRecord): boolean {
  if (patterns.length === 0) return true;
  // Lambda filters on the record with its body parsed when it is JSON.
  let body: unknown = record.body;
  try {
    body = JSON.parse(record.body);
  } catch {
    // a plain-text body is matched as a string
  }
  return patterns.some((pattern) => matchesPattern(JSON.parse(pattern), { ...record, body }));
}

/** A received message as Lambda's SQS event source hands it to the function. */
function sqsRecord(message: Message, queue: QueueSpec, region: string): SQSRecord {
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, recordAttribute(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: region,
  };
}

function recordAttribute(value: MessageAttributeValue): SQSRecord['messageAttributes'][string] {
  return {
    dataType: value.DataType as string,
    stringValue: value.StringValue,
    binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map((bytes) => Buffer.from(bytes).toString('base64')),
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
