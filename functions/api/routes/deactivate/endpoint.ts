import { alsoAs } from '../../define';
import { routeChangeEndpoint } from '../schemas';

export const deactivateRoute = routeChangeEndpoint('PATCH /dcs/{dc_id}/routes/{route_id}/deactivate', {
  operationId: 'deactivateRoute',
  module: import.meta.url,
  summary: 'Deactivate a route that has not started',
});

/** The same endpoint under PUT (one Lambda). */
export const deactivateRoutePut = alsoAs(deactivateRoute, 'PUT');
