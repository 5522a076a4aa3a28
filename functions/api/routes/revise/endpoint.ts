import { ImportRouteBody } from '../../../models/import-model';
import { routeBodyEndpoint } from '../import-schemas';
import { IMPORT_FAILURE_CODES, RouteParams } from '../schemas';

export const reviseRoute = /* @__PURE__ */ routeBodyEndpoint('PUT /dcs/{dc_id}/routes/{route_id}/revision', {
  operationId: 'reviseRoute',
  module: import.meta.url,
  summary:
    'Send the new version of an imported route (asynchronous: poll the import status with the txid, which answers what changed); ROUTE_UPDATED, or ROUTE_IMPORT_FAILED when refused',
  request: { params: RouteParams, body: ImportRouteBody },
  errorCodes: [3003, 3012, .../* @__PURE__ */ IMPORT_FAILURE_CODES.filter((code) => code !== 3005)],
});
