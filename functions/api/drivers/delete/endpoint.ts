import { EmptyData } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { DriverParams, TAG } from '../schemas';

export const deleteDriver = defineEndpoint({
  operationId: 'deleteDriver',
  method: 'DELETE',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Delete a driver (refused while it has active routes); its login token stops working at once',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams },
  responses: { 200: { description: 'deleted', data: EmptyData } },
  errorCodes: [1003, 2001],
});
