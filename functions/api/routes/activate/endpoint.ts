import { alsoAs } from '../../define';
import { routeChangeEndpoint } from '../schemas';

export const activateRoute = /* @__PURE__ */ routeChangeEndpoint(
  'PATCH /dcs/{dc_id}/routes/{route_id}/activate',
  {
    operationId: 'activateRoute',
    module: import.meta.url,
    summary: 'Activate a route (it shows among its driver’s active routes)',
  },
);

/** The same endpoint under PUT (one Lambda). */
export const activateRoutePut = /* @__PURE__ */ alsoAs(activateRoute, 'PUT');
