import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { DriverLocation, DriverParams, TAG } from '../schemas';

export const getDriverLocation = defineEndpoint({
  operationId: 'getDriverLocation',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/location',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Read a driver’s latest location',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: { 200: { description: 'latest location', data: z.object({ driver_location: DriverLocation }) } },
  errorCodes: [1003],
});
