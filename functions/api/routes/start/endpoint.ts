import { alsoAs } from '../../define';
import { OptionalTimestampBody, ROUTE_START, RouteParams, routeChangeEndpoint } from '../schemas';

export const startRoute = /* @__PURE__ */ routeChangeEndpoint('PATCH /dcs/{dc_id}/routes/{route_id}/start', {
  operationId: 'startRoute',
  module: import.meta.url,
  ...ROUTE_START,
  summary: 'Start an active route that has a driver (as its driver would); ROUTE_STARTED',
  request: { params: RouteParams, body: OptionalTimestampBody },
});

/** The same endpoint under PUT (one Lambda). */
export const startRoutePut = /* @__PURE__ */ alsoAs(startRoute, 'PUT');
