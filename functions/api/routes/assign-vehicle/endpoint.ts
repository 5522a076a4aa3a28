import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { alsoAs } from '../../define';
import { RouteParams, routeChangeEndpoint } from '../schemas';

export const assignVehicle = /* @__PURE__ */ routeChangeEndpoint(
  'PATCH /dcs/{dc_id}/routes/{route_id}/vehicle-assignment',
  {
    operationId: 'assignVehicle',
    module: import.meta.url,
    summary: 'Assign a vehicle to a route',
    request: {
      params: RouteParams,
      body: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.object({ vehicle_id: Id }), {
        id: 'VehicleAssignment',
      }),
    },
  },
);

/** The same endpoint under PUT (one Lambda). */
export const assignVehiclePut = /* @__PURE__ */ alsoAs(assignVehicle, 'PUT');
