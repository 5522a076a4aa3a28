import * as channels from '../../../models/channels';
import { DcParams } from '../../../models/common';
import { ImportRouteBody } from '../../../models/import-model';
import { IMPORT_PAYLOADS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';
import { IMPORT_FAILURE_CODES, routesEndpoint } from '../schemas';

export const importRoute = routesEndpoint('POST /dcs/{dc_id}/invoiced-routes', {
  operationId: 'importRoute',
  module: import.meta.url,
  summary: 'Import an invoiced route (asynchronous: poll the import status with the txid)',
  access: {
    table: 'readWrite',
    bucket: 'write',
    bucketKeyPrefixes: [IMPORT_PAYLOADS_PREFIX],
    sendTo: [channels.imports, channels.importDeadlines],
  },
  // An import writes up to ~100,000 items; the import worker takes five at a time.
  throttling: { rateLimit: 10, burstLimit: 20 },
  request: { params: DcParams, body: ImportRouteBody },
  responses: {
    202: {
      description: 'accepted; poll the import status with the txid',
      data: z.object({ txid: z.string() }),
    },
  },
  errorCodes: IMPORT_FAILURE_CODES,
});
