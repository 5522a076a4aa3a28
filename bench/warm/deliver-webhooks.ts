import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  deliveryAttemptItem,
  deliveryOutcomeUpdate,
  newDeliveryId,
} from '../../functions/data/webhook-deliveries';
import { webhookKey } from '../../functions/data/webhooks';
import { deliveryHeaders } from '../../functions/domain/webhook-http';
import type { DeliveryMessage } from '../../functions/models/channels';
import { webhookBody } from '../../functions/models/event-catalog';
import { sqsRecord } from '../../local/event-sources/sqs-records';
import { postExpecting200 } from '../http';
import { lambdaContext, type WarmPaths } from './lambda-context';

/**
 * webhook_delivery (bench/delivery-handler.ts): `workers/deliver-webhooks` invoked with a batch of delivery
 * messages as Lambda's SQS event source hands it one, against the work the batch must do: a consistent GetItem
 * of each webhook the batch names (the handler reads one once for the deliveries in flight to it), then for
 * every message at once the signed POST on a fresh connection and, once answered, the attempt record's PutItem
 * and the delivery record's UpdateItem together, as the handler writes them for a first attempt that succeeds.
 * Both paths post to the same receiver (another process), with new event ids each batch; the raw path writes
 * its records under scratch webhook ids of the same length, so the webhooks' delivery logs stay the handler's.
 */

export interface DeliverWebhooksInput {
  /** One batch: the messages of first attempts, their event ids made new for each batch. */
  messages: DeliveryMessage[];
  /** The plain signing secret of each webhook (the handler opens the sealed one from the table). */
  secrets: Record<string, string>;
  queueArn: string;
  table: string;
}

export const warmPaths: WarmPaths<DeliverWebhooksInput> = async (handler, input) => {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  let batch = 0;
  const batchMessages = () => {
    batch++;
    return input.messages.map((message, index) => ({
      ...message,
      event: { ...message.event, event_id: `${message.event.event_id}-${batch}-${index}` },
    }));
  };
  const scratchIds = new Map(
    Object.keys(input.secrets).map((id) => [
      id,
      `bench${randomBytes(16).toString('hex')}`.slice(0, id.length),
    ]),
  );

  const oneDelivery = async (message: DeliveryMessage, webhook: Promise<unknown>) => {
    const { account_id: accountId, webhook_id: webhookId, event } = message;
    const stored = (await webhook) as { enabled?: boolean; url?: string } | undefined;
    const secret = input.secrets[webhookId];
    if (!stored?.enabled || !stored.url || !secret) throw new Error(`webhook ${webhookId} not found enabled`);
    const body = webhookBody(event);
    const sentAt = Date.now();
    const started = performance.now();
    await post(stored.url, deliveryHeaders(webhookId, event, [secret], sentAt, body), body);
    const scratchId = scratchIds.get(webhookId) as string;
    const deliveryId = newDeliveryId(sentAt);
    await Promise.all([
      raw.send(
        new PutCommand({
          TableName: input.table,
          Item: deliveryAttemptItem(accountId, scratchId, {
            deliveryId,
            eventId: event.event_id,
            eventType: event.type,
            attempt: message.attempt,
            statusCode: 200,
            durationMs: Math.round(performance.now() - started),
            timestamp: sentAt,
          }),
        }),
      ),
      raw.send(
        new UpdateCommand({
          ...deliveryOutcomeUpdate(accountId, scratchId, {
            deliveryId,
            eventId: event.event_id,
            eventType: event.type,
            eventJson: JSON.stringify(event),
            status: 'SUCCEEDED',
            attempt: message.attempt,
            firstAttemptAt: sentAt,
            at: sentAt,
          }),
          TableName: input.table,
        }),
      ),
    ]);
  };

  return {
    handler: async () => {
      const messages = batchMessages();
      const event: SQSEvent = {
        Records: messages.map((message, index) =>
          sqsRecord({
            messageId: `bench-${batch}-${index}`,
            receiptHandle: `bench-receipt-${batch}-${index}`,
            body: JSON.stringify(message),
            queueArn: input.queueArn,
          }),
        ),
      };
      const response = (await handler(event, lambdaContext(batch, 30_000))) as SQSBatchResponse;
      if (response?.batchItemFailures?.length !== 0)
        throw new Error(`the handler failed ${JSON.stringify(response).slice(0, 300)}`);
    },
    raw: async () => {
      const messages = batchMessages();
      const webhooks = new Map<string, Promise<unknown>>();
      for (const { account_id: accountId, webhook_id: webhookId } of messages)
        if (!webhooks.has(webhookId))
          webhooks.set(
            webhookId,
            raw
              .send(
                new GetCommand({
                  TableName: input.table,
                  Key: webhookKey(accountId, webhookId),
                  ConsistentRead: true,
                }),
              )
              .then(({ Item }) => Item),
          );
      await Promise.all(
        messages.map((message) => oneDelivery(message, webhooks.get(message.webhook_id) as Promise<unknown>)),
      );
    },
  };
};

/** A POST on a fresh connection (the handler's `agent: false`); throws unless the receiver answered 200. */
const post = (url: string, headers: Record<string, string>, body: string) =>
  postExpecting200(url, { agent: false, headers }, body);
