import { ok } from '../../define';
import { ROUTE_START, RouteData } from '../../routes/schemas';
import { driverRouteStepEndpoint } from '../schemas';

export const startDriverRoute = /* @__PURE__ */ driverRouteStepEndpoint(
  'POST /driver/routes/{route_id}/start',
  {
    operationId: 'startDriverRoute',
    module: import.meta.url,
    ...ROUTE_START,
    summary: 'Start one of the driver’s active routes; ROUTE_STARTED',
    responses: import.meta.responseSchemas !== false && ok('the started route', RouteData),
  },
);
