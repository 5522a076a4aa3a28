/** The waypoint and attempt schemas, shared by the route and driver-app endpoints that answer them. */

import { EpochMillis, FreeText, Label, Location, orNull } from '../../models/common';
import { AppliedRequirements } from '../../models/delivery-requirements';
import * as z from '../../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const FailureReason = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    code: /* @__PURE__ */ Label(64, { min: 1 }),
    message: /* @__PURE__ */ FreeText(500, { min: 1 }),
  }),
  { id: 'FailureReason' },
);

export const Attempt = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    timestamp: EpochMillis,
    status: /* @__PURE__ */ z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
    reason: /* @__PURE__ */ orNull(FailureReason),
    location: /* @__PURE__ */ orNull(Location),
    items: /* @__PURE__ */ z.array(
      /* @__PURE__ */ z.object({
        id: /* @__PURE__ */ z.string(),
        status: /* @__PURE__ */ z.enum(['SUCCESSFUL', 'FAILED']),
        reason: /* @__PURE__ */ orNull(FailureReason),
      }),
    ),
    proof_ids: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(/* @__PURE__ */ z.string()), {
      description: 'the proofs of delivery the visit names',
    }),
    signer_name: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'who signed for the delivery',
    }),
    scans: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.array(
        /* @__PURE__ */ z.object({
          value: /* @__PURE__ */ z.string(),
          timestamp: EpochMillis,
          item_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
            description: 'the item the app said it scanned',
          }),
          matched_item_id: /* @__PURE__ */ z.withMeta(
            /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
            {
              description:
                'the item of the stop the scan counts for; null: a mismatch (no such barcode here)',
            },
          ),
        }),
      ),
      { description: 'the barcode scans of the visit, matches and mismatches, in the order sent' },
    ),
    requirements: /* @__PURE__ */ z.withMeta(AppliedRequirements, {
      description:
        'the stop’s delivery rules when the attempt was recorded (all off for attempts recorded before delivery rules)',
    }),
    pin_verified: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
      description:
        'the visit gave the stop’s PIN and it matched (the code is never kept); false when none was checked: the stop requires none, or the visit delivered nothing',
    }),
    age_check: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ orNull(
        /* @__PURE__ */ z.withMeta(
          /* @__PURE__ */ z.object({
            method: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['ID_CHECKED']), {
              description: 'the driver saw the recipient’s ID',
            }),
            result: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['OLD_ENOUGH', 'UNDER_AGE']), {
              description:
                'the recipient’s age against the stop’s `minimum_age` on the day of the visit, in the DC’s time zone',
            }),
            timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, {
              description: 'when it was checked: the visit’s time',
            }),
          }),
          { id: 'AgeCheck' },
        ),
      ),
      {
        description:
          'the recipient’s ID check, for a stop with a `minimum_age` (never the date of birth); null when none was made',
      },
    ),
    driver_id: /* @__PURE__ */ z.string(),
  }),
  { id: 'Attempt', description: 'one visit of a waypoint, as the driver app reported it' },
);

export const Waypoint = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    sequence: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description:
        'the waypoint’s number, which it keeps for life: its position in the route as imported (from 0), or for a waypoint a revision added the next after every number the route used; a cancelled waypoint’s number stays unused. Not its place in the visiting order: waypoints are listed in that order, which a reorder, an optimization or a revision may change',
    }),
    customer_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    name: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    address: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    location: Location,
    service_time_minutes: /* @__PURE__ */ z.int(),
    time_windows: /* @__PURE__ */ z.array(/* @__PURE__ */ z.object({ start: EpochMillis, end: EpochMillis })),
    invoice_ids: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    status: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.enum(['PENDING', 'SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
      {
        description: 'the latest attempt’s status; PENDING before any',
      },
    ),
    eta: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'when service is expected to start; null once the waypoint is done',
    }),
    requirements: /* @__PURE__ */ z.withMeta(AppliedRequirements, {
      description:
        'what a SUCCESSFUL visit must show (docs/api.md, Delivery rules): the waypoint’s own rules over its DC’s defaults as the route took them',
    }),
    attempts: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(Attempt), { description: 'oldest first' }),
    arrived_timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description:
        'when the driver last arrived, as detected from the driver’s location pings (docs/api.md, Arrivals and departures); null before any arrival',
    }),
    departed_timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'when the driver left after that arrival; null until then',
    }),
    visits: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.array(
        /* @__PURE__ */ z.object({
          arrived_timestamp: EpochMillis,
          departed_timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
            description: 'null while the driver is there',
          }),
        }),
      ),
      { description: 'every detected visit, oldest first: a waypoint visited again has one per visit' },
    ),
  }),
  { id: 'Waypoint' },
);

/** A waypoint as the route reads answer it: the Waypoint with its customer's tracking page. */
export const RouteWaypoint = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.extend(Waypoint, {
    tracking_url: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description:
        'the waypoint’s tracking page for its customer (`GET /track/{token}` under the API’s own URL; an unguessable link: hand it to that customer only); null on a route imported before tracking links',
    }),
    recipient: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(
        /* @__PURE__ */ z.object({
          name: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
          phone: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
            description: 'masked: `+1415•••0123`',
          }),
          email: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
            description: 'masked: `d•••@example.com`',
          }),
          locale: /* @__PURE__ */ z.string(),
        }),
      ),
      {
        id: 'MaskedRecipient',
        description:
          'who the stop’s customer messages go to (docs/api.md, Customer notifications), phone and email masked: they are stored encrypted and never answered whole; null when the waypoint has none. The driver app never gets it',
      },
    ),
  }),
  { id: 'RouteWaypoint' },
);
