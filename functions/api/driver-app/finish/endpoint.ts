import { RouteData } from '../../routes/schemas';
import { driverRouteStepEndpoint } from '../schemas';

export const finishDriverRoute = driverRouteStepEndpoint('POST /driver/routes/{route_id}/finish', {
  operationId: 'finishDriverRoute',
  module: import.meta.url,
  summary: 'Finish one of the driver’s routes; ROUTE_FINISHED',
  responses: { 200: { description: 'the finished route', data: RouteData } },
  errorCodes: [3003, 3011, 3012, 3102],
});
