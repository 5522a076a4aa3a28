import { EpochMillis } from '../../../models/common';
import * as z from '../../../shared/zod';
import { routesEndpoint } from '../schemas';

export const getCompletionTime = routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/completion-time', {
  operationId: 'getCompletionTime',
  module: import.meta.url,
  summary:
    'When the route ends: ESTIMATED from the latest ETAs, ACTUAL once the last waypoint is done, FINALIZED once finished',
  responses: {
    200: {
      description: 'the completion time',
      data: z.withMeta(
        z.object({ type: z.enum(['ESTIMATED', 'ACTUAL', 'FINALIZED']), timestamp: EpochMillis }),
        { id: 'CompletionTime' },
      ),
    },
  },
});
