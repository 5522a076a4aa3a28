import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { alsoAs } from '../../define';
import { RouteParams, routeChangeEndpoint } from '../schemas';

export const assignDriver = routeChangeEndpoint('PATCH /dcs/{dc_id}/routes/{route_id}/driver-assignment', {
  operationId: 'assignDriver',
  module: import.meta.url,
  summary: 'Assign a driver of the DC to a route that has not started',
  request: { params: RouteParams, body: z.withMeta(z.object({ driver_id: Id }), { id: 'DriverAssignment' }) },
  errorCodes: [3003, 3010, 3011, 3012, 3102],
});

/** The same endpoint under PUT (one Lambda). */
export const assignDriverPut = alsoAs(assignDriver, 'PUT');
