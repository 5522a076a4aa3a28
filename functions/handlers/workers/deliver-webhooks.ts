import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DeliveryMessage, deliver, deliverySettings } from '../../domain/webhook-events';
import { logger } from '../../shared/logger';

const processor = new BatchProcessor(EventType.SQS);
const settings = deliverySettings();

/**
 * One delivery attempt per message. Failed deliveries are retried by queueing a new message (the
 * schedule's delay), so a record only throws when that bookkeeping failed: SQS then retries it.
 */
async function deliverRecord(record: SQSRecord): Promise<void> {
  const message = JSON.parse(record.body) as DeliveryMessage;
  const outcome = await deliver(message, settings);
  logger.debug('delivery processed', {
    webhook_id: message.webhook_id,
    event_id: message.event.event_id,
    outcome,
  });
}

export const handler = middy((event: SQSEvent, context: Context) =>
  processPartialResponse(event, deliverRecord, processor, { context }),
).use(injectLambdaContext(logger, { resetKeys: true }));
