import { EmptyData, Location, ReportedTimestamp } from '../../../models/common';
import * as z from '../../../shared/zod';
import { driverAppEndpoint } from '../schemas';

export const reportDriverLocation = driverAppEndpoint('POST /driver/location', {
  operationId: 'reportDriverLocation',
  module: import.meta.url,
  // Its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
  linksToApi: true,
  // The location write is conditional on the driver item holding the caller's token (see driver-auth).
  driverTokenVerifiedBy: 'write',
  summary: 'Report where the driver is (kept as latest unless a newer one is stored; traced for analytics)',
  request: {
    body: z.withMeta(z.object({ timestamp: ReportedTimestamp, location: Location }), { id: 'LocationPing' }),
  },
  responses: { 200: { description: 'recorded', data: EmptyData } },
});
