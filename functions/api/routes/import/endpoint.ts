import { DcParams } from '../../../models/common';
import { ImportRouteBody } from '../../../models/import-model';
import { routeBodyEndpoint } from '../import-schemas';
import { IMPORT_FAILURE_CODES } from '../schemas';

export const importRoute = /* @__PURE__ */ routeBodyEndpoint('POST /dcs/{dc_id}/invoiced-routes', {
  operationId: 'importRoute',
  module: import.meta.url,
  summary: 'Import an invoiced route (asynchronous: poll the import status with the txid)',
  request: { params: DcParams, body: ImportRouteBody },
  errorCodes: IMPORT_FAILURE_CODES,
});
