import { checkImportDeadline } from '../../domain/import-deadline-check';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { endOverdueImports } from './consumer';

/**
 * What the import and upload POSTs queue, and this consumer queues again until it is due. A message that
 * throws is retried alone after the visibility timeout; its check is safe to repeat.
 */
export const handler = sqsHandler(endOverdueImports, {
  logKeys: ({ account_id, dc_id, txid }) => ({ account_id, dc_id, txid }),
  handle: async (message) => {
    const outcome = await checkImportDeadline(message);
    if (outcome === 'FAILED') {
      countMetric('ImportsFailed');
      logger.warn('import ended at its deadline', { txid: message.txid });
    }
  },
});
