import { ok } from '../../define';
import { RouteData, routesEndpoint } from '../schemas';

export const getRoute = /* @__PURE__ */ routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}', {
  operationId: 'getRoute',
  module: import.meta.url,
  summary: 'Read a route',
  responses: import.meta.responseSchemas !== false && ok('the route', RouteData),
});
