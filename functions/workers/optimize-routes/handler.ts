import { runOptimization } from '../../domain/route-optimization';
import * as channels from '../../models/channels';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { optimizeRoutes } from './consumer';

export const handler = sqsHandler(optimizeRoutes, {
  logKeys: ({ account_id, route_id, optimization_id }) => ({ account_id, route_id, optimization_id }),
  handle: async (message, { receiveCount }) => {
    const lastReceive = receiveCount >= channels.optimizations.maxReceiveCount;
    const outcome = await runOptimization(message, { lastReceive });
    logger.info('optimization processed', {
      optimization_id: message.optimization_id,
      outcome,
      receiveCount,
    });
  },
});
