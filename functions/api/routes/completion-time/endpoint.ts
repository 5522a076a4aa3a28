import { EpochMillis } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { routesEndpoint } from '../schemas';

export const getCompletionTime = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/completion-time',
  {
    operationId: 'getCompletionTime',
    module: import.meta.url,
    summary:
      'When the route ends: ESTIMATED from the latest ETAs, ACTUAL once the last waypoint is done, FINALIZED once finished',
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'the completion time',
        z.withMeta(
          /* @__PURE__ */ z.object({
            type: /* @__PURE__ */ z.enum(['ESTIMATED', 'ACTUAL', 'FINALIZED']),
            timestamp: EpochMillis,
          }),
          { id: 'CompletionTime' },
        ),
      ),
  },
);
