import { defineEndpoint } from '../../define';
import { RouteData, RouteParams, TAG } from '../schemas';

export const getRoute = defineEndpoint({
  operationId: 'getRoute',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Read a route',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams },
  responses: { 200: { description: 'the route', data: RouteData } },
  errorCodes: [3003],
});
