import {
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import * as channels from '../../functions/models/channels';
import type { PipeSpec, QueueSpec } from '../../local/cloud/model';
import { LOCAL_CREDENTIALS } from '../../local/services';
import { createTestAccount } from '../support/accounts';
import { call, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { seedRouteCreatedEvent } from '../support/seed';
import {
  eventIdOf,
  sleep,
  startWebhookReceiver,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';

/**
 * One event the pipe cannot deliver (SQS refuses U+FFFF in a message body) among other tenants' events,
 * through the whole local deployment: stream -> pipe -> events queue -> fan-out -> deliveries -> webhooks.
 * The pipe retries the bad record as its template says, then puts a description of its batch in its dead-letter
 * queue and goes on: the events written before and after it reach their webhooks, each once.
 */
const ARRIVAL_DEADLINE_MS = 10_000;

interface Tenant {
  name: string;
  accountId: string;
  key: string;
  receiver: WebhookReceiver;
}

/** A message of the pipe's dead-letter queue: where the failed batch is in the stream, not its records. */
interface PipeDeadLetter {
  context: { partnerResourceArn: string; condition: string };
  version: string;
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

let api: TestApi;
let sqs: SQSClient;
let streams: DynamoDBStreamsClient;
let tenants: Tenant[] = [];

beforeAll(async () => {
  api = await startTestApi('pipe-dead-letter', { streams: true });
  // The test process is the local operator: its environment points the SQS client at the local endpoint.
  sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  streams = new DynamoDBStreamsClient({
    endpoint: api.cloud.proxy.endpoint,
    region: api.cloud.deployment.region,
    credentials: LOCAL_CREDENTIALS,
  });
  tenants = await Promise.all(
    ['Alpha', 'Bravo', 'Charlie'].map(async (name): Promise<Tenant> => {
      const account = await createTestAccount(name, [{ dcId: 'dc-1' }]);
      const receiver = await startWebhookReceiver();
      const response = await call(api.url, 'POST', '/webhooks', {
        key: account.key,
        body: { webhook_url: receiver.url, events: ['ROUTE_CREATED'], dc_ids: ['dc-1'] },
      });
      expectSuccess(response, webhooks.createWebhook);
      return { name, accountId: account.accountId, key: account.key, receiver };
    }),
  );
});

afterAll(async () => {
  await Promise.all(tenants.map((tenant) => tenant.receiver.close()));
  await api?.close();
  sqs?.destroy();
  streams?.destroy();
});

/** Writes a ROUTE_CREATED event item of the tenant the way handlers do: in a transaction. */
async function writeEvent(tenant: Tenant, routeId: string, name?: string) {
  const { eventId, writtenAt } = await seedRouteCreatedEvent(
    { accountId: tenant.accountId, dcId: 'dc-1' },
    routeId,
    name,
  );
  return { tenant, routeId, eventId, writtenAt };
}

/** The event pipe: the one to the events queue (the feed pipe reads the same stream). */
function pipeSpec(): PipeSpec {
  const eventsQueue = api.cloud.queue(channels.events).arn;
  const pipe = api.cloud.deployment.pipes.find((candidate) => candidate.target === eventsQueue);
  if (!pipe) throw new Error('the deployment has no event pipe');
  return pipe;
}

function pipeDeadLetterQueue(): QueueSpec {
  const arn = pipeSpec().streamSource?.deadLetterArn;
  const queue = api.cloud.deployment.queues.find((candidate) => candidate.arn === arn);
  if (!queue) throw new Error('the pipe has no dead-letter queue in the deployment');
  return queue;
}

describe('an event the pipe cannot deliver', () => {
  it('goes to the pipe DLQ; the events before and after it reach their webhooks within 10 s, each once', {
    timeout: 120_000,
  }, async () => {
    const [alpha, bravo, charlie] = tenants as [Tenant, Tenant, Tenant];
    const before = [await writeEvent(alpha, 'alpha-1'), await writeEvent(bravo, 'bravo-1')];
    // Written straight to the table, whatever the API lets through: SQS refuses U+FFFF in a message body.
    const bad = await writeEvent(charlie, 'charlie-bad', 'not for SQS \uFFFF');
    const after = [
      await writeEvent(alpha, 'alpha-2'),
      await writeEvent(bravo, 'bravo-2'),
      await writeEvent(charlie, 'charlie-2'),
    ];
    const good = [...before, ...after];

    // Each good event reaches its tenant's webhook within the deadline counted from its write.
    await Promise.all(
      good.map(async (event) => {
        const [delivery] = await event.tenant.receiver.waitFor(
          (candidate) => eventIdOf(candidate) === event.eventId,
          1,
          ARRIVAL_DEADLINE_MS - (Date.now() - event.writtenAt),
        );
        console.info(
          `${event.routeId} reached its webhook ${(delivery?.receivedAt ?? 0) - event.writtenAt} ms after its write`,
        );
      }),
    );

    // The bad record's batch is described in the pipe's DLQ: its shard and sequence numbers, which lead
    // back to the record in the stream (24 hours), as an operator would read it.
    const deadLetter = await waitUntil('the bad record in the pipe DLQ', async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: pipeDeadLetterQueue().url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      return Messages.map((message) => JSON.parse(message.Body as string) as PipeDeadLetter)[0];
    });
    expect(deadLetter).toMatchObject({
      context: {
        condition: 'RetryAttemptsExhausted',
        partnerResourceArn: expect.stringMatching(/^arn:aws:pipes:.*:pipe\//),
      },
      version: '1.0',
      timestamp: expect.any(String),
      DDBStreamBatchInfo: { streamArn: pipeSpec().source, shardId: expect.any(String) },
    });
    // The message describes the bad record's batch: the bad record, and any records read with it, which SQS took.
    const info = deadLetter.DDBStreamBatchInfo;
    expect(info.batchSize).toBeGreaterThanOrEqual(1);
    expect(info.batchSize).toBeLessThanOrEqual(pipeSpec().streamSource?.batchSize ?? 0);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: info.streamArn,
        ShardId: info.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: info.startSequenceNumber,
      }),
    );
    const { Records = [] } = await streams.send(
      new GetRecordsCommand({ ShardIterator, Limit: info.batchSize }),
    );
    expect(Records.at(-1)?.dynamodb?.SequenceNumber).toBe(info.endSequenceNumber);
    expect(Records.map((record) => record.dynamodb?.NewImage?.event_id?.S)).toContain(bad.eventId);

    // Nothing arrives twice, and the bad event never arrives: quiet queues, then count.
    await waitForQueuesDrained(api, ['events', 'deliveries'], 30_000);
    await sleep(1000);
    for (const tenant of tenants) {
      const expected = good.filter((event) => event.tenant === tenant).map((event) => event.eventId);
      const received = tenant.receiver.deliveries.map(eventIdOf);
      expect(received.sort(), `${tenant.name}'s webhook`).toEqual(expected.sort());
    }
  });
});
