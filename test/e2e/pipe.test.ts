import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import * as dynamo from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../functions/data/client';
import { putEventItem, streamRecordBytes } from '../../functions/data/events';
import * as channels from '../../functions/models/channels';
import type { PipeSpec, QueueSpec } from '../../local/cloud/model';
import { startPipe } from '../../local/event-sources/pipes';
import { LOCAL_CREDENTIALS } from '../../local/services';
import { startTestApi, type TestApi } from '../support/local-api';
import { seedRouteCreatedEvent } from '../support/seed';

/**
 * The local EventBridge Pipe from the table stream to the events queue, configured from the template (filter,
 * batch size, starting position) and reading and sending with its role's credentials. No event source mappings
 * run, so nothing but this test drains the events queue.
 */
let api: TestApi;
let sqs: SQSClient;
let scratch: string;
const data = { db, dynamo };

interface PipeMessage {
  eventID: string;
  eventName: string;
  eventSource: string;
  eventSourceARN: string;
  dynamodb: {
    ApproximateCreationDateTime: number;
    Keys: Record<string, { S?: string }>;
    NewImage: Record<string, { S?: string; N?: string }>;
    SequenceNumber: string;
    StreamViewType: string;
  };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'pipe-test-'));
  api = await startTestApi('pipe', { pollers: false, streams: true });
  // The test process is the local operator: its environment points the client at the local endpoint.
  sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
});

afterAll(async () => {
  await api?.close();
  sqs?.destroy();
  rmSync(scratch, { recursive: true, force: true });
});

/** Writes one event item of the pipe's test DC the way handlers do: inside a transaction. */
const writeEvent = (routeId: string, name?: string) =>
  seedRouteCreatedEvent({ accountId: 'acc-pipe', dcId: 'dc-1' }, routeId, name);

/** Receives (and deletes) messages until `count` arrived, then for `quietMs` more to catch extras. */
async function receive(queueUrl: string, count: number, quietMs = 1500): Promise<PipeMessage[]> {
  const messages: PipeMessage[] = [];
  const deadline = Date.now() + 30_000;
  let quietUntil = Number.POSITIVE_INFINITY;
  while (Date.now() < Math.min(deadline, quietUntil)) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    if (Messages.length) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
    messages.push(...Messages.map((message) => JSON.parse(message.Body as string) as PipeMessage));
    if (messages.length >= count && quietUntil === Number.POSITIVE_INFINITY)
      quietUntil = Date.now() + quietMs;
  }
  return messages;
}

const eventIds = (messages: PipeMessage[]) =>
  messages.map((message) => message.dynamodb.NewImage.event_id?.S);

describe('the pipe from the table stream to the events queue', () => {
  it('sends a new event item as the pipe formats stream records, and nothing its filter drops', async () => {
    const { eventId, key } = await writeEvent('route-1');
    // Not an event item: the pipe's filter drops it.
    await data.db.send(
      new data.dynamo.PutCommand({
        TableName: api.tableName,
        Item: { pk: 'PIPETEST#x', sk: 'ITEM', entity: 'DRIVER', event_id: 'not-an-event' },
      }),
    );
    // A change of the event item is a MODIFY: dropped too.
    await data.db.send(
      new data.dynamo.UpdateCommand({
        TableName: api.tableName,
        Key: key,
        UpdateExpression: 'SET details = :details',
        ExpressionAttributeValues: { ':details': { changed: true } },
      }),
    );

    const messages = await receive(api.resources.queueUrls.events, 1);
    expect(messages).toHaveLength(1);
    const [message] = messages as [PipeMessage];
    expect(message).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      dynamodb: {
        Keys: { pk: { S: key.pk }, sk: { S: 'EVENT' } },
        NewImage: {
          entity: { S: 'EVENT' },
          event_id: { S: eventId },
          event_type: { S: 'ROUTE_CREATED' },
          route_id: { S: 'route-1' },
        },
        StreamViewType: 'NEW_IMAGE',
      },
    });
    expect(message.eventID).toEqual(expect.any(String));
    expect(message.eventSourceARN).toBe(pipeSpec().source);
    expect(message.eventSourceARN).toContain(`table/${api.tableName}/stream/`);
    expect(message.dynamodb.SequenceNumber).toEqual(expect.any(String));
    // Epoch seconds, as in a pipe's event, not the SDK's Date.
    expect(Math.abs(message.dynamodb.ApproximateCreationDateTime - Date.now() / 1000)).toBeLessThan(120);
  });

  it('carries a burst of 25 events, each once', async () => {
    const written = await Promise.all(Array.from({ length: 25 }, (_, index) => writeEvent(`burst-${index}`)));
    const received = eventIds(await receive(api.resources.queueUrls.events, 25));
    expect(received).toHaveLength(25);
    expect(new Set(received)).toEqual(new Set(written.map((event) => event.eventId)));
  });

  it('carries ten of the largest events committed together, in batches SendMessageBatch takes whole', async () => {
    // Ten ROUTE_ETAS_CHANGED of 2,000 waypoints each (about 230 KB each as a stream record), in one transaction:
    // together they pass SendMessageBatch's 1 MiB many times over, one batch of ten would be refused whole.
    const items = Array.from({ length: 10 }, (_, r) =>
      putEventItem({
        accountId: 'acc-pipe',
        dcId: 'dc-1',
        routeId: `etas-${r}`,
        type: 'ROUTE_ETAS_CHANGED',
        details: {
          etas: Array.from({ length: 2000 }, (_, w) => ({
            waypoint_id: `waypoint-${String(w).padStart(4, '0')}-${'x'.repeat(30)}`,
            eta_timestamp: Date.now() + w * 60_000,
          })),
        },
        occurredAt: Date.now(),
      }),
    );
    const sizes = items.map((item) => streamRecordBytes(item.Put.Item));
    expect(Math.min(...sizes)).toBeGreaterThan(200 * 1024);
    await data.db.send(new dynamo.TransactWriteCommand({ TransactItems: items }));

    const received = eventIds(await receive(api.resources.queueUrls.events, 10));
    expect(received.sort()).toEqual(items.map((item) => item.Put.Item.event_id).sort());
  });

  it('starts a new pipe at the start of the stream, and a restarted one where it stopped', async () => {
    const target = await newQueue('restart');
    const checkpointFile = join(scratch, 'checkpoints.json');
    const first = startCopy(target, checkpointFile);
    await first.ready;
    // Everything the stream holds so far reaches a new pipe (TRIM_HORIZON, as the template says).
    const earlier = await writeEvent('before-stop');
    expect(eventIds(await receive(target.url, 1, 3000))).toContain(earlier.eventId);
    await first.stop();

    const whileStopped = await writeEvent('while-stopped');
    const second = startCopy(target, checkpointFile);
    try {
      await second.ready;
      expect(eventIds(await receive(target.url, 1))).toEqual([whileStopped.eventId]);
    } finally {
      await second.stop();
    }
    // The file's own pipe carried these two as well.
    expect(eventIds(await receive(api.resources.queueUrls.events, 2))).toEqual([
      earlier.eventId,
      whileStopped.eventId,
    ]);
  });

  it('of a batch SQS takes in part, sends the rest once; what it refuses goes to the DLQ after the retries', async () => {
    const target = await newQueue('partial');
    const deadLetter = await newQueue('partial-dlq');
    const written = [await writeEvent('mate-1')];
    // SQS refuses U+FFFF in a message body: this record fails on every try.
    const bad = await writeEvent('refused', 'not for SQS \uFFFF');
    written.push(await writeEvent('mate-2'), await writeEvent('mate-3'));
    const copy = startPipe({
      pipe: {
        ...pipeSpec(),
        target: target.arn,
        streamSource: {
          ...(pipeSpec().streamSource as StreamSource),
          batchSize: 3,
          deadLetterArn: deadLetter.arn,
        },
      },
      queues: [target, deadLetter],
      endpoint: api.cloud.proxy.endpoint,
      region: api.cloud.deployment.region,
      credentials: LOCAL_CREDENTIALS,
      retryDelayMs: 200,
    });
    try {
      const [dead] = (await receive(deadLetter.url, 1)) as unknown as {
        context: { condition: string };
        DDBStreamBatchInfo: { startSequenceNumber: string; endSequenceNumber: string; batchSize: number };
      }[];
      expect(dead?.context.condition).toBe('RetryAttemptsExhausted');
      const sequence = BigInt(await sequenceOf(bad.eventId));
      expect(BigInt(dead?.DDBStreamBatchInfo.startSequenceNumber ?? 0)).toBeLessThanOrEqual(sequence);
      expect(BigInt(dead?.DDBStreamBatchInfo.endSequenceNumber ?? 0)).toBeGreaterThanOrEqual(sequence);
      // Everything else the stream holds reached the target, each record once (the refused one's batch
      // mates were not sent again with its retries).
      const received = eventIds(await receive(target.url, 1, 3000));
      for (const { eventId } of written) expect(received.filter((id) => id === eventId)).toHaveLength(1);
      expect(received).not.toContain(bad.eventId);
      expect(new Set(received).size).toBe(received.length);
    } finally {
      await copy.stop();
    }
  });
});

type StreamSource = NonNullable<PipeSpec['streamSource']>;

/** The sequence number of an event item's stream record, read from the stream as an operator would. */
async function sequenceOf(eventId: string): Promise<string> {
  const streams = new DynamoDBStreamsClient({
    endpoint: api.cloud.proxy.endpoint,
    region: api.cloud.deployment.region,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: pipeSpec().source }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      let { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: pipeSpec().source,
          ShardId: shard.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      while (ShardIterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator }));
        const found = page.Records?.find((record) => record.dynamodb?.NewImage?.event_id?.S === eventId);
        if (found?.dynamodb?.SequenceNumber) return found.dynamodb.SequenceNumber;
        if (!page.Records?.length) break;
        ShardIterator = page.NextShardIterator;
      }
    }
    throw new Error(`no stream record of ${eventId}`);
  } finally {
    streams.destroy();
  }
}

/** The event pipe: the one to the events queue (the feed pipe reads the same stream). */
function pipeSpec(): PipeSpec {
  const eventsQueue = api.cloud.queue(channels.events).arn;
  const pipe = api.cloud.deployment.pipes.find((candidate) => candidate.target === eventsQueue);
  if (!pipe) throw new Error('the deployment has no event pipe');
  return pipe;
}

async function newQueue(suffix: string): Promise<QueueSpec> {
  const name = `${api.tableName}-${suffix}`;
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  return {
    logicalId: suffix,
    stackPath: 'test',
    name,
    arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
    url: QueueUrl as string,
    attributes: {},
  };
}

/** The deployment's pipe with another target, run as the operator (its role may send to the events queue only). */
function startCopy(target: QueueSpec, checkpointFile: string) {
  return startPipe({
    pipe: { ...pipeSpec(), target: target.arn },
    queues: [target],
    endpoint: api.cloud.proxy.endpoint,
    region: api.cloud.deployment.region,
    credentials: LOCAL_CREDENTIALS,
    checkpointFile,
  });
}
