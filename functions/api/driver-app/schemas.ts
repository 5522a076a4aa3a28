import { Id, ReportedTimestamp } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/** The driver app's API (docs/api.md §2): `Authorization: Bearer <login_token>`; the token names DC and driver. */
export const TAG = 'Driver app';

export const RouteParams = /* @__PURE__ */ z.object({ route_id: Id });

export const TimestampBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({ timestamp: ReportedTimestamp }),
  {
    id: 'DriverActionTimestamp',
  },
);

/**
 * The driver app's rows: a driver token's and about one of its routes unless the row says otherwise. Each
 * writes the table: every sign-in may record a failure (functions/domain/driver-auth.ts).
 */
export const driverAppEndpoint = /* @__PURE__ */ endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams },
});

/** Rows that move one of the driver's routes on at the time the app reports, and answer the route. */
export const driverRouteStepEndpoint = /* @__PURE__ */ endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
});
