import * as z from 'zod';
import {
  DcParams,
  EpochMillis,
  FreeText,
  FULL_PAGES,
  Id,
  Label,
  Location,
  type PageSize,
  ReportedTimestamp,
} from '../../models/common';
import { defineEndpoint } from '../define';

export const TAG = 'Routes';

export const RouteParams = DcParams.extend({ route_id: Id });

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

export const ItemStatus = z
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

export const RouteData = z.object({ route: Route });

export const IMPORT_FAILURE_CODES = [3005, 3006, 3008, 3009, 3010];

/** A PATCH that changes a route and answers it; `module` is the slice's row module (`import.meta.url`). */
export const changeRoute = (module: string, operationId: string, path: string, summary: string) =>
  defineEndpoint({
    operationId,
    method: 'PATCH',
    path: `/dcs/{dc_id}/routes/{route_id}/${path}`,
    auth: 'apiKey',
    module,
    summary,
    tag: TAG,
    access: { table: 'readWrite' },
    request: { params: RouteParams },
    responses: { 200: { description: 'the route after the change', data: RouteData } },
    errorCodes: [3003, 3011, 3012],
  });

export const OptionalTimestampBody = z
  .object({
    timestamp: ReportedTimestamp.optional().meta({ description: 'when it happened; now when absent' }),
  })
  .optional();
