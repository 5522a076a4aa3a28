import type { Context, SQSRecord } from 'aws-lambda';
import { type ImportMessage, readImportQueueMessage } from '../../domain/import-messages';
import { arrivedUpload, runImport } from '../../domain/route-import';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

/** The imports a message starts: the queued one, or those of the uploads it reports (none once expired). */
async function importsOf(body: unknown): Promise<ImportMessage[]> {
  const message = readImportQueueMessage(body);
  if (message.kind === 's3TestEvent') {
    logger.info('S3 test event ignored');
    return [];
  }
  if (message.kind === 'import') return [message.import];
  const imports: ImportMessage[] = [];
  for (const upload of message.uploads) {
    const arrived = await arrivedUpload(upload);
    if (arrived) imports.push(arrived);
    else
      logger.warn('uploaded object ignored: no pending upload, or after its deadline', { key: upload.key });
  }
  return imports;
}

/** A record that throws is reported as a batch item failure: SQS retries it alone, then moves it to the DLQ. */
async function importRecord(record: SQSRecord, context: Context): Promise<void> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  // Lambda stops the invocation then at the latest: no import is started that could pass its deadline.
  const runEndsBy = Date.now() + context.getRemainingTimeInMillis();
  for (const message of await importsOf(JSON.parse(record.body))) {
    const outcome = await runImport(message, runEndsBy);
    // Counted once per import: a redelivery of a finished one is ALREADY_FINISHED.
    if (outcome === 'SUCCEEDED') countMetric('ImportsSucceeded');
    if (outcome === 'FAILED') countMetric('ImportsFailed');
    logger.info('import processed', { txid: message.txid, outcome, receiveCount });
  }
}

export const handler = sqsHandler({
  // An S3 notification's ids are in its object key, which the log line of its import names.
  logKeys: (record) => {
    const { account_id, dc_id, txid } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, dc_id, txid };
  },
  handle: importRecord,
});
