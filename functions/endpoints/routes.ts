import * as z from 'zod';
import { IMPORT_UPLOADS_PREFIX } from '../shared/resources';
import {
  CalendarDate,
  DcParams,
  EpochMillis,
  FreeText,
  FULL_PAGES,
  Id,
  Label,
  Location,
  NextToken,
  PAGE_BYTES_NOTE,
  type PageSize,
  pagedQuery,
  ReportedTimestamp,
} from './common';
import { alsoAs, defineEndpoint } from './define';
import { ImportRouteBody } from './import-model';

const TAG = 'Routes';
const RouteParams = DcParams.extend({ route_id: Id });

export const Route = z
  .object({
    id: z.string(),
    name: z.string(),
    assigned_driver_id: z.string().nullable(),
    start_time: EpochMillis,
    start_warehouse_id: z.string().nullable(),
    end_warehouse_id: z.string().nullable(),
    vehicle_id: z.string().nullable(),
    version: z.number().int().meta({ description: 'bumped by every change' }),
    waypoint_ids: z.array(z.string()),
    is_active: z.boolean(),
    is_finalized: z.boolean(),
    started_timestamp: EpochMillis.nullable(),
    finalized_timestamp: EpochMillis.nullable(),
  })
  .meta({ id: 'Route' });

export const FailureReason = z
  .object({ code: Label(64, { min: 1 }), message: FreeText(500, { min: 1 }) })
  .meta({ id: 'FailureReason' });

export const Attempt = z
  .object({
    id: z.string(),
    timestamp: EpochMillis,
    status: z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
    reason: FailureReason.nullable(),
    location: Location.nullable(),
    items: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['SUCCESSFUL', 'FAILED']),
        reason: FailureReason.nullable(),
      }),
    ),
    driver_id: z.string(),
  })
  .meta({ id: 'Attempt', description: 'one visit of a waypoint, as the driver app reported it' });

export const Waypoint = z
  .object({
    id: z.string(),
    sequence: z.number().int().meta({ description: 'position in the route, from 0' }),
    customer_id: z.string().nullable(),
    name: z.string().nullable(),
    address: z.string().nullable(),
    location: Location,
    service_time_minutes: z.number().int(),
    time_windows: z.array(z.object({ start: EpochMillis, end: EpochMillis })),
    invoice_ids: z.array(z.string()),
    status: z
      .enum(['PENDING', 'SUCCESSFUL', 'FAILED', 'VISIT_LATER'])
      .meta({ description: 'the latest attempt’s status; PENDING before any' }),
    eta: EpochMillis.nullable().meta({
      description: 'when service is expected to start; null once the waypoint is done',
    }),
    attempts: z.array(Attempt).meta({ description: 'oldest first' }),
  })
  .meta({ id: 'Waypoint' });

const ItemStatus = z
  .object({
    status: z.enum(['SUCCESSFUL', 'FAILED']),
    timestamp: EpochMillis,
    reason: z
      .object({ code: z.string(), message: z.string() })
      .optional()
      .meta({ description: 'present when FAILED' }),
  })
  .nullable()
  .meta({ id: 'ItemStatus', description: 'null until the item has been attempted' });

export const InvoiceStatus = z
  .object({
    id: z.string(),
    payment_method: z.string().nullable(),
    invoice_name_attributes: z.array(z.object({ key: z.string(), value: z.string() })),
    items: z.array(
      z.object({
        id: z.string(),
        sku: z.string().nullable(),
        name: z.string().nullable(),
        quantity: z.number(),
        total_price_cents: z.number().int(),
        currency: z.string(),
        status: ItemStatus,
      }),
    ),
  })
  .meta({ id: 'InvoiceStatus' });

export const AccountingRecord = z
  .object({
    id: z.string(),
    driver_id: z.string(),
    cash_received_cents: z.number().int(),
    cash_container_id: z.string(),
  })
  .meta({ id: 'AccountingRecord' });

/**
 * Page sizes of the reads that grow with a route: full pages, which the byte budget ends earlier when the
 * rows are large (an invoice with 50 long name attributes, a route listing 2,000 waypoint ids).
 */
export const ROUTE_PAGE_SIZES = {
  /** I# rows: each invoice and each item is one. */
  invoiceRows: FULL_PAGES,
  waypoints: FULL_PAGES,
  /** 1,000 worst-case records (1.7 MB) stay within the byte budget: these pages never end early. */
  accountingRecords: FULL_PAGES,
  routesOfDate: FULL_PAGES,
} as const satisfies Record<string, PageSize>;

const RouteData = z.object({ route: Route });
const IMPORT_FAILURE_CODES = [3005, 3006, 3008, 3009, 3010];

export const importRoute = defineEndpoint({
  operationId: 'importRoute',
  method: 'POST',
  path: '/dcs/{dc_id}/invoiced-routes',
  auth: 'apiKey',
  handler: 'routes/import',
  summary: 'Import an invoiced route (asynchronous: poll the import status with the txid)',
  tag: TAG,
  access: { table: 'readWrite', bucket: 'write', sendTo: ['imports'] },
  // An import writes up to ~100,000 items; the import worker takes five at a time.
  throttling: { rateLimit: 10, burstLimit: 20 },
  request: { params: DcParams, body: ImportRouteBody },
  responses: {
    202: {
      description: 'accepted; poll the import status with the txid',
      data: z.object({ txid: z.string() }),
    },
  },
  errorCodes: IMPORT_FAILURE_CODES,
});

export const createImportUpload = defineEndpoint({
  operationId: 'createImportUpload',
  method: 'POST',
  path: '/dcs/{dc_id}/invoiced-routes/uploads',
  auth: 'apiKey',
  handler: 'routes/upload',
  summary:
    'Import a route too large for a request body (up to 100 MB): PUT the same {route} JSON to upload_url, then poll the import status with the txid',
  tag: TAG,
  // Only presigns PUTs of upload keys; the object's arrival queues the import (S3 event notification).
  access: { table: 'readWrite', signLinks: { access: 'write', keyPrefix: IMPORT_UPLOADS_PREFIX } },
  throttling: { rateLimit: 10, burstLimit: 20 },
  request: { params: DcParams },
  responses: {
    202: {
      description:
        'PUT the body to upload_url before upload_expiration_timestamp; poll the import status with the txid',
      data: z.object({
        txid: z.string(),
        upload_url: z.string().meta({ description: 'presigned S3 PUT link; anyone holding it can upload' }),
        upload_expiration_timestamp: EpochMillis.meta({ description: 'when upload_url stops working' }),
      }),
    },
  },
  errorCodes: [],
});

export const getImportStatus = defineEndpoint({
  operationId: 'getImportStatus',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/import-status/{txid}',
  auth: 'apiKey',
  handler: 'routes/import-status',
  summary: 'Poll a route import: 202 while pending, 200 once imported, 400 with the code it failed with',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DcParams.extend({ txid: Id }) },
  responses: {
    200: {
      description: 'imported',
      data: z.object({ txid: z.string(), status: z.literal('SUCCEEDED'), route_id: z.string() }),
    },
    202: {
      description: 'still pending; poll again',
      data: z.object({ txid: z.string(), status: z.literal('PENDING') }),
    },
  },
  // An upload's body is checked by the worker: its 1004/1005/1006 come through here, as does 3015.
  errorCodes: [...IMPORT_FAILURE_CODES, 3004, 1004, 1005, 3015],
});

export const getInvoiceStatus = defineEndpoint({
  operationId: 'getInvoiceStatus',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/invoices',
  auth: 'apiKey',
  handler: 'routes/invoices',
  summary:
    'Per-item status of every invoice of a route, in import order, a page of invoice and item rows at a time',
  description:
    '`limit` counts rows: each invoice and each item is one. An invoice cut by a page boundary continues on the next page under the same invoice id (with its payment method and name attributes again), holding the items that follow. ' +
    PAGE_BYTES_NOTE,
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.invoiceRows) },
  responses: {
    200: {
      description: 'invoices in import order',
      data: z.object({ invoices: z.array(InvoiceStatus), next_token: NextToken }),
    },
  },
  errorCodes: [3003],
});

export const getRouteAccounting = defineEndpoint({
  operationId: 'getRouteAccounting',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/accounting',
  auth: 'apiKey',
  handler: 'routes/accounting',
  summary: 'Cash accounting records of a route, oldest first',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.accountingRecords) },
  responses: {
    200: {
      description: 'the route’s records',
      data: z.object({ records: z.array(AccountingRecord), next_token: NextToken }),
    },
  },
  errorCodes: [3003],
});

export const getRoute = defineEndpoint({
  operationId: 'getRoute',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}',
  auth: 'apiKey',
  handler: 'routes/get',
  summary: 'Read a route',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams },
  responses: { 200: { description: 'the route', data: RouteData } },
  errorCodes: [3003],
});

export const findRoutesByDate = defineEndpoint({
  operationId: 'findRoutesByDate',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/find_by_date/{date}',
  auth: 'apiKey',
  handler: 'routes/find-by-date',
  summary: 'Routes whose start_time falls on a date of the DC’s time zone, by start time',
  tag: TAG,
  access: { table: 'read' },
  request: {
    params: DcParams.extend({
      date: CalendarDate.meta({ description: 'YYYY-MM-DD in the DC’s time zone' }),
    }),
    query: pagedQuery(ROUTE_PAGE_SIZES.routesOfDate),
  },
  responses: {
    200: {
      description: 'the routes of that local date',
      data: z.object({ routes: z.array(Route), next_token: NextToken }),
    },
  },
  errorCodes: [],
});

export const listWaypoints = defineEndpoint({
  operationId: 'listWaypoints',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/waypoints',
  auth: 'apiKey',
  handler: 'routes/waypoints',
  summary: 'The waypoints of a route in sequence',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.waypoints) },
  responses: {
    200: {
      description: 'waypoints in sequence',
      data: z.object({ waypoints: z.array(Waypoint), next_token: NextToken }),
    },
  },
  errorCodes: [3003],
});

export const getWaypoint = defineEndpoint({
  operationId: 'getWaypoint',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}',
  auth: 'apiKey',
  handler: 'routes/waypoint',
  summary: 'One waypoint of a route',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams.extend({ waypoint_id: Id }) },
  responses: { 200: { description: 'the waypoint', data: z.object({ waypoint: Waypoint }) } },
  errorCodes: [3003, 1003],
});

const changeRoute = (operationId: string, path: string, handler: string, summary: string) =>
  defineEndpoint({
    operationId,
    method: 'PATCH',
    path: `/dcs/{dc_id}/routes/{route_id}/${path}`,
    auth: 'apiKey',
    handler,
    summary,
    tag: TAG,
    access: { table: 'readWrite' },
    request: { params: RouteParams },
    responses: { 200: { description: 'the route after the change', data: RouteData } },
    errorCodes: [3003, 3011, 3012],
  });

export const activateRoute = changeRoute(
  'activateRoute',
  'activate',
  'routes/activate',
  'Activate a route (it shows among its driver’s active routes)',
);
export const deactivateRoute = changeRoute(
  'deactivateRoute',
  'deactivate',
  'routes/deactivate',
  'Deactivate a route that has not started',
);

export const assignDriver = defineEndpoint({
  ...changeRoute(
    'assignDriver',
    'driver-assignment',
    'routes/assign-driver',
    'Assign a driver of the DC to a route that has not started',
  ),
  request: { params: RouteParams, body: z.object({ driver_id: Id }).meta({ id: 'DriverAssignment' }) },
  errorCodes: [3003, 3010, 3011, 3012],
});

export const unassignDriver = defineEndpoint({
  ...changeRoute(
    'unassignDriver',
    'driver-assignment',
    'routes/unassign-driver',
    'Remove the driver from a route that has not started',
  ),
  method: 'DELETE',
});

export const assignVehicle = defineEndpoint({
  ...changeRoute(
    'assignVehicle',
    'vehicle-assignment',
    'routes/assign-vehicle',
    'Assign a vehicle to a route',
  ),
  request: { params: RouteParams, body: z.object({ vehicle_id: Id }).meta({ id: 'VehicleAssignment' }) },
});

const OptionalTimestampBody = z
  .object({
    timestamp: ReportedTimestamp.optional().meta({ description: 'when it happened; now when absent' }),
  })
  .optional();

export const startRoute = defineEndpoint({
  ...changeRoute(
    'startRoute',
    'start',
    'routes/start',
    'Start an active route that has a driver (as its driver would); ROUTE_STARTED',
  ),
  request: { params: RouteParams, body: OptionalTimestampBody },
  errorCodes: [3003, 3010, 3011, 3012],
});

export const finishRoute = defineEndpoint({
  ...changeRoute(
    'finishRoute',
    'finish',
    'routes/finish',
    'Finish an active or started route; ROUTE_FINISHED',
  ),
  request: { params: RouteParams, body: OptionalTimestampBody },
});

export const getCompletionTime = defineEndpoint({
  operationId: 'getCompletionTime',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/completion-time',
  auth: 'apiKey',
  handler: 'routes/completion-time',
  summary:
    'When the route ends: ESTIMATED from the latest ETAs, ACTUAL once the last waypoint is done, FINALIZED once finished',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams },
  responses: {
    200: {
      description: 'the completion time',
      data: z
        .object({ type: z.enum(['ESTIMATED', 'ACTUAL', 'FINALIZED']), timestamp: EpochMillis })
        .meta({ id: 'CompletionTime' }),
    },
  },
  errorCodes: [3003],
});

export const deleteRoute = defineEndpoint({
  operationId: 'deleteRoute',
  method: 'DELETE',
  path: '/dcs/{dc_id}/routes/{route_id}',
  auth: 'apiKey',
  handler: 'routes/delete',
  summary:
    'Delete a route that has not started (or has finished): it is gone at once; its rows are removed asynchronously, then its ids can be imported again',
  tag: TAG,
  access: { table: 'readWrite', sendTo: ['deletions'] },
  request: { params: RouteParams },
  responses: {
    200: {
      description: 'deleted: the route answers 404 from now on; its rows and ids are freed shortly after',
      data: z.object({}),
    },
  },
  errorCodes: [3003, 3011],
});

export const routeEndpoints = [
  importRoute,
  createImportUpload,
  getImportStatus,
  getInvoiceStatus,
  getRouteAccounting,
  getRoute,
  findRoutesByDate,
  listWaypoints,
  getWaypoint,
  activateRoute,
  alsoAs(activateRoute, 'PUT'),
  deactivateRoute,
  alsoAs(deactivateRoute, 'PUT'),
  assignDriver,
  alsoAs(assignDriver, 'PUT'),
  unassignDriver,
  assignVehicle,
  alsoAs(assignVehicle, 'PUT'),
  startRoute,
  alsoAs(startRoute, 'PUT'),
  finishRoute,
  alsoAs(finishRoute, 'PUT'),
  getCompletionTime,
  deleteRoute,
];
