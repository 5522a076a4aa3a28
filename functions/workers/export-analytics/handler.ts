import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { runExport } from '../../domain/analytics-export';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

const ExportMessage = z.object({ account_id: z.string(), txid: z.string() });
/** A new file every this many rows (1,000,000, docs/api.md §9; tests make it small). */
const rowsPerFile = () => config().analyticsRowsPerFile;

async function exportRecord(record: SQSRecord): Promise<void> {
  const message = ExportMessage.parse(JSON.parse(record.body));
  const outcome = await runExport(message, { rowsPerFile: rowsPerFile() });
  logger.info('analytics export processed', {
    txid: message.txid,
    outcome,
    receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1'),
  });
}

export const handler = sqsHandler({
  logKeys: (record) => {
    const { account_id, txid } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, txid };
  },
  handle: exportRecord,
});
