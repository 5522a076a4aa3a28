import { defineEndpoint } from '../../define';
import { RouteData, RouteParams, TAG, TimestampBody } from '../schemas';

export const finishDriverRoute = defineEndpoint({
  operationId: 'finishDriverRoute',
  method: 'POST',
  path: '/driver/routes/{route_id}/finish',
  auth: 'driverToken',
  module: import.meta.url,
  summary: 'Finish one of the driver’s routes; ROUTE_FINISHED',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
  responses: { 200: { description: 'the finished route', data: RouteData } },
  errorCodes: [3003, 3011, 3012],
});
