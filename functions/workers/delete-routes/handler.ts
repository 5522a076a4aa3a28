import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { removeDeletedRoute } from '../../domain/routes';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';

const DeletionMessage = z.object({ account_id: z.string(), route_id: z.string() });
/**
 * Rows one message removes before the rest is queued as a new message: well inside the worker's timeout even
 * when the route's partition is throttled (one partition takes ~1,000 writes a second). Tests make it small.
 */
const rowsPerMessage = () => config().routeDeletionRowsPerMessage;

/** A record that throws is retried alone after the visibility timeout; what it removed stays removed. */
async function deleteRecord(record: SQSRecord): Promise<void> {
  const message = DeletionMessage.parse(JSON.parse(record.body));
  const outcome = await removeDeletedRoute(message, { rowsPerMessage: rowsPerMessage() });
  logger.info('route deletion processed', { route_id: message.route_id, outcome });
}

export const handler = sqsHandler({
  logKeys: (record) => {
    const { account_id, route_id } = JSON.parse(record.body) as Record<string, string>;
    return { account_id, route_id };
  },
  handle: deleteRecord,
});
