import * as z from 'zod';
import { Id } from '../../../models/common';
import { alsoAs, defineEndpoint } from '../../define';
import { changeRoute, RouteParams } from '../schemas';

export const assignDriver = defineEndpoint({
  ...changeRoute(
    import.meta.url,
    'assignDriver',
    'driver-assignment',

    'Assign a driver of the DC to a route that has not started',
  ),
  request: { params: RouteParams, body: z.object({ driver_id: Id }).meta({ id: 'DriverAssignment' }) },
  errorCodes: [3003, 3010, 3011, 3012],
});

/** The same endpoint under PUT (one Lambda). */
export const assignDriverPut = alsoAs(assignDriver, 'PUT');
