import { RouteData, routesEndpoint } from '../schemas';

export const getRoute = routesEndpoint('getRoute', 'GET /dcs/{dc_id}/routes/{route_id}', {
  module: import.meta.url,
  summary: 'Read a route',
  responses: { 200: { description: 'the route', data: RouteData } },
  errorCodes: [3003],
});
