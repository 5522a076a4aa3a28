import * as z from 'zod';
import { quote } from '../shared/quote';
import {
  EmptyData,
  FULL_PAGES,
  Id,
  Label,
  Location,
  NextToken,
  PAGE_BYTES_NOTE,
  pagedQuery,
  ReportedTimestamp,
} from './common';
import { defineEndpoint } from './define';
import { AccountingRecord, Attempt, FailureReason, InvoiceStatus, Route, Waypoint } from './routes';

/** The driver app's API (DESIGN §3): `Authorization: Bearer <login_token>`; the token names DC and driver. */
const TAG = 'Driver app';
const RouteParams = z.object({ route_id: Id });
const TimestampBody = z.object({ timestamp: ReportedTimestamp }).meta({ id: 'DriverActionTimestamp' });
const RouteData = z.object({ route: Route });

/** At most this many items get their own outcome in one attempt (the rest take the attempt's status). */
export const MAX_ATTEMPT_ITEMS = 500;

/**
 * Most bytes the item ids and reasons an attempt lists may have together (UTF-8, as JSON writes them). The
 * attempt is stored as one item, which DynamoDB caps at 400 KB: 500 items with long ids and reasons in a
 * non-Latin script would pass that, so the request is refused instead of failing when written.
 */
export const MAX_ATTEMPT_ITEM_BYTES = 256 * 1024;

const jsonBytesOf = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

export const AttemptBody = z
  .object({
    id: Id.meta({ description: 'chosen by the app; sending the same id again is harmless' }),
    timestamp: ReportedTimestamp,
    status: z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
    reason: FailureReason.optional().meta({
      description: 'required when FAILED; also the reason of the items it fails without one of their own',
    }),
    location: Location.optional(),
    items: z
      .array(z.object({ id: Id, status: z.enum(['SUCCESSFUL', 'FAILED']), reason: FailureReason.optional() }))
      .max(MAX_ATTEMPT_ITEMS)
      .optional()
      .meta({
        description: 'items with their own outcome; the others take the attempt’s (VISIT_LATER: none)',
      }),
  })
  .superRefine((attempt, context) => {
    if (attempt.status === 'FAILED' && !attempt.reason) {
      context.addIssue({ code: 'custom', path: ['reason'], message: 'is required when status is FAILED' });
    }
    const seen = new Set<string>();
    let itemBytes = 0;
    attempt.items?.forEach((item, index) => {
      itemBytes +=
        jsonBytesOf(item.id) +
        (item.reason ? jsonBytesOf(item.reason.code) + jsonBytesOf(item.reason.message) : 0);
      if (seen.has(item.id)) {
        context.addIssue({
          code: 'custom',
          path: ['items', index, 'id'],
          message: `${quote(item.id)} is listed twice`,
        });
      }
      seen.add(item.id);
      if (item.status === 'FAILED' && !item.reason && !attempt.reason) {
        context.addIssue({
          code: 'custom',
          path: ['items', index, 'reason'],
          message: 'is required when status is FAILED and the attempt has no reason',
        });
      }
    });
    if (itemBytes > MAX_ATTEMPT_ITEM_BYTES) {
      context.addIssue({
        code: 'custom',
        path: ['items'],
        message: `the listed items' ids and reasons may have at most ${MAX_ATTEMPT_ITEM_BYTES} bytes together (UTF-8, as JSON writes them); these have ${itemBytes}`,
      });
    }
  })
  .meta({ id: 'AttemptRequest' });

export const DriverRoute = Route.extend({
  waypoints: z.array(Waypoint.extend({ invoices: z.array(InvoiceStatus) })),
}).meta({ id: 'DriverRoute', description: 'a route with its waypoints, invoices and item statuses' });

/**
 * Waypoints per page of the driver's routes. One route of 2,000 worst-case waypoints is 10 MB without its
 * invoices, so pages count waypoints (with their invoices and items), and the byte budget ends a page of
 * large waypoints early.
 */
export const DRIVER_ROUTE_WAYPOINTS_PAGE = FULL_PAGES;

export const listDriverRoutes = defineEndpoint({
  operationId: 'listDriverRoutes',
  method: 'GET',
  path: '/driver/routes',
  auth: 'driverToken',
  handler: 'driver-app/routes',
  summary: 'The driver’s active and started routes in full, by planned start, a page of waypoints at a time',
  description:
    '`limit` counts waypoints (each with its invoices and items). A route cut by a page boundary continues on the next page under the same route id, holding the waypoints that follow. A `next_token` stops working when its route leaves the list (finished or reassigned): start again without one. ' +
    PAGE_BYTES_NOTE,
  tag: TAG,
  access: { table: 'read' },
  request: { query: pagedQuery(DRIVER_ROUTE_WAYPOINTS_PAGE) },
  responses: {
    200: {
      description: 'the routes',
      data: z.object({ routes: z.array(DriverRoute), next_token: NextToken }),
    },
  },
  errorCodes: [],
});

export const startDriverRoute = defineEndpoint({
  operationId: 'startDriverRoute',
  method: 'POST',
  path: '/driver/routes/{route_id}/start',
  auth: 'driverToken',
  handler: 'driver-app/start',
  summary: 'Start one of the driver’s active routes; ROUTE_STARTED',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
  responses: { 200: { description: 'the started route', data: RouteData } },
  errorCodes: [3003, 3010, 3011, 3012],
});

export const recordDriverAttempt = defineEndpoint({
  operationId: 'recordDriverAttempt',
  method: 'POST',
  path: '/driver/routes/{route_id}/waypoints/{waypoint_id}/attempts',
  auth: 'driverToken',
  handler: 'driver-app/attempt',
  summary: 'Record a visit of a waypoint with its items’ outcomes; WAYPOINT_STATUS_CHANGED, then new ETAs',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams.extend({ waypoint_id: Id }), body: AttemptBody },
  responses: {
    200: {
      description: 'the attempt as recorded (the first one, for a repeated id)',
      data: z.object({ attempt: Attempt }),
    },
  },
  errorCodes: [3003, 3011, 3012, 3013],
});

export const addDriverAccountingRecord = defineEndpoint({
  operationId: 'addDriverAccountingRecord',
  method: 'POST',
  path: '/driver/routes/{route_id}/accounting',
  auth: 'driverToken',
  handler: 'driver-app/accounting',
  summary: 'Record cash received on one of the driver’s routes',
  tag: TAG,
  access: { table: 'readWrite' },
  request: {
    params: RouteParams,
    body: z
      .object({
        id: Id.meta({ description: 'unique in the account' }),
        cash_received_cents: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        cash_container_id: Label(128, {
          min: 1,
          notBlank: true,
          description: 'a label of the container the cash went into (`bag A`)',
        }),
      })
      .meta({ id: 'AccountingRecordRequest' }),
  },
  responses: { 200: { description: 'the record', data: z.object({ record: AccountingRecord }) } },
  errorCodes: [3003, 3011, 3012, 3014],
});

export const reportDriverLocation = defineEndpoint({
  operationId: 'reportDriverLocation',
  method: 'POST',
  path: '/driver/location',
  auth: 'driverToken',
  handler: 'driver-app/location',
  // The location write is conditional on the driver item holding the caller's token (see driver-auth).
  driverTokenVerifiedBy: 'write',
  summary: 'Report where the driver is (kept as latest unless a newer one is stored; traced for analytics)',
  tag: TAG,
  access: { table: 'readWrite' },
  request: {
    body: z.object({ timestamp: ReportedTimestamp, location: Location }).meta({ id: 'LocationPing' }),
  },
  responses: { 200: { description: 'recorded', data: EmptyData } },
  errorCodes: [],
});

export const finishDriverRoute = defineEndpoint({
  operationId: 'finishDriverRoute',
  method: 'POST',
  path: '/driver/routes/{route_id}/finish',
  auth: 'driverToken',
  handler: 'driver-app/finish',
  summary: 'Finish one of the driver’s routes; ROUTE_FINISHED',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
  responses: { 200: { description: 'the finished route', data: RouteData } },
  errorCodes: [3003, 3011, 3012],
});

export const driverAppEndpoints = [
  listDriverRoutes,
  startDriverRoute,
  recordDriverAttempt,
  addDriverAccountingRecord,
  reportDriverLocation,
  finishDriverRoute,
];
