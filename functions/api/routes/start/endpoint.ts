import { alsoAs } from '../../define';
import { OptionalTimestampBody, RouteParams, routeChangeEndpoint } from '../schemas';

export const startRoute = routeChangeEndpoint('PATCH /dcs/{dc_id}/routes/{route_id}/start', {
  operationId: 'startRoute',
  module: import.meta.url,
  // Its events give the waypoints' tracking links (ROUTE_STARTED, ROUTE_ETAS_CHANGED).
  linksToApi: true,
  // ROUTE_STARTED carries the codes of the stops that require a PIN (domain/stop-pins.ts).
  access: { table: 'readWrite', stopPins: 'decrypt' },
  summary: 'Start an active route that has a driver (as its driver would); ROUTE_STARTED',
  request: { params: RouteParams, body: OptionalTimestampBody },
  errorCodes: [3003, 3010, 3011, 3012, 3102],
});

/** The same endpoint under PUT (one Lambda). */
export const startRoutePut = alsoAs(startRoute, 'PUT');
