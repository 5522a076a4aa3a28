import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestAnalyticsDownload } from '../../functions/api/analytics/index';
import type { ChannelName } from '../../functions/models/channels';
import { allChannels } from '../../functions/models/channels';
import { exampleEvent } from '../../functions/models/event-docs';
import { appendToFeed } from '../../functions/workers/append-to-feed/consumer';
import { checkProofs } from '../../functions/workers/check-proofs/consumer';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { deleteRoutes } from '../../functions/workers/delete-routes/consumer';
import { deliverWebhooks } from '../../functions/workers/deliver-webhooks/consumer';
import { endDeadLetteredImports } from '../../functions/workers/end-dead-letter-imports/consumer';
import { endOverdueImports } from '../../functions/workers/end-overdue-imports/consumer';
import { exportAnalytics } from '../../functions/workers/export-analytics/consumer';
import { fanOutEvents } from '../../functions/workers/fan-out-events/consumer';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import { consumers } from '../../functions/workers/index';
import { optimizeRoutes } from '../../functions/workers/optimize-routes/consumer';
import { recordMessageOutcomes } from '../../functions/workers/record-message-outcomes/consumer';
import { sendNotifications } from '../../functions/workers/send-notifications/consumer';
import { sqsRecord } from '../../local/event-sources/sqs-records';
import { createTestAccount } from '../support/accounts';
import { call, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { receiveQueueMessages } from '../support/routes';

/**
 * A message its consumer cannot read (no JSON, or not of its channel's schema) is never lost and never holds
 * up the queue: it is reported as a batch item failure (SQS hands it out again alone, then moves it to the
 * DLQ, whose alarm tells an operator; the imports DLQ's own consumer leaves it in the DLQ) and logged at WARN
 * with its message id, while the rest of its batch is done. The test hands each consumer's deployed function
 * a batch as its event source would: one message it handles, and the two it cannot read.
 */

let api: TestApi;
let acme: { accountId: string; key: string };

beforeAll(async () => {
  api = await startTestApi('channel-messages', { pollers: false });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
}, 120_000);

afterAll(() => api?.close());

/** A message each consumer handles without a change: it names nothing there is, or is S3's test event. */
async function handledMessage(consumer: ConsumerDefinition): Promise<string> {
  const nothing = { account_id: acme.accountId, dc_id: 'dc-1', txid: 'imp_0000000000000000' };
  switch (consumer) {
    case importRoutes:
    case endDeadLetteredImports:
    case checkProofs:
      return JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent' });
    case endOverdueImports:
      return JSON.stringify(nothing);
    case fanOutEvents:
    case appendToFeed:
      // The stream record of an item that is no event.
      return JSON.stringify({ eventName: 'INSERT', dynamodb: { NewImage: { entity: { S: 'ROUTE' } } } });
    case deliverWebhooks:
      return JSON.stringify({
        account_id: acme.accountId,
        webhook_id: 'wh_0000000000000000',
        event: exampleEvent('PING'),
        attempt: 1,
      });
    case deleteRoutes:
      return JSON.stringify({ account_id: acme.accountId, route_id: 'never-imported' });
    case optimizeRoutes:
      return JSON.stringify({
        account_id: acme.accountId,
        dc_id: 'dc-1',
        route_id: 'never-imported',
        optimization_id: 'opt_0000000000000000',
      });
    case exportAnalytics: {
      // The one message with no way around a record: a real download request, of days without rows.
      const requested = await call(api.url, 'POST', '/analytics/download-requests', {
        key: acme.key,
        body: {
          dc_ids: ['dc-1'],
          from_date: '2026-01-01',
          to_date: '2026-01-01',
          analytics_types: ['ROUTE_ANALYTICS'],
        },
      });
      expectSuccess(requested, requestAnalyticsDownload);
      const [message] = await receiveQueueMessages(api, 'analytics', 1);
      return (message as SQSRecord).body;
    }
    case sendNotifications:
      return JSON.stringify({
        account_id: acme.accountId,
        dc_id: 'dc-1',
        route_id: 'never-imported',
        event_id: 'evt_0000000000000000',
        event_type: 'ROUTE_STARTED',
        occurred_at: 1,
      });
    case recordMessageOutcomes:
      // An SES delivery event of a message no account sent: dropped with a log line.
      return JSON.stringify({
        Type: 'Notification',
        MessageId: 'b1946ac9-2f3b-5e4a-9c1d-000000000001',
        TopicArn: 'arn:aws:sns:us-east-1:000000000000:outcomes',
        Message: JSON.stringify({
          eventType: 'Delivery',
          mail: { tags: { account_id: [acme.accountId], notification_id: ['never-sent'] } },
          delivery: { timestamp: '2026-11-29T10:00:00.000Z' },
        }),
      });
    default:
      throw new Error(`no handled message for the consumer ${consumer.id}`);
  }
}

/** For each channel, a message of the right shape in every way but one field, and that field. */
const WRONG_SCHEMA: Record<ChannelName, { message: unknown; field: string }> = {
  imports: { message: { account_id: 'acc_1', dc_id: 'dc-1' }, field: 'txid' },
  importDeadlines: { message: { account_id: 'acc_1', dc_id: 'dc-1', txid: 42 }, field: 'txid' },
  events: { message: { eventName: 'INSERT', dynamodb: { NewImage: 'not an image' } }, field: 'NewImage' },
  feed: { message: { eventName: 'INSERT', dynamodb: { NewImage: 'not an image' } }, field: 'NewImage' },
  deliveries: {
    message: { account_id: 'acc_1', webhook_id: 'wh_1', event: exampleEvent('PING') },
    field: 'attempt',
  },
  deletions: { message: { account_id: 'acc_1' }, field: 'route_id' },
  analytics: { message: { txid: 'dl_1' }, field: 'account_id' },
  proofUploads: { message: { Records: [{ s3: { object: { key: 'proofs/x' } } }] }, field: 'eventTime' },
  optimizations: {
    message: { account_id: 'acc_1', dc_id: 'dc-1', route_id: 'r-1' },
    field: 'optimization_id',
  },
  notifications: {
    message: {
      account_id: 'acc_1',
      dc_id: 'dc-1',
      route_id: 'r-1',
      event_type: 'ROUTE_STARTED',
      occurred_at: 1,
    },
    field: 'event_id',
  },
  messageOutcomes: {
    message: { Type: 'Notification', MessageId: 'm-1', TopicArn: 'arn:aws:sns:us-east-1:0:t' },
    field: 'Message',
  },
};

function recordOf(consumer: ConsumerDefinition, messageId: string, body: string): SQSRecord {
  const queue = api.cloud.queue(consumer.queue, consumer.deadLetters === true);
  return sqsRecord({ messageId, receiptHandle: messageId, body, queueArn: queue.arn });
}

/** The WARN lines about failed records the consumer's function wrote since `from`, by message id. */
function failedRecordLines(consumer: ConsumerDefinition, from: number) {
  const functionName = api.functionName(consumer);
  return api.logs
    .slice(from)
    .filter((log) => log.functionName === functionName && log.line.startsWith('{'))
    .map((log) => JSON.parse(log.line) as Record<string, unknown>)
    .filter((line) => line.message === 'record failed; SQS retries it');
}

describe('a message its consumer cannot read', () => {
  it('is tried with every consumer', () => {
    expect(consumers.length).toBe(12);
  });

  it.each(consumers)(
    '$id: reports the message that is no JSON and the one of the wrong schema as failed, and does the rest',
    async (consumer) => {
      const from = api.logs.length;
      const wrong = WRONG_SCHEMA[consumer.queue.name as ChannelName];
      const records = [
        recordOf(consumer, 'handled', await handledMessage(consumer)),
        recordOf(consumer, 'not-json', '{"account_id": "acc_1", '),
        recordOf(consumer, 'wrong-schema', JSON.stringify(wrong.message)),
      ];
      const result = await api.invoke(consumer, { Records: records });
      expect(result.kind, JSON.stringify(result)).toBe('success');
      expect((result as { payload: unknown }).payload).toEqual({
        batchItemFailures: [{ itemIdentifier: 'not-json' }, { itemIdentifier: 'wrong-schema' }],
      });
      const lines = failedRecordLines(consumer, from);
      expect(lines.map((line) => [line.level, line.message_id, line.receive_count])).toEqual([
        ['WARN', 'not-json', 1],
        ['WARN', 'wrong-schema', 1],
      ]);
      // The line says what is wrong with the message.
      expect(JSON.stringify(lines[1]?.error)).toContain(wrong.field);
    },
  );

  it('fails the whole batch when it is the batch’s only message, as a batch of one consumer gets it', async () => {
    const result = await api.invoke(importRoutes, {
      Records: [recordOf(importRoutes, 'alone', JSON.stringify(WRONG_SCHEMA.imports.message))],
    });
    // Lambda then hands the message out again: the same as a batch item failure.
    expect(result).toMatchObject({ kind: 'functionError', errorType: 'FullBatchFailureError' });
  });
});

it('has a wrong message for every channel', () => {
  expect(Object.keys(WRONG_SCHEMA).sort()).toEqual(allChannels.map((channel) => channel.name).sort());
});
