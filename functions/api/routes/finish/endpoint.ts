import { alsoAs } from '../../define';
import { OptionalTimestampBody, RouteParams, routeChangeEndpoint } from '../schemas';

export const finishRoute = /* @__PURE__ */ routeChangeEndpoint(
  'PATCH /dcs/{dc_id}/routes/{route_id}/finish',
  {
    operationId: 'finishRoute',
    module: import.meta.url,
    summary: 'Finish an active or started route; ROUTE_FINISHED',
    request: { params: RouteParams, body: OptionalTimestampBody },
  },
);

/** The same endpoint under PUT (one Lambda). */
export const finishRoutePut = /* @__PURE__ */ alsoAs(finishRoute, 'PUT');
