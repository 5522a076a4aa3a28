import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { runExport } from '../../domain/analytics-export';
import { logger } from '../../shared/logger';
import { QUEUES } from '../../shared/resources';

const ExportMessage = z.object({ account_id: z.string(), txid: z.string() });
const processor = new BatchProcessor(EventType.SQS);
/** A new file every this many rows (DESIGN §6: 1,000,000; tests make it small). */
const rowsPerFile = Number(process.env.ANALYTICS_ROWS_PER_FILE ?? 1_000_000);

async function exportRecord(record: SQSRecord): Promise<void> {
  const message = ExportMessage.parse(JSON.parse(record.body));
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const outcome = await runExport(message, {
    lastAttempt: receiveCount >= QUEUES.analytics.maxReceiveCount,
    rowsPerFile,
  });
  logger.info('analytics export processed', { txid: message.txid, outcome, receiveCount });
}

export const handler = middy((event: SQSEvent, context: Context) =>
  processPartialResponse(event, exportRecord, processor, { context }),
).use(injectLambdaContext(logger, { resetKeys: true }));
