import { DcParams, Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { IMPORT_FAILURE_CODES, routesEndpoint } from '../schemas';

const IdChanges = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.withMeta(z.array(z.string()), {
    description: 'still on the route, with other fields than before',
  }),
});

/** The changes of a revision, as ROUTE_UPDATED carries them when they fit. */
const RevisionChanges = z.object({ waypoints: IdChanges, invoices: IdChanges, items: IdChanges });

export const getImportStatus = routesEndpoint('GET /dcs/{dc_id}/routes/import-status/{txid}', {
  operationId: 'getImportStatus',
  module: import.meta.url,
  summary:
    'Poll a route import or revision: 202 while pending, 200 once done (a revision with its changes), 400 with the code it failed with',
  request: { params: z.extend(DcParams, { txid: Id }) },
  responses: {
    200: {
      description: 'imported',
      data: z.object({
        txid: z.string(),
        status: z.literal('SUCCEEDED'),
        route_id: z.string(),
        changes: z.withMeta(z.optional(RevisionChanges), {
          description: 'a revision’s (PUT .../revision) changes, every id; absent for an import',
        }),
      }),
    },
    202: {
      description: 'still pending; poll again',
      data: z.object({ txid: z.string(), status: z.literal('PENDING') }),
    },
  },
  // An upload's body is checked by the worker: its 1004/1005/1006 come through here, as do 3015 and an
  // abandoned import's 3016; and a revision's refusals (3003, 3011, 3012, 3100, 3101, 3107) and lost rollback
  // (3103).
  errorCodes: [
    ...IMPORT_FAILURE_CODES,
    3004,
    1004,
    1005,
    3015,
    3016,
    3003,
    3011,
    3012,
    3100,
    3101,
    3103,
    3107,
  ],
  // A failed import is answered 400 whatever its code: an upload over the size limit too, a revised route
  // deleted meanwhile.
  errorStatuses: { 1004: 400, 3003: 400 },
});
