import { removeDeletedRoute } from '../../domain/routes';
import { config } from '../../shared/config';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { deleteRoutes } from './consumer';

/**
 * Rows one message removes before the rest is queued as a new message: well inside the worker's timeout even
 * when the route's partition is throttled (one partition takes ~1,000 writes a second). Tests make it small.
 */
const rowsPerMessage = () => config().routeDeletionRowsPerMessage;

/** A message that throws is retried alone after the visibility timeout; what it removed stays removed. */
export const handler = sqsHandler(deleteRoutes, {
  logKeys: ({ account_id, route_id }) => ({ account_id, route_id }),
  handle: async (message) => {
    const outcome = await removeDeletedRoute(message, { rowsPerMessage: rowsPerMessage() });
    logger.info('route deletion processed', { route_id: message.route_id, outcome });
  },
});
