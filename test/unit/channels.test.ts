import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as channels from '../../functions/models/channels';
import { allChannels } from '../../functions/models/channels';
import { exampleEvent } from '../../functions/models/event-docs';
import { type Channel, MessageRefusedError } from '../../functions/shared/channel';
import { configure } from '../../functions/shared/config';
import { send, sendAll, sendToDeadLetter } from '../../functions/shared/queues';
import { consumers } from '../../functions/workers/index';

/**
 * Each queue's messages are declared once, in its channel: `parse` reads what the consumer gets and refuses
 * anything else naming the field, and `send` refuses, before any call to SQS, a message the consumer would
 * refuse.
 */

const capture = <T>(name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/aws/${name}.json`, import.meta.url), 'utf8')) as T;

const anImport = { account_id: 'acc_1', dc_id: 'dc 1', txid: 'imp_1' };
const aDelivery = {
  account_id: 'acc_1',
  webhook_id: 'wh_1',
  event: exampleEvent('ROUTE_STARTED'),
  attempt: 1,
};

/** For each channel: a message that fits, and one of the wrong schema with the fields its refusal names. */
const examples = [
  {
    channel: channels.imports,
    fits: anImport,
    wrong: { account_id: 'acc_1', dc_id: 7 },
    names: ['dc_id', 'txid'],
  },
  {
    channel: channels.importDeadlines,
    fits: anImport,
    wrong: { ...anImport, txid: null },
    names: ['txid'],
  },
  {
    channel: channels.events,
    fits: capture('pipe-dynamodb-record'),
    wrong: { eventName: 'INSERT', dynamodb: { NewImage: { id: 'not an attribute value' } } },
    names: ['0.dynamodb.NewImage.id'],
  },
  {
    channel: channels.feed,
    fits: capture('pipe-dynamodb-record'),
    wrong: { eventName: 'INSERT', dynamodb: { NewImage: { id: 'not an attribute value' } } },
    names: ['0.dynamodb.NewImage.id'],
  },
  {
    channel: channels.deliveries,
    fits: aDelivery,
    wrong: { ...aDelivery, webhook_id: undefined, event: { ...aDelivery.event, type: 'ROUTE_LOST' } },
    names: ['webhook_id', 'event.type'],
  },
  {
    channel: channels.deletions,
    fits: { account_id: 'acc_1', route_id: 'R 1' },
    wrong: { account_id: 'acc_1', routeId: 'R 1' },
    names: ['route_id'],
  },
  {
    channel: channels.analytics,
    fits: { account_id: 'acc_1', txid: 'dl_1' },
    wrong: { account: 'acc_1', txid: 'dl_1' },
    names: ['account_id'],
  },
  {
    channel: channels.proofUploads,
    fits: capture('s3-test-event'),
    wrong: { Records: [{ eventTime: 'yesterday', s3: { object: {} } }] },
    names: ['Records.0.eventTime', 'Records.0.s3.object.key'],
  },
  {
    channel: channels.optimizations,
    fits: { account_id: 'acc_1', dc_id: 'dc 1', route_id: 'R 1', optimization_id: 'opt_1' },
    wrong: { account_id: 'acc_1', dc_id: 'dc 1', routeId: 'R 1', optimization_id: 7 },
    names: ['route_id', 'optimization_id'],
  },
  {
    channel: channels.notifications,
    fits: {
      account_id: 'acc_1',
      dc_id: 'dc 1',
      route_id: 'R 1',
      event_id: 'evt_1',
      event_type: 'ROUTE_STARTED',
      occurred_at: 1,
    },
    wrong: {
      account_id: 'acc_1',
      dc_id: 'dc 1',
      route_id: 'R 1',
      event_id: 'evt_1',
      event_type: 'START',
      occurred_at: 1,
    },
    names: ['event_type'],
  },
  {
    channel: channels.messageOutcomes,
    fits: {
      Type: 'Notification',
      MessageId: 'b1946ac9-2f3b-5e4a-9c1d-000000000001',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:outcomes',
      Message: 'Successfully validated SNS topic for Amazon SES event publishing.',
    },
    wrong: { Type: 'Notification', MessageId: 'm-1', TopicArn: 'arn:aws:sns:us-east-1:0:t', Message: {} },
    names: ['Message'],
  },
];

describe('the channels', () => {
  it('are each exported under their own name, and all in allChannels', () => {
    const exported = Object.entries(channels).filter(
      ([, value]) => typeof value === 'object' && value !== null && 'urlEnv' in value,
    ) as [string, Channel][];
    expect(exported.map(([key, channel]) => [key, channel.name])).toEqual(
      allChannels.map((channel) => [channel.name, channel.name]),
    );
    expect(exported.map(([, channel]) => channel)).toEqual(allChannels);
  });

  it('are every queue, each read by a consumer', () => {
    expect(examples.map((example) => example.channel)).toEqual(allChannels);
    for (const channel of allChannels)
      expect(
        consumers.some((consumer) => consumer.queue === channel),
        channel.name,
      ).toBe(true);
  });

  it.each(examples)('$channel.name: parse reads a message that fits', ({ channel, fits }) => {
    expect(() => channel.parse(JSON.stringify(fits))).not.toThrow();
  });

  it.each(examples)(
    '$channel.name: parse refuses a message of the wrong schema, naming its fields',
    ({ channel, wrong, names }) => {
      let refusal: unknown;
      try {
        channel.parse(JSON.stringify(wrong));
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(MessageRefusedError);
      const { message } = refusal as Error;
      expect(message).toContain(`a message of the ${channel.name} queue does not fit its schema`);
      for (const name of names) expect(message).toContain(`${name}: `);
    },
  );

  it.each(examples)('$channel.name: parse refuses a body that is no JSON', ({ channel }) => {
    expect(() => channel.parse('{"account_id": ')).toThrow(
      new MessageRefusedError(`a message of the ${channel.name} queue is not JSON`),
    );
  });

  it.each(examples)(
    '$channel.name: send refuses a message of the wrong schema before it looks for the queue',
    async ({ channel, wrong, names }) => {
      // No queue URL is set: a send that got as far as SQS would fail on the missing variable instead.
      configure({ [channel.urlEnv]: undefined, [channel.deadLetterUrlEnv]: undefined });
      // As a channel of anything: the compiler would refuse these messages (as it should) before send could.
      const anyChannel: Channel = channel;
      for (const attempt of [
        send(anyChannel, wrong),
        sendAll(anyChannel, [wrong]),
        sendToDeadLetter(anyChannel, wrong),
      ]) {
        const refusal = await attempt.catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(MessageRefusedError);
        expect((refusal as Error).message).toContain(
          `a message to the ${channel.name} queue does not fit its schema`,
        );
        for (const name of names) expect((refusal as Error).message).toContain(`${name}: `);
      }
    },
  );
});

describe('the imports channel', () => {
  it("reads a queued import, S3's notification of uploads and S3's test event", () => {
    expect(channels.imports.parse(JSON.stringify(anImport))).toEqual({ kind: 'import', import: anImport });

    const notification = capture<SQSEvent>('sqs-s3-object-created').Records[0]?.body as string;
    const { Records } = JSON.parse(notification) as { Records: { s3: { object: { key: string } } }[] };
    const [record] = Records;
    if (!record) throw new Error('the capture has no record');
    record.s3.object.key = 'uploads/acc_1/imp+2%2B%C3%A9.json';
    expect(channels.imports.parse(JSON.stringify({ Records }))).toEqual({
      kind: 'uploads',
      // Form-encoded: `+` is a space, `%2B` a plus.
      uploads: [{ key: 'uploads/acc_1/imp 2+é.json', arrivedAt: Date.parse('2024-03-14T19:02:45.087Z') }],
    });

    expect(channels.imports.parse(JSON.stringify(capture('s3-test-event')))).toEqual({ kind: 's3TestEvent' });
  });

  it('sends only queued imports: what S3 sends is not a message of the service', async () => {
    configure({ [channels.imports.urlEnv]: undefined });
    await expect(send(channels.imports, { Event: 's3:TestEvent' } as never)).rejects.toThrow(
      MessageRefusedError,
    );
  });
});

describe('the proof uploads channel', () => {
  it("reads S3's notification of created objects, keys decoded, and S3's test event as no uploads", () => {
    const notification = capture<SQSEvent>('sqs-s3-object-created').Records[0]?.body as string;
    const { Records } = JSON.parse(notification) as { Records: { s3: { object: { key: string } } }[] };
    const [record] = Records;
    if (!record) throw new Error('the capture has no record');
    record.s3.object.key = 'proofs/acc_1/R+1%2B%C3%A9/00000/prf_1';
    expect(channels.proofUploads.parse(JSON.stringify({ Records }))).toEqual([
      { key: 'proofs/acc_1/R 1+é/00000/prf_1', arrivedAt: Date.parse('2024-03-14T19:02:45.087Z') },
    ]);
    expect(channels.proofUploads.parse(JSON.stringify(capture('s3-test-event')))).toEqual([]);
  });
});

describe('the events channel', () => {
  it('reads the pipe’s message as one stream record, and a list of them as they are', () => {
    const record = capture<Record<string, unknown>>('pipe-dynamodb-record');
    expect(channels.events.parse(JSON.stringify(record))).toHaveLength(1);
    expect(channels.events.parse(JSON.stringify([record, record]))).toHaveLength(2);
    // A record of a removed item has no new image: it carries no event, and is no error.
    expect(channels.events.parse(JSON.stringify({ eventName: 'REMOVE', dynamodb: {} }))).toEqual([
      { dynamodb: {} },
    ]);
  });
});

describe('the deliveries channel', () => {
  it('carries a stored event whose payload is no longer what the catalog says (a redelivery), as it was', () => {
    const older = { ...aDelivery, event: { ...aDelivery.event, details: { driver_id: 'd-1' } } };
    expect(channels.deliveries.parse(JSON.stringify(older))).toEqual(older);
  });
});
