import * as z from 'zod';
import { Id } from '../../../models/common';
import { alsoAs } from '../../define';
import { RouteParams, routeChangeEndpoint } from '../schemas';

export const assignVehicle = routeChangeEndpoint('PATCH /dcs/{dc_id}/routes/{route_id}/vehicle-assignment', {
  operationId: 'assignVehicle',
  module: import.meta.url,
  summary: 'Assign a vehicle to a route',
  request: { params: RouteParams, body: z.object({ vehicle_id: Id }).meta({ id: 'VehicleAssignment' }) },
});

/** The same endpoint under PUT (one Lambda). */
export const assignVehiclePut = alsoAs(assignVehicle, 'PUT');
