import * as z from '../shared/zod';
import { FreeText, Id, Label, Location, Name, StorableNumber, Timestamp } from './common';
import { Barcodes, DeliveryRequirements } from './delivery-requirements';
import { PathId } from './path-ids';
import { Recipient } from './recipient';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

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

const Warehouse = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: Id,
    name: /* @__PURE__ */ z.optional(/* @__PURE__ */ FreeText(200)),
    address: /* @__PURE__ */ z.optional(/* @__PURE__ */ FreeText(500)),
    location: Location,
  }),
  { id: 'Warehouse' },
);

const TimeWindow = /* @__PURE__ */ z.object({ start: Timestamp, end: Timestamp }).check(
  /* @__PURE__ */ z.refine((window) => window.start < window.end, {
    message: 'start must be before end',
    path: ['end'],
  }),
);

export const ImportItem = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: Id,
    sku: /* @__PURE__ */ z.optional(/* @__PURE__ */ Label(128)),
    name: /* @__PURE__ */ z.optional(/* @__PURE__ */ FreeText(200)),
    quantity: /* @__PURE__ */ StorableNumber.check(
      /* @__PURE__ */ z.minimum(0),
      /* @__PURE__ */ z.maximum(1e9),
    ),
    display_unit_of_measure: /* @__PURE__ */ z.optional(/* @__PURE__ */ Label(32)),
    total_price_cents: /* @__PURE__ */ z
      .int()
      .check(/* @__PURE__ */ z.minimum(-1e12), /* @__PURE__ */ z.maximum(1e12)),
    currency: /* @__PURE__ */ z
      .string()
      .check(/* @__PURE__ */ z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code (three upper-case letters)')),
    barcodes: /* @__PURE__ */ z.optional(Barcodes),
  }),
  { id: 'ImportItem' },
);

const NameAttribute = /* @__PURE__ */ z.object({
  key: /* @__PURE__ */ Label(128),
  value: /* @__PURE__ */ FreeText(500),
});

export const ImportInvoice = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: Id,
    payment_method: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.optional(
        /* @__PURE__ */ Label(32).check(
          /* @__PURE__ */ z.regex(/^[A-Z][A-Z0-9_]{0,31}$/, 'must be an upper-case token such as CASH'),
        ),
      ),
      { description: '`CASH` counts toward the cash the driver should collect' },
    ),
    invoice_name_attributes: /* @__PURE__ */ z._default(
      /* @__PURE__ */ z.array(NameAttribute).check(/* @__PURE__ */ z.maxLength(50)),
      [],
    ),
    items: /* @__PURE__ */ z.array(ImportItem),
  }),
  { id: 'ImportInvoice' },
);

export const ImportWaypoint = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ PathId('waypoint_id'),
    customer_id: /* @__PURE__ */ z.optional(Id),
    name: /* @__PURE__ */ z.optional(/* @__PURE__ */ FreeText(200)),
    address: /* @__PURE__ */ z.optional(/* @__PURE__ */ FreeText(500)),
    location: Location,
    service_time_minutes: /* @__PURE__ */ z._default(
      /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0), /* @__PURE__ */ z.maximum(1440)),
      0,
    ),
    time_windows: /* @__PURE__ */ z._default(
      /* @__PURE__ */ z.array(TimeWindow).check(/* @__PURE__ */ z.maxLength(20)),
      [],
    ),
    invoices: /* @__PURE__ */ z._default(/* @__PURE__ */ z.array(ImportInvoice), []),
    requirements: /* @__PURE__ */ z.optional(DeliveryRequirements),
    recipient: /* @__PURE__ */ z.optional(Recipient),
  }),
  { id: 'ImportWaypoint' },
);

export const ImportRoute = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      id: /* @__PURE__ */ PathId('route_id'),
      name: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Name), {
        description: 'defaults to the id',
      }),
      driver_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Id), {
        description: 'a driver of this DC (3010 otherwise)',
      }),
      start_time: Timestamp,
      activate_after_successful_import: /* @__PURE__ */ z._default(/* @__PURE__ */ z.boolean(), false),
      start_warehouse: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Warehouse), {
        description: 'absent: the route starts at its first waypoint',
      }),
      end_warehouse: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Warehouse), {
        description: 'absent: the route ends at its last waypoint',
      }),
      vehicle: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.object({ id: Id })),
      waypoints: /* @__PURE__ */ z
        .array(ImportWaypoint)
        .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ z.maxLength(IMPORT_LIMITS.waypoints)),
    })
    .check(
      /* @__PURE__ */ z.superRefine((route, context) => {
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

export const ImportRouteBody = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.object({ route: ImportRoute }), {
  id: 'ImportRouteRequest',
});

export type ImportedRoute = z.output<typeof ImportRoute>;
