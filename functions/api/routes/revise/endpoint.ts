import * as channels from '../../../models/channels';
import { ImportRouteBody } from '../../../models/import-model';
import { IMPORT_PAYLOADS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';
import { IMPORT_FAILURE_CODES, RouteParams, routesEndpoint } from '../schemas';

export const reviseRoute = routesEndpoint('PUT /dcs/{dc_id}/routes/{route_id}/revision', {
  operationId: 'reviseRoute',
  module: import.meta.url,
  summary:
    'Send the new version of an imported route (asynchronous: poll the import status with the txid, which answers what changed); ROUTE_UPDATED, or ROUTE_IMPORT_FAILED when refused',
  access: {
    table: 'readWrite',
    bucket: 'write',
    bucketKeyPrefixes: [IMPORT_PAYLOADS_PREFIX],
    sendTo: [channels.imports, channels.importDeadlines],
  },
  // A revision rewrites up to a whole route; the import worker takes five at a time.
  throttling: { rateLimit: 10, burstLimit: 20 },
  request: { params: RouteParams, body: ImportRouteBody },
  responses: {
    202: {
      description: 'accepted; poll the import status with the txid',
      data: z.object({ txid: z.string() }),
    },
  },
  errorCodes: [3003, 3012, ...IMPORT_FAILURE_CODES.filter((code) => code !== 3005)],
});
