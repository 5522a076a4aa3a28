/** The waypoint and attempt schemas, shared by the route and driver-app endpoints that answer them. */
import * as z from 'zod';
import { EpochMillis, FreeText, Label, Location, orNull } from '../../models/common';

export const FailureReason = z
  .object({ code: Label(64, { min: 1 }), message: FreeText(500, { min: 1 }) })
  .meta({ id: 'FailureReason' });

export const Attempt = z
  .object({
    id: z.string(),
    timestamp: EpochMillis,
    status: z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
    reason: orNull(FailureReason),
    location: orNull(Location),
    items: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['SUCCESSFUL', 'FAILED']),
        reason: orNull(FailureReason),
      }),
    ),
    proof_ids: z.array(z.string()).meta({ description: 'the proofs of delivery the visit names' }),
    signer_name: z.string().nullable().meta({ description: 'who signed for the delivery' }),
    driver_id: z.string(),
  })
  .meta({ id: 'Attempt', description: 'one visit of a waypoint, as the driver app reported it' });

export const Waypoint = z
  .object({
    id: z.string(),
    sequence: z.number().int().meta({
      description:
        'position in the route as imported, from 0; a cancelled waypoint’s number stays unused (the others keep theirs)',
    }),
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

/** A waypoint as the route reads answer it: the Waypoint with its customer's tracking page. */
export const RouteWaypoint = Waypoint.extend({
  tracking_url: z.string().nullable().meta({
    description:
      'the waypoint’s tracking page for its customer (`GET /track/{token}` under the API’s own URL; an unguessable link: hand it to that customer only); null on a route imported before tracking links',
  }),
}).meta({ id: 'RouteWaypoint' });
