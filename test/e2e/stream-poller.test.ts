import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/services';
import { startStreamPoller } from '../../local/stream-poller';
import { startTestApi, type TestApi } from '../support/local-api';

/**
 * The local stand-in for stream -> EventBridge Pipe -> SQS `events`, on real DynamoDB Local and fauxqs.
 * No queue pollers, so nothing but this test drains the events queue.
 */
let api: TestApi;
let sqs: SQSClient;
let data: {
  db: typeof import('../../functions/data/client').db;
  events: typeof import('../../functions/data/events');
  dynamo: typeof import('@aws-sdk/lib-dynamodb');
};

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
  api = await startTestApi('stream', { pollers: false, streams: true });
  sqs = new SQSClient({
    endpoint: inject('awsEndpoint'),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  // Only now: the data layer reads TABLE_NAME when it loads.
  data = {
    db: (await import('../../functions/data/client')).db,
    events: await import('../../functions/data/events'),
    dynamo: await import('@aws-sdk/lib-dynamodb'),
  };
});

afterAll(async () => {
  await api?.close();
  sqs?.destroy();
});

/** Writes one event item the way handlers do: inside a transaction. Returns its event id. */
async function writeEvent(routeId: string): Promise<{ eventId: string; key: { pk: string; sk: string } }> {
  const put = data.events.putEventItem({
    accountId: 'acc-stream',
    dcId: 'dc-1',
    routeId,
    type: 'ROUTE_CREATED',
    details: { route_id: routeId },
    occurredAt: Date.now(),
  });
  await data.db.send(new data.dynamo.TransactWriteCommand({ TransactItems: [put] }));
  return { eventId: put.Put.Item.event_id, key: { pk: put.Put.Item.pk, sk: put.Put.Item.sk } };
}

/** Receives (and deletes) messages until `count` arrived, then for `quietMs` more to catch extras. */
async function receive(queueUrl: string, count: number, quietMs = 1500): Promise<PipeMessage[]> {
  const messages: PipeMessage[] = [];
  const deadline = Date.now() + 20_000;
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

describe('stream poller', () => {
  it('sends a new event item to the events queue as the pipe would, and nothing else', async () => {
    const { eventId, key } = await writeEvent('route-1');
    // Not an event item: the pipe's filter drops it.
    await data.db.send(
      new data.dynamo.PutCommand({
        TableName: api.tableName,
        Item: { pk: 'STREAMTEST#x', sk: 'ITEM', entity: 'DRIVER', event_id: 'not-an-event' },
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
    expect(message.eventSourceARN).toContain(`table/${api.tableName}/stream/`);
    expect(message.dynamodb.SequenceNumber).toEqual(expect.any(String));
    // Epoch seconds, as in a Lambda or pipe event, not the SDK's Date.
    expect(message.dynamodb.ApproximateCreationDateTime).toEqual(expect.any(Number));
    expect(Math.abs(message.dynamodb.ApproximateCreationDateTime - Date.now() / 1000)).toBeLessThan(120);
  });

  it('carries a burst of 25 events, each once', async () => {
    const written = await Promise.all(Array.from({ length: 25 }, (_, index) => writeEvent(`burst-${index}`)));
    const messages = await receive(api.resources.queueUrls.events, 25);
    const received = messages.map((message) => message.dynamodb.NewImage.event_id?.S);
    expect(received).toHaveLength(25);
    expect(new Set(received)).toEqual(new Set(written.map((event) => event.eventId)));
  });

  it('starts at the end of the stream: a restarted poller does not resend earlier events', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${api.tableName}-restart` }));
    const restarted = startStreamPoller({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      awsEndpoint: inject('awsEndpoint'),
      tableName: api.tableName,
      eventQueueUrl: QueueUrl as string,
    });
    try {
      await restarted.ready;
      const { eventId } = await writeEvent('after-restart');
      const messages = await receive(QueueUrl as string, 1);
      expect(messages.map((message) => message.dynamodb.NewImage.event_id?.S)).toEqual([eventId]);
      // The file's own poller carried it as well.
      const own = await receive(api.resources.queueUrls.events, 1, 500);
      expect(own.map((message) => message.dynamodb.NewImage.event_id?.S)).toEqual([eventId]);
    } finally {
      await restarted.stop();
    }
  });
});
