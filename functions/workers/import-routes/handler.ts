import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { arrivedUpload, type ImportMessage, runImport } from '../../domain/route-import';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

/** What POST .../invoiced-routes queues. */
const QueuedImport = z.object({ account_id: z.string(), dc_id: z.string(), txid: z.string() });

/** What the bucket sends when an upload arrives (S3 event message structure 2.x), as far as it is read. */
const S3Notification = z.object({
  Records: z.array(z.object({ s3: z.object({ object: z.object({ key: z.string() }) }) })),
});

/** S3 sends one of these when the notification configuration is saved; it carries no upload. */
const isS3TestEvent = (body: unknown) =>
  z.object({ Event: z.literal('s3:TestEvent') }).safeParse(body).success;

/** The imports a message starts: the queued one, or those of the uploads it reports (none once expired). */
async function importsOf(body: unknown): Promise<ImportMessage[]> {
  if (isS3TestEvent(body)) {
    logger.info('S3 test event ignored');
    return [];
  }
  const notification = S3Notification.safeParse(body);
  if (!notification.success) return [QueuedImport.parse(body)];
  const imports: ImportMessage[] = [];
  for (const { s3 } of notification.data.Records) {
    const arrived = await arrivedUpload(s3.object.key);
    if (arrived) imports.push(arrived);
    else
      logger.warn('uploaded object ignored: no pending upload, or past its deadline', { key: s3.object.key });
  }
  return imports;
}

/** A record that throws is reported as a batch item failure: SQS retries it alone, then moves it to the DLQ. */
async function importRecord(record: SQSRecord): Promise<void> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  for (const message of await importsOf(JSON.parse(record.body))) {
    const outcome = await runImport(message);
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
