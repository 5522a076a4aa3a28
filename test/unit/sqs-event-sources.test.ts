import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSourceMappingSpec, QueueSpec } from '../../local/cloud/model';
import { localConsumerConcurrency, startSqsEventSources } from '../../local/event-sources/sqs';
import type { LambdaRuntime } from '../../local/lambda/runtime';
import { listenOnLoopback } from '../../local/loopback-server';

/**
 * The local SQS event source's polling, against a stand-in SQS endpoint (AWS JSON protocol) that counts the
 * ReceiveMessage calls waiting at once, and a stand-in Lambda that counts the invocations running at once.
 * fauxqs wakes every waiting long poll for each message sent: one long poll per invocation slot would make
 * every send cost a round of empty receives through the signing proxy.
 */

const CONCURRENCY = 5;
const MESSAGES = 20;

interface StandInSqs {
  endpoint: string;
  maxWaitingReceives: number;
  deleted: string[];
  close(): Promise<void>;
}

/** Hands out `messages` one per ReceiveMessage, then holds each receive 50 ms and answers it empty. */
async function standInSqs(messages: number): Promise<StandInSqs> {
  let next = 0;
  let waiting = 0;
  const state = { maxWaitingReceives: 0, deleted: [] as string[] };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const target = String(request.headers['x-amz-target']);
      const input = JSON.parse(body || '{}') as { Entries?: { Id: string; ReceiptHandle: string }[] };
      let output: unknown = {};
      if (target.endsWith('.ReceiveMessage')) {
        waiting++;
        state.maxWaitingReceives = Math.max(state.maxWaitingReceives, waiting);
        if (next < messages) {
          const id = `m${next++}`;
          const text = JSON.stringify({ id });
          const md5 = createHash('md5').update(text).digest('hex');
          output = { Messages: [{ MessageId: id, ReceiptHandle: id, Body: text, MD5OfBody: md5 }] };
        } else {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        waiting--;
      } else if (target.endsWith('.DeleteMessageBatch')) {
        state.deleted.push(...(input.Entries ?? []).map((entry) => entry.ReceiptHandle));
        output = { Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id })), Failed: [] };
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(output));
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    endpoint: url,
    get maxWaitingReceives() {
      return state.maxWaitingReceives;
    },
    deleted: state.deleted,
    close,
  };
}

/** A function whose invocations wait until `gate` opens; it counts how many run at once. */
function standInLambda() {
  let running = 0;
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { maxRunning: 0, invocations: 0, records: [] as string[] };
  const lambda = {
    invoke: async (_name: string, event: SQSEvent) => {
      running++;
      state.invocations++;
      state.maxRunning = Math.max(state.maxRunning, running);
      state.records.push(...event.Records.map((record) => record.messageId));
      await gate;
      running--;
      return { kind: 'success', payload: null };
    },
  } as unknown as LambdaRuntime;
  return { lambda, state, open };
}

const queue: QueueSpec = {
  logicalId: 'Queue',
  stackPath: 'Test',
  name: 'queue',
  arn: 'arn:aws:sqs:us-east-1:000000000000:queue',
  url: 'http://127.0.0.1/000000000000/queue',
  attributes: {},
};

const mapping: EventSourceMappingSpec = {
  logicalId: 'Mapping',
  stackPath: 'Test',
  functionName: 'consumer',
  eventSourceArn: queue.arn,
  batchSize: 10,
  maximumBatchingWindowSeconds: 0,
  maximumConcurrency: CONCURRENCY,
  reportBatchItemFailures: true,
  enabled: true,
  filterPatterns: [],
};

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the local SQS event source', () => {
  it('runs up to the maximum concurrency of invocations with one receive waiting at a time', async () => {
    const sqs = await standInSqs(MESSAGES);
    stops.push(() => sqs.close());
    const { lambda, state, open } = standInLambda();
    const sources = startSqsEventSources({
      mappings: [mapping],
      queues: [queue],
      lambda,
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentialsOf: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
    });
    stops.push(() => sources.stop());

    // Every slot taken by an invocation that does not end yet: no more is received meanwhile.
    await until(() => state.invocations === CONCURRENCY, `${CONCURRENCY} invocations`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.invocations).toBe(CONCURRENCY);
    expect(state.maxRunning).toBe(CONCURRENCY);

    open();
    await until(() => sqs.deleted.length === MESSAGES, `${MESSAGES} deletes`);
    expect(new Set(state.records).size).toBe(MESSAGES);
    expect(new Set(sqs.deleted).size).toBe(MESSAGES);
    // With the queue empty, one long poll waits, not one per invocation slot.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sqs.maxWaitingReceives).toBe(1);
  });
});

describe('npm start’s consumer concurrency', () => {
  it('is twice the cores unless LOCAL_CONSUMER_CONCURRENCY says otherwise', () => {
    expect(localConsumerConcurrency({})).toBe(2 * availableParallelism());
    expect(localConsumerConcurrency({ LOCAL_CONSUMER_CONCURRENCY: '' })).toBe(2 * availableParallelism());
    expect(localConsumerConcurrency({ LOCAL_CONSUMER_CONCURRENCY: '20' })).toBe(20);
  });

  it('refuses a value that is not a whole number of at least 1, naming the variable', () => {
    for (const value of ['0', '-2', '1.5', 'four'])
      expect(() => localConsumerConcurrency({ LOCAL_CONSUMER_CONCURRENCY: value })).toThrow(
        `LOCAL_CONSUMER_CONCURRENCY must be a whole number of at least 1, not '${value}'`,
      );
  });
});
