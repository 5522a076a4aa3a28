import type { SQSRecord } from 'aws-lambda';
import { readQueuedImport } from '../../domain/import-messages';
import { checkImportDeadline } from '../../domain/route-import';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

/** A record that throws is retried alone after the visibility timeout; its check is safe to repeat. */
async function checkRecord(record: SQSRecord): Promise<void> {
  // What the import and upload POSTs queue, and this consumer queues again until it is due.
  const message = readQueuedImport(JSON.parse(record.body));
  const outcome = await checkImportDeadline(message);
  if (outcome === 'FAILED') {
    countMetric('ImportsFailed');
    logger.warn('import ended at its deadline', { txid: message.txid });
  }
}

export const handler = sqsHandler({
  logKeys: (record) => {
    const { account_id, dc_id, txid } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, dc_id, txid };
  },
  handle: checkRecord,
});
