import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { alsoAs } from '../../define';
import { RouteParams, routeChangeEndpoint } from '../schemas';

export const assignDriver = /* @__PURE__ */ routeChangeEndpoint(
  'PATCH /dcs/{dc_id}/routes/{route_id}/driver-assignment',
  {
    operationId: 'assignDriver',
    module: import.meta.url,
    summary: 'Assign a driver of the DC to a route that has not started',
    request: {
      params: RouteParams,
      body: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.object({ driver_id: Id }), {
        id: 'DriverAssignment',
      }),
    },
    errorCodes: [3003, 3010, 3011, 3012, 3102],
  },
);

/** The same endpoint under PUT (one Lambda). */
export const assignDriverPut = /* @__PURE__ */ alsoAs(assignDriver, 'PUT');
