import { arrivedUpload, pendingImportRecord, runImport } from '../../domain/route-import';
import { runRevision } from '../../domain/route-revisions';
import { importedPinItems, revisedPinItems } from '../../domain/stop-pins';
import type { ImportMessage, ImportQueueMessage } from '../../models/channels';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { importRoutes } from './consumer';

/** The imports a message starts: the queued one, or those of the uploads it reports (none once expired). */
async function importsOf(message: ImportQueueMessage): Promise<ImportMessage[]> {
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

/** Runs the import or revision `imported` names, unless it has ended (a redelivery: ALREADY_FINISHED). */
async function runPending(imported: ImportMessage, runEndsBy: number) {
  const record = await pendingImportRecord(imported);
  if (!record) return 'ALREADY_FINISHED';
  // This function draws the PINs of the stops that require one: the only import function that may seal codes.
  return imported.revision
    ? runRevision(imported, record, runEndsBy, { changed: revisedPinItems })
    : runImport(record, runEndsBy, { drawn: importedPinItems });
}

/** A message that throws is reported as a batch item failure: SQS retries it alone, then moves it to the DLQ. */
export const handler = sqsHandler(importRoutes, {
  // An S3 notification's ids are in its object key, which the log line of its import names.
  logKeys: (message) => (message.kind === 'import' ? importLogKeys(message.import) : {}),
  handle: async (message, { receiveCount, context }) => {
    // Lambda stops the invocation then at the latest: no import is started that could pass its deadline.
    const runEndsBy = Date.now() + context.getRemainingTimeInMillis();
    for (const imported of await importsOf(message)) {
      const outcome = await runPending(imported, runEndsBy);
      // Counted once per import: a redelivery of a finished one is ALREADY_FINISHED.
      if (outcome === 'SUCCEEDED') countMetric('ImportsSucceeded');
      if (outcome === 'FAILED') countMetric('ImportsFailed');
      logger.info('import processed', { txid: imported.txid, outcome, receiveCount });
    }
  },
});

const importLogKeys = ({ account_id, dc_id, txid }: ImportMessage) => ({ account_id, dc_id, txid });
