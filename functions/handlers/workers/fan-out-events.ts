import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { eventsOfStreamMessage, fanOut } from '../../domain/webhook-events';
import { logger } from '../../shared/logger';

const processor = new BatchProcessor(EventType.SQS);

/**
 * One message of the events queue: new event items from the table stream. A record that throws is
 * retried alone (deliveries already queued for it are sent again: receivers deduplicate by event_id).
 */
async function fanOutRecord(record: SQSRecord): Promise<void> {
  for (const { accountId, event } of eventsOfStreamMessage(record.body)) {
    const deliveries = await fanOut(accountId, event);
    logger.info('event fanned out', { event_id: event.event_id, event_type: event.type, deliveries });
  }
}

export const handler = middy((event: SQSEvent, context: Context) =>
  processPartialResponse(event, fanOutRecord, processor, { context }),
).use(injectLambdaContext(logger, { resetKeys: true }));
