import { DcParams, Id } from '../../../models/common';
import * as z from '../../../shared/zod';

import { IMPORT_FAILURE_CODES, routesEndpoint } from '../schemas';

const IdChanges = /* @__PURE__ */ z.object({
  added: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
  removed: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
  changed: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(/* @__PURE__ */ z.string()), {
    description: 'still on the route, with other fields than before',
  }),
});

/** The changes of a revision, as ROUTE_UPDATED carries them when they fit. */
const RevisionChanges = /* @__PURE__ */ z.object({
  waypoints: IdChanges,
  invoices: IdChanges,
  items: IdChanges,
});

export const getImportStatus = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/import-status/{txid}',
  {
    operationId: 'getImportStatus',
    module: import.meta.url,
    summary:
      'Poll a route import or revision: 202 while pending, 200 once done (a revision with its changes), 400 with the code it failed with',
    request: { params: /* @__PURE__ */ z.extend(DcParams, { txid: Id }) },
    responses: import.meta.responseSchemas !== false && {
      200: {
        description: 'imported',
        data: /* @__PURE__ */ z.object({
          txid: /* @__PURE__ */ z.string(),
          status: /* @__PURE__ */ z.literal('SUCCEEDED'),
          route_id: /* @__PURE__ */ z.string(),
          changes: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(RevisionChanges), {
            description: 'a revision’s (PUT .../revision) changes, every id; absent for an import',
          }),
        }),
      },
      202: {
        description: 'still pending; poll again',
        data: /* @__PURE__ */ z.object({
          txid: /* @__PURE__ */ z.string(),
          status: /* @__PURE__ */ z.literal('PENDING'),
        }),
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
  },
);
