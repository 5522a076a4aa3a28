import * as z from 'zod';
import { EpochMillis, Id, Location, Name } from './common';

/** Limits of one imported route (DESIGN §2). */
export const IMPORT_LIMITS = { waypoints: 2000, items: 50_000 } as const;

/** Free text from the ERP (names, addresses): tabs and line breaks are kept, other control characters refused. */
const Text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(
      /^(?:[^\p{Cc}]|[\t\n\r])*$/u,
      'must not contain control characters other than tabs and line breaks',
    );

const Warehouse = z
  .object({ id: Id, name: Text(200).optional(), address: Text(500).optional(), location: Location })
  .meta({ id: 'Warehouse' });

const TimeWindow = z
  .object({ start: EpochMillis, end: EpochMillis })
  .refine((window) => window.start < window.end, { message: 'start must be before end', path: ['end'] });

export const ImportItem = z
  .object({
    id: Id,
    sku: Text(128).optional(),
    name: Text(200).optional(),
    quantity: z.number().min(0).max(1e9),
    display_unit_of_measure: Text(32).optional(),
    total_price_cents: z.number().int().min(-1e12).max(1e12),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code (three upper-case letters)'),
  })
  .meta({ id: 'ImportItem' });

const NameAttribute = z.object({ key: Text(128), value: Text(500) });

export const ImportInvoice = z
  .object({
    id: Id,
    payment_method: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'must be an upper-case token such as CASH')
      .optional()
      .meta({ description: '`CASH` counts toward the cash the driver should collect' }),
    invoice_name_attributes: z.array(NameAttribute).max(50).default([]),
    items: z.array(ImportItem),
  })
  .meta({ id: 'ImportInvoice' });

export const ImportWaypoint = z
  .object({
    id: Id,
    customer_id: Id.optional(),
    name: Text(200).optional(),
    address: Text(500).optional(),
    location: Location,
    service_time_minutes: z.number().int().min(0).max(1440).default(0),
    time_windows: z.array(TimeWindow).max(20).default([]),
    invoices: z.array(ImportInvoice).default([]),
  })
  .meta({ id: 'ImportWaypoint' });

export const ImportRoute = z
  .object({
    id: Id,
    name: Name.optional().meta({ description: 'defaults to the id' }),
    driver_id: Id.optional().meta({ description: 'a driver of this DC (3010 otherwise)' }),
    start_time: EpochMillis,
    activate_after_successful_import: z.boolean().default(false),
    start_warehouse: Warehouse.optional().meta({
      description: 'absent: the route starts at its first waypoint',
    }),
    end_warehouse: Warehouse.optional().meta({ description: 'absent: the route ends at its last waypoint' }),
    vehicle: z.object({ id: Id }).optional(),
    waypoints: z.array(ImportWaypoint).min(1).max(IMPORT_LIMITS.waypoints),
  })
  .superRefine((route, context) => {
    let items = 0;
    for (const waypoint of route.waypoints)
      for (const invoice of waypoint.invoices) items += invoice.items.length;
    if (items > IMPORT_LIMITS.items) {
      context.addIssue({
        code: 'custom',
        path: ['waypoints'],
        message: `a route holds at most ${IMPORT_LIMITS.items} items; this one has ${items}`,
      });
    }
  })
  .meta({ id: 'ImportRoute' });

export const ImportRouteBody = z.object({ route: ImportRoute }).meta({ id: 'ImportRouteRequest' });

export type ImportedRoute = z.output<typeof ImportRoute>;
