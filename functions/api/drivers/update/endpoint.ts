import { defineEndpoint } from '../../define';
import { DriverData, DriverParams, TAG, UpdateDriverBody } from '../schemas';

export const updateDriver = defineEndpoint({
  operationId: 'updateDriver',
  method: 'PATCH',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Rename a driver or change its login token',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams, body: UpdateDriverBody },
  responses: { 200: { description: 'the updated driver', data: DriverData } },
  errorCodes: [1003, 2002],
});
