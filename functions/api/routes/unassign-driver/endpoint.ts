import { routeChangeEndpoint } from '../schemas';

export const unassignDriver = routeChangeEndpoint(
  'unassignDriver',
  'DELETE /dcs/{dc_id}/routes/{route_id}/driver-assignment',
  {
    module: import.meta.url,
    summary: 'Remove the driver from a route that has not started',
  },
);
