import { defineEndpoint } from '../../define';
import { RouteData, RouteParams, TAG, TimestampBody } from '../schemas';

export const startDriverRoute = defineEndpoint({
  operationId: 'startDriverRoute',
  method: 'POST',
  path: '/driver/routes/{route_id}/start',
  auth: 'driverToken',
  module: import.meta.url,
  summary: 'Start one of the driver’s active routes; ROUTE_STARTED',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
  responses: { 200: { description: 'the started route', data: RouteData } },
  errorCodes: [3003, 3010, 3011, 3012],
});
