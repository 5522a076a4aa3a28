import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  deliveryAttemptItem,
  deliveryOutcomeUpdate,
  newDeliveryId,
} from '../functions/data/webhook-deliveries';
import { webhookKey } from '../functions/data/webhooks';
import { deliveryHeaders } from '../functions/domain/webhook-http';
import * as channels from '../functions/models/channels';
import { webhookBody } from '../functions/models/event-catalog';
import { deliverWebhooks } from '../functions/workers/deliver-webhooks/consumer';
import { LOCAL_CREDENTIALS } from '../local/services';
import { inParallel, type RawTable } from './dynamo';
import { postExpecting200 } from './http';
import { type LoadRun, runLoad } from './load';
import type { StackInfo } from './runtime';
import { round } from './stats';
import { EVENT_TYPE, type Pair, RAW_HEADER } from './webhook-receiver';

/** The raw baselines of the webhook bench (bench/webhooks.ts): the same work as the pipeline's, done by hand. */

/**
 * Deliveries in flight in the pipeline at most: the delivery consumer's batches of `batchSize` records, handled at
 * once, in up to `maxConcurrency` invocations (Lambda's and the local runtime's event source mapping alike).
 */
export const RAW_CONCURRENCY = deliverWebhooks.batchSize * deliverWebhooks.maxConcurrency;

/** One signed POST as the delivery worker sends it (same headers), plus RAW_HEADER; throws unless 200. */
export function rawPost(
  url: URL,
  agent: Agent | false,
  pair: Pick<Pair, 'eventId' | 'webhook'>,
  body: string,
): Promise<void> {
  const timestampMs = Date.now();
  // The worker's own header builder: the raw path does the signing work the worker does.
  const headers = deliveryHeaders(
    pair.webhook.id,
    { event_id: pair.eventId, type: EVENT_TYPE },
    [pair.webhook.secret],
    timestampMs,
    body,
  );
  return postExpecting200(url, { agent, headers: { ...headers, [RAW_HEADER]: '1' } }, body);
}

/** What the delivery worker reads from its queue for `pair` (its channel's message), rebuilt from the body it sent. */
export function deliveryMessageOf(accountId: string, pair: Pair, body: string): string {
  const {
    event,
    hook_timestamp_millis: occurredAt,
    dc_id: dcId,
    route_id: routeId,
    event_id: eventId,
    ...details
  } = JSON.parse(body) as Record<string, unknown>;
  const message = {
    account_id: accountId,
    webhook_id: pair.webhook.id,
    event: {
      event_id: eventId,
      type: event,
      dc_id: dcId,
      route_id: routeId,
      occurred_at: occurredAt,
      details,
    },
    attempt: 1,
  };
  // Checked as the service's producers check it: the raw path carries the same message.
  channels.deliveries.message().parse(message);
  return JSON.stringify(message);
}

/**
 * The raw cost of one delivery's own work (functions/domain/webhook-events.ts `deliver` on a first attempt
 * that succeeds, with the event source's receive and delete around it), as a plain loop: ReceiveMessage of
 * one message of the delivery's size from a scratch queue, its body parsed, a consistent GetItem of the
 * webhook item, the signed POST on a fresh connection (postWebhook's agent: false), a PutItem of a delivery
 * attempt record shaped as recordDeliveryAttempt writes it and, at once, the UpdateItem of the delivery's record
 * as recordDeliveryOutcome writes it (both under scratch partitions of the same length, so the webhooks'
 * delivery logs stay as the pipeline wrote them), DeleteMessage. SQS and DynamoDB are the
 * emulators themselves (fauxqs and DynamoDB Local, as the other raw baselines), not the local AWS endpoint.
 */
export async function rawDeliveryWork(options: {
  stack: StackInfo;
  raw: RawTable;
  accountId: string;
  runId: string;
  bodies: { pair: Pair; body: string }[];
  receiverUrl: URL;
  concurrency: number;
  warmup: number;
  abort: AbortSignal;
  log(message: string): void;
}): Promise<{ run: LoadRun; warmupErrors: number; messageBytes: number; queue: string }> {
  const { stack, raw, accountId, bodies, abort } = options;
  const sqs = new SQSClient({
    endpoint: stack.emulator_endpoints.aws,
    region: stack.region,
    credentials: LOCAL_CREDENTIALS,
    useQueueUrlAsEndpoint: false,
  });
  const queueName = `bench-wh-scratch-${options.runId}`;
  const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
  if (!queueUrl) throw new Error(`creating the scratch queue ${queueName} returned no URL`);
  try {
    const total = options.warmup + bodies.length;
    const messages = Array.from({ length: total }, (_, i) => {
      const { pair, body } = bodies[i % bodies.length] as { pair: Pair; body: string };
      return deliveryMessageOf(accountId, pair, body);
    });
    options.log(`  filling the scratch queue with ${total} delivery messages`);
    await inParallel(
      Array.from({ length: Math.ceil(total / 10) }, (_, i) => messages.slice(i * 10, i * 10 + 10)),
      RAW_CONCURRENCY,
      abort,
      async (batch) => {
        const { Failed = [] } = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((MessageBody, id) => ({ Id: String(id), MessageBody })),
          }),
        );
        if (Failed.length) throw new Error(`${Failed.length} messages not sent to the scratch queue`);
      },
    );
    const secrets = new Map(bodies.map(({ pair }) => [pair.webhook.id, pair.webhook.secret]));
    // Same length as WEBHOOK#<account>/<webhook id>: the attempt records are as large as the worker's.
    const scratchWebhook = (id: string) => `bench${randomBytes(16).toString('hex')}`.slice(0, id.length);
    const scratchIds = new Map(bodies.map(({ pair }) => [pair.webhook.id, scratchWebhook(pair.webhook.id)]));
    const oneDelivery = async () => {
      let message: { Body?: string; ReceiptHandle?: string } | undefined;
      for (let attempt = 0; !message && attempt < 3; attempt++) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 1,
            WaitTimeSeconds: attempt === 0 ? 0 : 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        message = Messages[0];
      }
      if (!message?.Body || !message.ReceiptHandle) throw new Error('the scratch queue returned no message');
      // Parsed by the channel's schema, as the delivery worker's batch processor parses it.
      const delivery = channels.deliveries.parse(message.Body);
      const { event } = delivery;
      const { Item: webhook } = await raw.db.send(
        new GetCommand({
          TableName: raw.tableName,
          Key: webhookKey(delivery.account_id, delivery.webhook_id),
          ConsistentRead: true,
        }),
      );
      // The item holds the secret sealed (KMS envelope); the worker opens it with a data key it caches, so the
      // raw path signs with the plain secret the create call answered.
      const secret = secrets.get(delivery.webhook_id);
      if (!webhook?.enabled || !webhook.secret || !secret)
        throw new Error(`webhook ${delivery.webhook_id} not found enabled`);
      const body = webhookBody(event);
      const target = { eventId: event.event_id, webhook: { id: delivery.webhook_id, secret } };
      const sentAt = Date.now();
      const started = performance.now();
      let statusCode: number | undefined;
      try {
        await rawPost(options.receiverUrl, false, target, body);
        statusCode = 200;
      } finally {
        // The attempt record and the delivery's record, written together as the worker writes them, under
        // the scratch webhook id.
        const scratchId = scratchIds.get(delivery.webhook_id) as string;
        const recordDelivery = raw.db.send(
          new UpdateCommand({
            ...deliveryOutcomeUpdate(delivery.account_id, scratchId, {
              deliveryId: newDeliveryId(sentAt),
              eventId: event.event_id,
              eventType: event.type,
              eventJson: JSON.stringify(event),
              status: statusCode === 200 ? 'SUCCEEDED' : 'PENDING',
              attempt: delivery.attempt,
              firstAttemptAt: sentAt,
              at: sentAt,
            }),
            TableName: raw.tableName,
          }),
        );
        const logAttempt = raw.db.send(
          new PutCommand({
            TableName: raw.tableName,
            Item: deliveryAttemptItem(delivery.account_id, scratchId, {
              eventId: event.event_id,
              eventType: event.type,
              attempt: delivery.attempt,
              statusCode,
              durationMs: Math.round(performance.now() - started),
              timestamp: sentAt,
            }),
          }),
        );
        await Promise.all([logAttempt, recordDelivery]);
      }
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    };
    const warm = await runLoad(oneDelivery, {
      concurrency: options.concurrency,
      count: options.warmup,
      abort,
    });
    const run = await runLoad(oneDelivery, { concurrency: options.concurrency, count: bodies.length, abort });
    return {
      run,
      warmupErrors: warm.errors,
      messageBytes: Math.round(
        messages.reduce((totalBytes, body) => totalBytes + Buffer.byteLength(body), 0) / messages.length,
      ),
      queue: queueName,
    };
  } finally {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => undefined);
    sqs.destroy();
  }
}

/**
 * The delivered bodies POSTed again at RAW_CONCURRENCY, signed the same way, straight from the bench process
 * (after `warmup` POSTs of each kind): a fresh connection per POST, as postWebhook (agent: false) makes one
 * per delivery, then over kept-alive connections.
 */
export async function rawPostRuns(
  bodies: Pair[],
  receiverEndpoint: URL,
  warmup: number,
  abort: AbortSignal,
): Promise<{ rawRun: LoadRun; rawKeepAliveRun: LoadRun; rawWarmupErrors: number }> {
  let cursor = 0;
  const nextBody = () => {
    const pair = bodies[cursor++ % bodies.length] as Pair;
    return { pair, body: pair.body as string };
  };
  const rawFresh = async () => {
    const { pair, body } = nextBody();
    await rawPost(receiverEndpoint, false, pair, body);
  };
  const keepAlive = new Agent({ keepAlive: true, maxSockets: RAW_CONCURRENCY });
  const rawKeepAlive = async () => {
    const { pair, body } = nextBody();
    await rawPost(receiverEndpoint, keepAlive, pair, body);
  };
  try {
    const warmups = [
      await runLoad(rawFresh, { concurrency: RAW_CONCURRENCY, count: warmup, abort }),
      await runLoad(rawKeepAlive, { concurrency: RAW_CONCURRENCY, count: warmup, abort }),
    ];
    const rawWarmupErrors = warmups.reduce((total, run) => total + run.errors, 0);
    const rawRun = await runLoad(rawFresh, { concurrency: RAW_CONCURRENCY, count: bodies.length, abort });
    const rawKeepAliveRun = await runLoad(rawKeepAlive, {
      concurrency: RAW_CONCURRENCY,
      count: bodies.length,
      abort,
    });
    return { rawRun, rawKeepAliveRun, rawWarmupErrors };
  } finally {
    keepAlive.destroy();
  }
}

export interface RawBaselines {
  rawRun?: LoadRun;
  rawKeepAliveRun?: LoadRun;
  rawWarmupErrors: number;
  rawDelivery?: Awaited<ReturnType<typeof rawDeliveryWork>>;
}

/**
 * The scenario's raw baselines over the delivered pairs: their bodies POSTed again, signed the same way, from
 * this process (fresh connections, then kept alive), and one delivery's own work per loop iteration
 * (rawDeliveryWork), each at RAW_CONCURRENCY after `warmup` requests.
 */
export async function rawBaselines(options: {
  bodies: Pair[];
  receiverEndpoint: URL;
  warmup: number;
  stack: StackInfo;
  raw: RawTable;
  accountId: string;
  runId: string;
  abort: AbortSignal;
  log: (line: string) => void;
}): Promise<RawBaselines> {
  const { bodies, receiverEndpoint, warmup, abort, log } = options;
  if (bodies.length === 0) return { rawWarmupErrors: 0 };
  log(
    `raw baseline: ${bodies.length} signed POSTs at concurrency ${RAW_CONCURRENCY} (after ${warmup} warm-up)`,
  );
  const posts = await rawPostRuns(bodies, receiverEndpoint, warmup, abort);
  log(
    `raw delivery work: ${bodies.length} x (SQS receive, GetItem, signed POST, PutItem + UpdateItem, SQS delete) at ` +
      `concurrency ${RAW_CONCURRENCY} (after ${warmup} warm-up)`,
  );
  const rawDelivery = await rawDeliveryWork({
    stack: options.stack,
    raw: options.raw,
    accountId: options.accountId,
    runId: options.runId,
    bodies: bodies.map((pair) => ({ pair, body: pair.body as string })),
    receiverUrl: receiverEndpoint,
    concurrency: RAW_CONCURRENCY,
    warmup,
    abort,
    log,
  });
  log(`  ${round(rawDelivery.run.ok / (rawDelivery.run.elapsedMs / 1000), 1)} deliveries/s`);
  return { ...posts, rawDelivery };
}
