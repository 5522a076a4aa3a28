import * as z from 'zod';
import { Id } from '../../../models/common';
import { alsoAs, defineEndpoint } from '../../define';
import { changeRoute, RouteParams } from '../schemas';

export const assignVehicle = defineEndpoint({
  ...changeRoute(
    import.meta.url,
    'assignVehicle',
    'vehicle-assignment',

    'Assign a vehicle to a route',
  ),
  request: { params: RouteParams, body: z.object({ vehicle_id: Id }).meta({ id: 'VehicleAssignment' }) },
});

/** The same endpoint under PUT (one Lambda). */
export const assignVehiclePut = alsoAs(assignVehicle, 'PUT');
