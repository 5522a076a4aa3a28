import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { logger, observed } from '../../../functions/shared/observability';
import * as z from '../../../functions/shared/zod';
import { readItem } from '../read-item';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts), zod with one schema,
 * the service's observability and Powertools' batch processor (partial batch responses): the least any queue
 * consumer of the service loads, before its channel's schemas and its own code.
 */
const Key = z.strictObject({ pk: z.string().check(z.minLength(1)), sk: z.string().check(z.minLength(1)) });
const processor = new BatchProcessor(EventType.SQS);

async function handleRecord(record: SQSRecord): Promise<void> {
  const key = Key.parse(JSON.parse(record.body));
  const Item = await readItem(key);
  logger.info('read', { found: Item !== undefined });
}

export const handler = observed((event: SQSEvent) => processPartialResponse(event, handleRecord, processor));
