import * as z from 'zod';
import { DcParams, Id } from '../../../models/common';
import { IMPORT_FAILURE_CODES, routesEndpoint } from '../schemas';

export const getImportStatus = routesEndpoint('GET /dcs/{dc_id}/routes/import-status/{txid}', {
  operationId: 'getImportStatus',
  module: import.meta.url,
  summary: 'Poll a route import: 202 while pending, 200 once imported, 400 with the code it failed with',
  request: { params: DcParams.extend({ txid: Id }) },
  responses: {
    200: {
      description: 'imported',
      data: z.object({ txid: z.string(), status: z.literal('SUCCEEDED'), route_id: z.string() }),
    },
    202: {
      description: 'still pending; poll again',
      data: z.object({ txid: z.string(), status: z.literal('PENDING') }),
    },
  },
  // An upload's body is checked by the worker: its 1004/1005/1006 come through here, as do 3015 and an
  // abandoned import's 3016.
  errorCodes: [...IMPORT_FAILURE_CODES, 3004, 1004, 1005, 3015, 3016],
  // A failed import is answered 400 whatever its code: an upload over the size limit too.
  errorStatuses: { 1004: 400 },
});
