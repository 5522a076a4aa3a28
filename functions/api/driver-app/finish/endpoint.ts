import { ok } from '../../define';
import { RouteData } from '../../routes/schemas';
import { driverRouteStepEndpoint } from '../schemas';

export const finishDriverRoute = /* @__PURE__ */ driverRouteStepEndpoint(
  'POST /driver/routes/{route_id}/finish',
  {
    operationId: 'finishDriverRoute',
    module: import.meta.url,
    summary: 'Finish one of the driver’s routes; ROUTE_FINISHED',
    responses: import.meta.responseSchemas !== false && ok('the finished route', RouteData),
    errorCodes: [3003, 3011, 3012, 3102],
  },
);
