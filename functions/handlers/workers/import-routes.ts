import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { runImport } from '../../domain/route-import';
import { countMetric, logger } from '../../shared/observability';
import { QUEUES } from '../../shared/resources';
import { sqsHandler } from '../../shared/sqs-handler';

const ImportMessage = z.object({ account_id: z.string(), dc_id: z.string(), txid: z.string() });

/** A record that throws is reported as a batch item failure: SQS retries it alone, then moves it to the DLQ. */
async function importRecord(record: SQSRecord): Promise<void> {
  const message = ImportMessage.parse(JSON.parse(record.body));
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const outcome = await runImport(message, { lastAttempt: receiveCount >= QUEUES.imports.maxReceiveCount });
  // Counted once per import: a redelivery of a finished one is ALREADY_FINISHED.
  if (outcome === 'SUCCEEDED') countMetric('ImportsSucceeded');
  if (outcome === 'FAILED') countMetric('ImportsFailed');
  logger.info('import processed', { txid: message.txid, outcome, receiveCount });
}

export const handler = sqsHandler({
  logKeys: (record) => {
    const { account_id, dc_id, txid } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, dc_id, txid };
  },
  handle: importRecord,
});
