import { abandonDeadLetteredImport, deadLetteredUpload } from '../../domain/route-import';
import { abandonDeadLetteredRevision } from '../../domain/route-revisions';
import type { ImportMessage, ImportQueueMessage } from '../../models/channels';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { endDeadLetteredImports } from './consumer';

/** The imports a dead-lettered message named: the queued one, or those of the pending uploads it reports. */
async function importsOf(message: ImportQueueMessage): Promise<ImportMessage[]> {
  if (message.kind === 's3TestEvent') return [];
  if (message.kind === 'import') return [message.import];
  const imports = await Promise.all(message.uploads.map(deadLetteredUpload));
  return imports.filter((upload) => upload !== undefined);
}

/**
 * A message the imports queue gave up ends its import (3016) and releases its ids; the DLQ alarm has paged
 * (it counts the messages received here). A message of no known shape is a batch item failure: it stays in
 * the DLQ, received again every visibility timeout (each time paging again) until an operator deletes it.
 */
export const handler = sqsHandler(endDeadLetteredImports, {
  logKeys: (message) => {
    if (message.kind !== 'import') return {};
    const { account_id, dc_id, txid } = message.import;
    return { account_id, dc_id, txid };
  },
  handle: async (message) => {
    for (const imported of await importsOf(message)) {
      const outcome = imported.revision
        ? await abandonDeadLetteredRevision(imported)
        : await abandonDeadLetteredImport(imported);
      if (outcome === 'FAILED') countMetric('ImportsFailed');
      logger.error('import dead-lettered: ended', { txid: imported.txid, outcome });
    }
  },
});
