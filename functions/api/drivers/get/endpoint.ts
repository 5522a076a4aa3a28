import { defineEndpoint } from '../../define';
import { DriverData, DriverParams, TAG } from '../schemas';

export const getDriver = defineEndpoint({
  operationId: 'getDriver',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Read a driver',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: { 200: { description: 'the driver', data: DriverData } },
  errorCodes: [1003],
});
