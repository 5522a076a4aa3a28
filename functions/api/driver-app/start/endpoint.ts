import { RouteData } from '../../routes/schemas';
import { driverRouteStepEndpoint } from '../schemas';

export const startDriverRoute = driverRouteStepEndpoint('POST /driver/routes/{route_id}/start', {
  operationId: 'startDriverRoute',
  module: import.meta.url,
  // Its events give the waypoints' tracking links (ROUTE_STARTED, ROUTE_ETAS_CHANGED).
  linksToApi: true,
  // ROUTE_STARTED carries the codes of the stops that require a PIN for the ERP; the answer never does.
  access: { table: 'readWrite', stopPins: 'decrypt' },
  summary: 'Start one of the driver’s active routes; ROUTE_STARTED',
  responses: { 200: { description: 'the started route', data: RouteData } },
  errorCodes: [3003, 3010, 3011, 3012, 3102],
});
