import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { runImport } from '../../domain/route-import';
import { logger } from '../../shared/logger';
import { QUEUES } from '../../shared/resources';

const ImportMessage = z.object({ account_id: z.string(), dc_id: z.string(), txid: z.string() });
const processor = new BatchProcessor(EventType.SQS);

/** A record that throws is reported as a batch item failure: SQS retries it alone, then moves it to the DLQ. */
async function importRecord(record: SQSRecord): Promise<void> {
  const message = ImportMessage.parse(JSON.parse(record.body));
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const outcome = await runImport(message, { lastAttempt: receiveCount >= QUEUES.imports.maxReceiveCount });
  logger.info('import processed', { txid: message.txid, outcome, receiveCount });
}

export const handler = middy((event: SQSEvent, context: Context) =>
  processPartialResponse(event, importRecord, processor, { context }),
).use(injectLambdaContext(logger, { resetKeys: true }));
