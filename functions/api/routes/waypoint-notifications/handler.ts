import { waypointNotifications } from '../../../domain/notifications';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { listWaypointNotifications as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const records = await waypointNotifications(routeRef(caller, params), params.waypoint_id);
  return {
    notifications: records.map((record) => ({
      id: record.notificationId,
      event_id: record.eventId,
      trigger: record.trigger as 'ROUTE_STARTED',
      channel: record.channel as 'SMS' | 'EMAIL',
      status: record.status,
      status_reason: record.statusReason ?? null,
      to: record.to,
      locale: record.locale,
      segments: record.segments ?? null,
      eta: record.eta ?? null,
      created_at: record.createdAt,
      sent_at: record.sentAt ?? null,
      ended_at: record.endedAt ?? null,
    })),
  };
});
