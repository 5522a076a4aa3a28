import { alsoAs } from '../../define';
import { routeChangeEndpoint } from '../schemas';

export const deactivateRoute = /* @__PURE__ */ routeChangeEndpoint(
  'PATCH /dcs/{dc_id}/routes/{route_id}/deactivate',
  {
    operationId: 'deactivateRoute',
    module: import.meta.url,
    summary: 'Deactivate a route that has not started',
  },
);

/** The same endpoint under PUT (one Lambda). */
export const deactivateRoutePut = /* @__PURE__ */ alsoAs(deactivateRoute, 'PUT');
