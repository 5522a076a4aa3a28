import * as z from 'zod';
import { EpochMillis } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { RouteParams, TAG } from '../schemas';

export const getCompletionTime = defineEndpoint({
  operationId: 'getCompletionTime',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/completion-time',
  auth: 'apiKey',
  module: import.meta.url,
  summary:
    'When the route ends: ESTIMATED from the latest ETAs, ACTUAL once the last waypoint is done, FINALIZED once finished',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams },
  responses: {
    200: {
      description: 'the completion time',
      data: z
        .object({ type: z.enum(['ESTIMATED', 'ACTUAL', 'FINALIZED']), timestamp: EpochMillis })
        .meta({ id: 'CompletionTime' }),
    },
  },
  errorCodes: [3003],
});
