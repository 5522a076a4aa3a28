import * as z from '../shared/zod';
import { FreeText, Id, Label, Location, Name, StorableNumber, Timestamp } from './common';
import { Barcodes, DeliveryRequirements } from './delivery-requirements';
import { PathId } from './path-ids';
import { Recipient } from './recipient';

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

const Warehouse = z.withMeta(
  z.object({
    id: Id,
    name: z.optional(FreeText(200)),
    address: z.optional(FreeText(500)),
    location: Location,
  }),
  { id: 'Warehouse' },
);

const TimeWindow = z.object({ start: Timestamp, end: Timestamp }).check(
  z.refine((window) => window.start < window.end, {
    message: 'start must be before end',
    path: ['end'],
  }),
);

export const ImportItem = z.withMeta(
  z.object({
    id: Id,
    sku: z.optional(Label(128)),
    name: z.optional(FreeText(200)),
    quantity: StorableNumber.check(z.minimum(0), z.maximum(1e9)),
    display_unit_of_measure: z.optional(Label(32)),
    total_price_cents: z.int().check(z.minimum(-1e12), z.maximum(1e12)),
    currency: z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code (three upper-case letters)')),
    barcodes: z.optional(Barcodes),
  }),
  { id: 'ImportItem' },
);

const NameAttribute = z.object({ key: Label(128), value: FreeText(500) });

export const ImportInvoice = z.withMeta(
  z.object({
    id: Id,
    payment_method: z.withMeta(
      z.optional(
        Label(32).check(z.regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'must be an upper-case token such as CASH')),
      ),
      { description: '`CASH` counts toward the cash the driver should collect' },
    ),
    invoice_name_attributes: z._default(z.array(NameAttribute).check(z.maxLength(50)), []),
    items: z.array(ImportItem),
  }),
  { id: 'ImportInvoice' },
);

export const ImportWaypoint = z.withMeta(
  z.object({
    id: PathId('waypoint_id'),
    customer_id: z.optional(Id),
    name: z.optional(FreeText(200)),
    address: z.optional(FreeText(500)),
    location: Location,
    service_time_minutes: z._default(z.int().check(z.minimum(0), z.maximum(1440)), 0),
    time_windows: z._default(z.array(TimeWindow).check(z.maxLength(20)), []),
    invoices: z._default(z.array(ImportInvoice), []),
    requirements: z.optional(DeliveryRequirements),
    recipient: z.optional(Recipient),
  }),
  { id: 'ImportWaypoint' },
);

export const ImportRoute = z.withMeta(
  z
    .object({
      id: PathId('route_id'),
      name: z.withMeta(z.optional(Name), { description: 'defaults to the id' }),
      driver_id: z.withMeta(z.optional(Id), { description: 'a driver of this DC (3010 otherwise)' }),
      start_time: Timestamp,
      activate_after_successful_import: z._default(z.boolean(), false),
      start_warehouse: z.withMeta(z.optional(Warehouse), {
        description: 'absent: the route starts at its first waypoint',
      }),
      end_warehouse: z.withMeta(z.optional(Warehouse), {
        description: 'absent: the route ends at its last waypoint',
      }),
      vehicle: z.optional(z.object({ id: Id })),
      waypoints: z.array(ImportWaypoint).check(z.minLength(1), z.maxLength(IMPORT_LIMITS.waypoints)),
    })
    .check(
      z.superRefine((route, context) => {
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
      }),
    ),
  { id: 'ImportRoute' },
);

export const ImportRouteBody = z.withMeta(z.object({ route: ImportRoute }), { id: 'ImportRouteRequest' });

export type ImportedRoute = z.output<typeof ImportRoute>;
