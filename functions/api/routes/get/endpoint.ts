import { RouteData, routesEndpoint } from '../schemas';

export const getRoute = routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}', {
  operationId: 'getRoute',
  module: import.meta.url,
  summary: 'Read a route',
  responses: { 200: { description: 'the route', data: RouteData } },
});
