import { EmptyData, Location, ReportedTimestamp } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { driverAppEndpoint } from '../schemas';

export const reportDriverLocation = /* @__PURE__ */ driverAppEndpoint('POST /driver/location', {
  operationId: 'reportDriverLocation',
  module: import.meta.url,
  // Its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
  linksToApi: true,
  // The location write is conditional on the driver item holding the caller's token (see driver-auth).
  driverTokenVerifiedBy: 'write',
  summary: 'Report where the driver is (kept as latest unless a newer one is stored; traced for analytics)',
  request: {
    body: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.object({ timestamp: ReportedTimestamp, location: Location }),
      { id: 'LocationPing' },
    ),
  },
  responses: import.meta.responseSchemas !== false && ok('recorded', EmptyData),
});
