import * as z from 'zod';
import { FreeText, Id, Label, Location, Name, StorableNumber, Timestamp } from './common';
import { PathId } from './path-ids';

/**
 * Limits of one imported route (docs/api.md §9). Each invoice, like each item, is a row and an id claim of its own:
 * invoices are bounded like items, so an import never writes more rows than a 50,000-item route.
 */
export const IMPORT_LIMITS = { waypoints: 2000, items: 50_000, invoices: 50_000 } as const;

/**
 * Most bytes the ids of one list may have together, where a list of ids is stored in one item or sent in one
 * message: a route's waypoint ids (its header item; and ROUTE_ETAS_CHANGED lists them all, reaching the events
 * queue as a stream record in which every entry adds about 70 bytes: 2,000 entries and 96 KiB of ids stay
 * within the 256 KiB an event's stream record may have, data/events.ts), and a waypoint's invoice ids (its row, within DynamoDB's 400 KB item). Counted as JSON
 * writes them: UTF-8, with `"` and `\` two bytes each. 2,000 waypoint ids of 49 ASCII characters fit.
 */
export const MAX_LISTED_ID_BYTES = 96 * 1024;

/** An id's bytes as JSON writes it (without the quotes). */
export const jsonBytesOf = (id: string) => Buffer.byteLength(JSON.stringify(id), 'utf8') - 2;

const Warehouse = z
  .object({ id: Id, name: FreeText(200).optional(), address: FreeText(500).optional(), location: Location })
  .meta({ id: 'Warehouse' });

const TimeWindow = z
  .object({ start: Timestamp, end: Timestamp })
  .refine((window) => window.start < window.end, { message: 'start must be before end', path: ['end'] });

export const ImportItem = z
  .object({
    id: Id,
    sku: Label(128).optional(),
    name: FreeText(200).optional(),
    quantity: StorableNumber.min(0).max(1e9),
    display_unit_of_measure: Label(32).optional(),
    total_price_cents: z.number().int().min(-1e12).max(1e12),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code (three upper-case letters)'),
  })
  .meta({ id: 'ImportItem' });

const NameAttribute = z.object({ key: Label(128), value: FreeText(500) });

export const ImportInvoice = z
  .object({
    id: Id,
    payment_method: Label(32)
      .regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'must be an upper-case token such as CASH')
      .optional()
      .meta({ description: '`CASH` counts toward the cash the driver should collect' }),
    invoice_name_attributes: z.array(NameAttribute).max(50).default([]),
    items: z.array(ImportItem),
  })
  .meta({ id: 'ImportInvoice' });

export const ImportWaypoint = z
  .object({
    id: PathId('waypoint_id'),
    customer_id: Id.optional(),
    name: FreeText(200).optional(),
    address: FreeText(500).optional(),
    location: Location,
    service_time_minutes: z.number().int().min(0).max(1440).default(0),
    time_windows: z.array(TimeWindow).max(20).default([]),
    invoices: z.array(ImportInvoice).default([]),
  })
  .meta({ id: 'ImportWaypoint' });

export const ImportRoute = z
  .object({
    id: PathId('route_id'),
    name: Name.optional().meta({ description: 'defaults to the id' }),
    driver_id: Id.optional().meta({ description: 'a driver of this DC (3010 otherwise)' }),
    start_time: Timestamp,
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
    let invoices = 0;
    let waypointIdBytes = 0;
    route.waypoints.forEach((waypoint, index) => {
      waypointIdBytes += jsonBytesOf(waypoint.id);
      invoices += waypoint.invoices.length;
      let invoiceIdBytes = 0;
      for (const invoice of waypoint.invoices) {
        items += invoice.items.length;
        invoiceIdBytes += jsonBytesOf(invoice.id);
      }
      if (invoiceIdBytes > MAX_LISTED_ID_BYTES) {
        context.addIssue({
          code: 'custom',
          path: ['waypoints', index, 'invoices'],
          message: `the invoice ids of a waypoint may have at most ${MAX_LISTED_ID_BYTES} bytes together (UTF-8, as JSON writes them); these have ${invoiceIdBytes}`,
        });
      }
    });
    const limit = (what: 'items' | 'invoices', count: number) => {
      if (count > IMPORT_LIMITS[what]) {
        context.addIssue({
          code: 'custom',
          path: ['waypoints'],
          message: `a route holds at most ${IMPORT_LIMITS[what]} ${what}; this one has ${count}`,
        });
      }
    };
    limit('items', items);
    limit('invoices', invoices);
    if (waypointIdBytes > MAX_LISTED_ID_BYTES) {
      context.addIssue({
        code: 'custom',
        path: ['waypoints'],
        message: `the waypoint ids of a route may have at most ${MAX_LISTED_ID_BYTES} bytes together (UTF-8, as JSON writes them); these have ${waypointIdBytes}`,
      });
    }
  })
  .meta({ id: 'ImportRoute' });

export const ImportRouteBody = z.object({ route: ImportRoute }).meta({ id: 'ImportRouteRequest' });

export type ImportedRoute = z.output<typeof ImportRoute>;
