import type { SQSRecord } from 'aws-lambda';
import { type ImportMessage, readImportQueueMessage } from '../../domain/import-messages';
import { abandonDeadLetteredImport, deadLetteredUpload } from '../../domain/route-import';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

/** The imports a dead-lettered message named: the queued one, or those of the pending uploads it reports. */
async function importsOf(body: unknown): Promise<ImportMessage[]> {
  const message = readImportQueueMessage(body);
  if (message.kind === 's3TestEvent') return [];
  if (message.kind === 'import') return [message.import];
  const imports = await Promise.all(message.uploads.map(deadLetteredUpload));
  return imports.filter((upload) => upload !== undefined);
}

/**
 * A message the imports queue gave up ends its import (3016) and releases its ids; the DLQ alarm has paged
 * (it counts the messages received here). A message of no known shape throws: it stays in the DLQ, received
 * again every visibility timeout (each time paging again) until an operator deletes it.
 */
async function endRecord(record: SQSRecord): Promise<void> {
  for (const message of await importsOf(JSON.parse(record.body))) {
    const outcome = await abandonDeadLetteredImport(message);
    if (outcome === 'FAILED') countMetric('ImportsFailed');
    logger.error('import dead-lettered: ended', { txid: message.txid, outcome });
  }
}

export const handler = sqsHandler({
  logKeys: (record) => {
    const { account_id, dc_id, txid } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, dc_id, txid };
  },
  handle: endRecord,
});
