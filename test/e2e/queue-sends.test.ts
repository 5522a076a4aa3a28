import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '../../functions/models/channels';
import { defineChannel } from '../../functions/shared/channel';
import { configure } from '../../functions/shared/config';
import { send, sendAll } from '../../functions/shared/queues';
import * as z from '../../functions/shared/zod';
import { LOCAL_REGION } from '../../local/cloud/model';
import { useAwsProxy } from '../support/aws-proxy';

/**
 * functions/shared/queues.ts against the local AWS endpoint and fauxqs: calls made at once share SendMessageBatch
 * requests, and each call settles with its own messages. The service's SQS client reaches the endpoint through
 * a relay in this process that counts the requests it carries (and refuses, for one test, what it is told to).
 */
const aws = useAwsProxy();
const requests: string[] = [];
/** A request with this in it is refused as a whole by the relay, as the local endpoint never does. */
const REFUSED_WHOLE = 'refuse-this-request';
let relay: Server;
/** The service code's AWS settings: through the relay, as the operator. */
let environment: Record<string, string>;

beforeAll(async () => {
  const target = new URL(aws.proxy.endpoint);
  relay = createServer(async (req, res) => {
    requests.push(String(req.headers['x-amz-target']));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (body.includes(REFUSED_WHOLE)) {
      // What SQS answers a request it refuses as a whole (JSON protocol).
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'refused' }));
      return;
    }
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.end(body);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { accessKeyId, secretAccessKey } = aws.admin.principal;
  environment = {
    AWS_REGION: LOCAL_REGION,
    AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
  };
});

afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
});

/** The deliveries queue's channel, taking any JSON object: what is sent here is about batching, not schemas. */
const deliveries = defineChannel('deliveries', {
  urlEnv: channels.deliveries.urlEnv,
  deadLetterUrlEnv: channels.deliveries.deadLetterUrlEnv,
  visibilityTimeoutSeconds: channels.deliveries.visibilityTimeoutSeconds,
  maxReceiveCount: channels.deliveries.maxReceiveCount,
  message: () => z.looseObject({}),
});

/** A new queue taking messages of at most 1 KiB, as the deliveries queue of the service's code. */
async function deliveriesQueue(name: string): Promise<string> {
  const { QueueUrl } = await aws.admin.sqs.send(
    new CreateQueueCommand({ QueueName: `${name}-${aws.run}`, Attributes: { MaximumMessageSize: '1024' } }),
  );
  configure({ ...environment, DELIVERY_QUEUE_URL: QueueUrl });
  return QueueUrl as string;
}

/** The bodies in the queue once it holds `expected` (or after ten empty-handed long polls). */
async function bodiesIn(queueUrl: string, expected: number): Promise<string[]> {
  const messages: Message[] = [];
  for (let polls = 0; polls < 10 && messages.length < expected; polls++) {
    const { Messages = [] } = await aws.admin.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    messages.push(...Messages);
  }
  return messages.map((message) => message.Body as string).sort();
}

describe('sending to a queue', () => {
  it('sends the messages of calls made at once in shared SendMessageBatch requests, each one once', async () => {
    const queueUrl = await deliveriesQueue('shared');
    const before = requests.length;
    await Promise.all([
      ...Array.from({ length: 5 }, (_, call) =>
        sendAll(
          deliveries,
          [0, 1, 2].map((n) => ({ call, n })),
        ),
      ),
      send(deliveries, { call: 5, n: 0 }),
      send(deliveries, { call: 6, n: 0 }, { delaySeconds: 1 }),
    ]);
    // 17 messages: one request of 10 and one of 7.
    expect(requests.slice(before)).toEqual(['AmazonSQS.SendMessageBatch', 'AmazonSQS.SendMessageBatch']);
    const expected = [
      ...Array.from({ length: 5 }, (_, call) => [0, 1, 2].map((n) => JSON.stringify({ call, n }))).flat(),
      JSON.stringify({ call: 5, n: 0 }),
      JSON.stringify({ call: 6, n: 0 }),
    ].sort();
    expect(await bodiesIn(queueUrl, expected.length)).toEqual(expected);
  });

  it('fails only the call whose message SQS refuses; the other calls of its request get theirs sent', async () => {
    const queueUrl = await deliveriesQueue('refused');
    const outcomes = await Promise.allSettled([
      sendAll(deliveries, [
        { call: 'a', n: 0 },
        { call: 'a', n: 1 },
      ]),
      send(deliveries, { call: 'too long', padding: 'x'.repeat(1100) }),
      send(deliveries, { call: 'bad delay' }, { delaySeconds: 901 }),
      sendAll(deliveries, [{ call: 'c', n: 0 }]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(await bodiesIn(queueUrl, 3)).toEqual(
      [
        { call: 'a', n: 0 },
        { call: 'a', n: 1 },
        { call: 'c', n: 0 },
      ]
        .map((body) => JSON.stringify(body))
        .sort(),
    );
  });

  it('sends again, call by call, the messages of a request SQS refused as a whole (refusal injected by the relay)', async () => {
    const queueUrl = await deliveriesQueue('whole');
    const before = requests.length;
    const outcomes = await Promise.allSettled([
      sendAll(deliveries, [{ call: 'a' }]),
      send(deliveries, { call: REFUSED_WHOLE }),
      sendAll(deliveries, [{ call: 'c' }]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'InvalidParameterValue' });
    // The shared request, then one per call.
    expect(requests.length - before).toBe(4);
    expect(await bodiesIn(queueUrl, 2)).toEqual(['{"call":"a"}', '{"call":"c"}']);
  });

  it('sends calls made in different turns of the event loop in requests of their own', async () => {
    const queueUrl = await deliveriesQueue('turns');
    const before = requests.length;
    await send(deliveries, { turn: 1 });
    await send(deliveries, { turn: 2 });
    expect(requests.length - before).toBe(2);
    expect(await bodiesIn(queueUrl, 2)).toEqual(['{"turn":1}', '{"turn":2}']);
  });
});
