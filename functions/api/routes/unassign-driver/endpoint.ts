import { routeChangeEndpoint } from '../schemas';

export const unassignDriver = /* @__PURE__ */ routeChangeEndpoint(
  'DELETE /dcs/{dc_id}/routes/{route_id}/driver-assignment',
  {
    operationId: 'unassignDriver',
    module: import.meta.url,
    summary: 'Remove the driver from a route that has not started',
  },
);
