import { EpochMillis, Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { RouteParams, routesEndpoint } from '../schemas';

const Notification = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the message’s id: the same for the same event, trigger, channel and stop',
    }),
    event_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the event that caused it (webhooks and the event feed carry it)',
    }),
    trigger: /* @__PURE__ */ z.enum(['ROUTE_STARTED', 'APPROACHING', 'LATE', 'DELIVERED', 'FAILED']),
    channel: /* @__PURE__ */ z.enum(['SMS', 'EMAIL']),
    status: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.enum(['QUEUED', 'SENT', 'DELIVERED', 'BOUNCED', 'FAILED', 'SUPPRESSED']),
      {
        description:
          'QUEUED (recorded, not yet handed to the provider), SENT (the provider took it), DELIVERED (the provider reported it delivered), BOUNCED (an email bounced for good, or its recipient complained), FAILED (the provider refused it, or reported it undelivered), SUPPRESSED (not sent: `status_reason` says why, `quiet_hours` or `opted_out`)',
      },
    ),
    status_reason: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description:
        'why it ended BOUNCED, FAILED or SUPPRESSED (the provider’s words, without addresses); null otherwise',
    }),
    to: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the address it went to, masked as the waypoint reads show it',
    }),
    locale: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the locale of the template used (after the fallbacks)',
    }),
    segments: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.int()), {
      description: 'SMS: the segments the text takes; null for an email',
    }),
    eta: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'the ETA the message told, if it told one',
    }),
    created_at: EpochMillis,
    sent_at: /* @__PURE__ */ z.nullable(EpochMillis),
    ended_at: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description:
        'when it was delivered, bounced, failed or suppressed (the provider’s time of the outcome)',
    }),
  }),
  { id: 'Notification', description: 'one customer message about a stop' },
);

export const listWaypointNotifications = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}/notifications',
  {
    operationId: 'listWaypointNotifications',
    module: import.meta.url,
    summary: 'The customer messages about a waypoint, oldest first, with their status and times',
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the messages', z.object({ notifications: /* @__PURE__ */ z.array(Notification) })),
    errorCodes: [3003, 1003],
  },
);
