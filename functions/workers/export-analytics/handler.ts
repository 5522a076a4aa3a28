import { runExport } from '../../domain/analytics-export';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { exportAnalytics } from './consumer';

/** A new file every this many rows (1,000,000, docs/api.md §9; tests make it small). */
const rowsPerFile = () => config().analyticsRowsPerFile;

export const handler = sqsHandler(exportAnalytics, {
  logKeys: ({ account_id, txid }) => ({ account_id, txid }),
  handle: async (message, { receiveCount }) => {
    const outcome = await runExport(message, { rowsPerFile: rowsPerFile() });
    logger.info('analytics export processed', { txid: message.txid, outcome, receiveCount });
  },
});
