import { EmptyData } from '../../../models/common';
import { ok } from '../../define';
import { driverChangeEndpoint } from '../schemas';

export const deleteDriver = /* @__PURE__ */ driverChangeEndpoint('DELETE /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'deleteDriver',
  module: import.meta.url,
  summary: 'Delete a driver (refused while it has active routes); its login token stops working at once',
  responses: import.meta.responseSchemas !== false && ok('deleted', EmptyData),
  errorCodes: [1003, 2001],
});
