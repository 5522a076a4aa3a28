import { Id, ReportedTimestamp } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

/** The driver app's API (docs/api.md §2): `Authorization: Bearer <login_token>`; the token names DC and driver. */
export const TAG = 'Driver app';

export const RouteParams = z.object({ route_id: Id });

export const TimestampBody = z.withMeta(z.object({ timestamp: ReportedTimestamp }), {
  id: 'DriverActionTimestamp',
});

/**
 * The driver app's rows: a driver token's and about one of its routes unless the row says otherwise. Each
 * writes the table: every sign-in may record a failure (functions/domain/driver-auth.ts).
 */
export const driverAppEndpoint = endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams },
});

/** Rows that move one of the driver's routes on at the time the app reports, and answer the route. */
export const driverRouteStepEndpoint = endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
});
