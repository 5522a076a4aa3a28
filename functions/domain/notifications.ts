import { createHash } from 'node:crypto';
import { type Dc, getDc } from '../data/accounts';
import { listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import { eventDetails } from '../data/events';
import { configuredChannels, sendEmail, sendSms } from '../data/message-sender';
import { getNotificationSettings } from '../data/notification-settings';
import {
  getNotifyState,
  insertNotification,
  listNotifications,
  markNotificationSent,
  type NotificationRecord,
  reclaimQueuedNotification,
  updateNotification,
} from '../data/notifications';
import { addOptOut, isOptedOut } from '../data/opt-outs';
import { getRouteEtas } from '../data/route-etas';
import { listWaypointRows, type WaypointRow } from '../data/route-rows';
import { getRouteHeader, type RouteHeader, waypointSequencesOf } from '../data/routes';
import { noteSmsRecipient } from '../data/sms-recipients';
import * as channels from '../models/channels';
import {
  NOTIFICATION_STOPS_PER_MESSAGE,
  NOTIFICATION_WORKER_TIMEOUT_SECONDS,
  type NotificationMessage,
} from '../models/channels';
import type { EventDetails, WebhookEvent } from '../models/event-catalog';
import type {
  MessageTemplate,
  NotificationChannel,
  NotificationTrigger,
} from '../models/notification-templates';
import type { Recipient } from '../models/recipient';
import { tokenSequence, trackingToken, trackingUrl } from '../models/tracking-links';
import { unsubscribeAddressKey, unsubscribeUrl } from '../models/unsubscribe-links';
import { config } from '../shared/config';
import { NotFoundError } from '../shared/errors';
import { logger } from '../shared/observability';
import { send, sendAll } from '../shared/queues';
import { quote } from '../shared/quote';
import { zonedFormatter } from '../shared/time';
import { render, smsSize, templateFor } from './message-templates';
import { openRecipient } from './recipients';
import { type RouteRef, requireRoute } from './routes';
import { etaWindowOf, firstNameOf } from './tracked-stop';

/**
 * Customer messages (docs/api.md, Customer notifications). The fan-out queues each event that a trigger of
 * its DC listens to (queueNotifications); the notifications worker works out which stops it concerns and
 * under which trigger, and for each stop with a recipient and each channel the DC uses and the deployment
 * configured: renders the template of the recipient's locale, stores the message's record (once: its id
 * derives from the event, trigger, channel and stop, so a redelivered event sends nothing again), and sends it,
 * unless its address opted out of the channel (an email's one-click unsubscribe: recorded SUPPRESSED,
 * `opted_out`) or the DC's quiet hours hold (SUPPRESSED, `quiet_hours`); a suppressed message is dropped.
 */

/** The messages about a waypoint of the account's route, oldest first; 404 for a route or waypoint it has not. */
export async function waypointNotifications(
  ref: RouteRef,
  waypointId: string,
): Promise<NotificationRecord[]> {
  const route = await requireRoute(ref);
  const position = route.waypointIds.indexOf(waypointId);
  if (position < 0)
    throw new NotFoundError(`waypoint ${quote(waypointId)} not found on route ${quote(ref.routeId)}`);
  return listNotifications(ref.accountId, ref.routeId, waypointSequencesOf(route)[position] as number);
}

/** The triggers each event type can cause. */
const TRIGGERS_OF_EVENT: Partial<Record<WebhookEvent['type'], readonly NotificationTrigger[]>> = {
  ROUTE_STARTED: ['ROUTE_STARTED'],
  WAYPOINT_APPROACHING: ['APPROACHING'],
  ROUTE_ETAS_CHANGED: ['LATE'],
  WAYPOINT_STATUS_CHANGED: ['DELIVERED', 'FAILED'],
};

/** LATE: the ETA moved this much later than the last message told, or past the stop's time window. */
export const LATE_MOVE_MS = 15 * 60_000;
/**
 * A message recorded QUEUED this long ago and not sent was left by a run that ended (twice the worker's
 * timeout): a redelivery of its event sends it. A run that died between the provider's answer and the
 * record's SENT may so send it twice; sending it never would be worse.
 */
const RECLAIM_AFTER_MS = 2 * NOTIFICATION_WORKER_TIMEOUT_SECONDS * 1000;

/** LATE: at most one message per stop within this long. */
export const LATE_THROTTLE_MS = 30 * 60_000;

/** Queues the event for the notifications worker when its DC has a trigger on that listens to it. */
export async function queueNotifications(accountId: string, event: WebhookEvent): Promise<boolean> {
  const triggers = TRIGGERS_OF_EVENT[event.type];
  if (!triggers || event.dc_id === null || event.route_id === null) return false;
  const settings = await getNotificationSettings(accountId, event.dc_id);
  if (!settings?.triggers.some((trigger) => triggers.includes(trigger as NotificationTrigger))) return false;
  await send(channels.notifications, {
    account_id: accountId,
    dc_id: event.dc_id,
    route_id: event.route_id,
    event_id: event.event_id,
    event_type: event.type,
    occurred_at: event.occurred_at,
  });
  return true;
}

/** A stop an event concerns, and under which trigger. */
interface Due {
  waypointId: string;
  trigger: NotificationTrigger;
  reason?: string;
}

/** What one event means for the stops of its route. */
async function dueOf(
  message: NotificationMessage,
  details: unknown,
  route: RouteHeader,
  waypoints: ReadonlyMap<string, WaypointRow>,
): Promise<Due[]> {
  switch (message.event_type) {
    case 'ROUTE_STARTED': {
      const ids: readonly string[] =
        message.waypoint_ids ?? (details as EventDetails<'ROUTE_STARTED'>).waypoint_ids ?? route.waypointIds;
      return ids.map((waypointId) => ({ waypointId, trigger: 'ROUTE_STARTED' }));
    }
    case 'WAYPOINT_APPROACHING':
      return [
        { waypointId: (details as EventDetails<'WAYPOINT_APPROACHING'>).waypoint_id, trigger: 'APPROACHING' },
      ];
    case 'WAYPOINT_STATUS_CHANGED': {
      const visit = details as EventDetails<'WAYPOINT_STATUS_CHANGED'>;
      if (visit.status === 'SUCCESSFUL') return [{ waypointId: visit.waypoint_id, trigger: 'DELIVERED' }];
      if (visit.status !== 'FAILED') return [];
      const sequence = waypoints.get(visit.waypoint_id)?.sequence;
      const attempts =
        sequence === undefined
          ? []
          : await listAttempts(message.account_id, message.route_id, { first: sequence, last: sequence });
      const reason = attempts.find((attempt) => attempt.id === visit.attempt_id)?.reason?.message ?? '';
      return [{ waypointId: visit.waypoint_id, trigger: 'FAILED', reason }];
    }
    case 'ROUTE_ETAS_CHANGED':
      return lateStops(message, details as EventDetails<'ROUTE_ETAS_CHANGED'>, waypoints);
    default:
      return [];
  }
}

/** The stops whose new ETA passed their time window, or moved LATE_MOVE_MS later than the last message told. */
async function lateStops(
  message: NotificationMessage,
  details: EventDetails<'ROUTE_ETAS_CHANGED'>,
  waypoints: ReadonlyMap<string, WaypointRow>,
): Promise<Due[]> {
  const only = message.waypoint_ids && new Set(message.waypoint_ids);
  const etas = only ? details.etas.filter((eta) => only.has(eta.waypoint_id)) : details.etas;
  const late = await Promise.all(
    etas.map(async ({ waypoint_id: waypointId, eta_timestamp: eta }) => {
      const waypoint = waypoints.get(waypointId);
      if (!waypoint?.recipient) return undefined;
      const windowEnd = Math.max(...waypoint.timeWindows.map((window) => window.end));
      const state = await getNotifyState(message.account_id, message.route_id, waypoint.sequence);
      const pastWindow = waypoint.timeWindows.length > 0 && eta > windowEnd;
      const moved = state?.lastEta !== undefined && eta - state.lastEta >= LATE_MOVE_MS;
      // Past its window, a stop is told again only when the ETA moved on since the last message.
      const toldAlready = state?.lastEta !== undefined && state.lastEta >= eta;
      return (pastWindow && !toldAlready) || moved ? waypointId : undefined;
    }),
  );
  return late.flatMap((waypointId) => (waypointId === undefined ? [] : [{ waypointId, trigger: 'LATE' }]));
}

/** Minutes since midnight of an `HH:MM` clock. */
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** `HH:MM` in a time zone: one formatter per zone, made once (making one costs more than formatting). */
const clockIn = zonedFormatter('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** Minutes since midnight of `at` in `timeZone`. */
const minutesOfDay = (at: number, timeZone: string): number => minutesOf(clockIn(timeZone).format(at));

/** True when `at` falls within the quiet hours (`start` included, `end` not; past midnight when end < start). */
export function inQuietHours(
  at: number,
  timeZone: string,
  quiet: { start: string; end: string } | undefined,
) {
  if (!quiet) return false;
  const now = minutesOfDay(at, timeZone);
  const [start, end] = [minutesOf(quiet.start), minutesOf(quiet.end)];
  return start <= end ? now >= start && now < end : now >= start || now < end;
}

/** `14:05-14:35` in the DC's time zone. */
function windowText(eta: number, timeZone: string): string {
  const clock = clockIn(timeZone);
  const window = etaWindowOf(eta);
  return `${clock.format(window.start)}-${clock.format(window.end)}`;
}

/** A message's id: the same for the same event, trigger, channel and stop, whoever computes it. */
const notificationIdOf = (eventId: string, trigger: string, channel: string, sequence: number) =>
  createHash('sha256')
    .update(`${eventId}\n${trigger}\n${channel}\n${sequence}`)
    .digest('base64url')
    .slice(0, 22);

/** The messages one queued event causes; how many were sent. */
export async function sendNotifications(message: NotificationMessage, now = Date.now()): Promise<number> {
  const { account_id: accountId, dc_id: dcId, route_id: routeId } = message;
  const [settings, route, dc, details] = await Promise.all([
    getNotificationSettings(accountId, dcId),
    getRouteHeader(accountId, routeId),
    getDc(accountId, dcId),
    eventDetails(accountId, [message.event_id]).then((found) => found.get(message.event_id)),
  ]);
  // A route deleted (or imported again) since, an event past its retention, settings turned off: nothing.
  if (!settings || !route || route.deleting || !dc || details === undefined) return 0;
  const waypoints = new Map(
    (await listWaypointRows(accountId, routeId)).items.map((waypoint) => [waypoint.id, waypoint]),
  );
  const due = (await dueOf(message, details, route, waypoints)).filter(
    (stop) => settings.triggers.includes(stop.trigger) && waypoints.get(stop.waypointId)?.recipient,
  );
  if (due.length === 0) return 0;
  if (!message.waypoint_ids && due.length > NOTIFICATION_STOPS_PER_MESSAGE) {
    // A large event (a long route's ROUTE_STARTED) in parts, each a run of its own: one run sending to every
    // stop would outlast its timeout. A part queued twice sends nothing twice (each message has its record).
    const parts: NotificationMessage[] = [];
    for (let at = 0; at < due.length; at += NOTIFICATION_STOPS_PER_MESSAGE) {
      const waypointIds = due.slice(at, at + NOTIFICATION_STOPS_PER_MESSAGE).map((stop) => stop.waypointId);
      parts.push({ ...message, waypoint_ids: waypointIds });
    }
    await sendAll(channels.notifications, parts);
    return 0;
  }
  const [etas, driver] = await Promise.all([
    getRouteEtas(accountId, routeId),
    route.assignedDriverId ? getDriver(accountId, dcId, route.assignedDriverId) : undefined,
  ]);
  const configured = configuredChannels();
  let sent = 0;
  // A few stops at a time: each waits on KMS, DynamoDB and the provider, one after the other.
  await forEachConcurrently(due, STOPS_AT_ONCE, async (stop) => {
    const waypoint = waypoints.get(stop.waypointId);
    if (!waypoint?.recipient) return;
    const recipient = await openRecipient(accountId, routeId, waypoint.recipient);
    const eta = etas?.etas[waypoint.sequence] ?? undefined;
    for (const channel of settings.channels as NotificationChannel[]) {
      const to = channel === 'SMS' ? recipient.phone : recipient.email;
      if (to === undefined) continue;
      if (!configured[channel]) {
        logger.info('customer message not sent: the deployment has no sender for its channel', {
          account_id: accountId,
          route_id: routeId,
          channel,
        });
        continue;
      }
      const outcome = await sendOne({
        message,
        route,
        dc,
        waypoint,
        recipient,
        channel,
        stop,
        eta: eta ?? undefined,
        driverFirstName: driver ? firstNameOf(driver.name) : '',
        templates: settings.templates as MessageTemplate[],
        quietHours: settings.quietHours,
        now,
      });
      if (outcome === 'sent') sent += 1;
    }
  });
  return sent;
}

/** How many stops one run works on at once. */
const STOPS_AT_ONCE = 8;

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure, once all settled. */
async function forEachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}

interface OneMessage {
  message: NotificationMessage;
  route: RouteHeader;
  dc: Dc;
  waypoint: WaypointRow;
  recipient: Recipient;
  channel: NotificationChannel;
  stop: Due;
  eta: number | undefined;
  driverFirstName: string;
  templates: MessageTemplate[];
  quietHours: { start: string; end: string } | undefined;
  now: number;
}

/** Why a message is not sent but recorded SUPPRESSED: its address opted out of the channel, or quiet hours hold. */
async function suppressionOf(
  accountId: string,
  channel: NotificationChannel,
  address: string,
  quiet: boolean,
): Promise<'opted_out' | 'quiet_hours' | undefined> {
  if (await isOptedOut(accountId, channel, address)) return 'opted_out';
  return quiet ? 'quiet_hours' : undefined;
}

async function sendOne(one: OneMessage): Promise<'sent' | 'not_sent'> {
  const { message, route, dc, waypoint, recipient, channel, stop, eta, now } = one;
  const template = templateFor(one.templates, stop.trigger, channel, recipient.locale);
  const link = route.trackingKey
    ? trackingUrl(
        config().apiUrl,
        trackingToken(
          route.trackingKey,
          waypoint.id,
          tokenSequence(route.sequencedTokensFrom, waypoint.sequence),
        ),
      )
    : '';
  const values = {
    stop_name: waypoint.name ?? '',
    eta_window: eta === undefined ? '' : windowText(eta, dc.timeZone),
    driver_first_name: one.driverFirstName,
    tracking_link: link,
    dc_name: dc.name,
    reason: stop.reason ?? '',
  };
  const body = render(template.body, values);
  const notificationId = notificationIdOf(message.event_id, stop.trigger, channel, waypoint.sequence);
  const to = (channel === 'SMS' ? recipient.phone : recipient.email) as string;
  const suppressed = await suppressionOf(
    message.account_id,
    channel,
    to,
    inQuietHours(now, dc.timeZone, one.quietHours),
  );
  const masked = waypoint.recipient?.masked;
  const record: NotificationRecord = {
    accountId: message.account_id,
    routeId: route.routeId,
    waypointId: waypoint.id,
    waypointSequence: waypoint.sequence,
    notificationId,
    eventId: message.event_id,
    trigger: stop.trigger,
    channel,
    status: suppressed ? 'SUPPRESSED' : 'QUEUED',
    ...(suppressed ? { statusReason: suppressed, endedAt: now } : {}),
    locale: template.locale,
    to: (channel === 'SMS' ? masked?.phone : masked?.email) ?? '',
    ...(eta === undefined ? {} : { eta }),
    ...(channel === 'SMS' ? { segments: smsSize(body).segments } : {}),
    createdAt: now,
  };
  // Which accounts text a phone maps a STOP reply to them (data/sms-recipients.ts); noted before the send.
  if (channel === 'SMS' && !suppressed) await noteSmsRecipient(message.account_id, to, now);
  const written = await insertNotification(record, {
    ...(eta === undefined || suppressed ? {} : { eta }),
    ...(stop.trigger === 'LATE' ? { throttleLateSince: now - LATE_THROTTLE_MS } : {}),
  });
  const ids = { account_id: message.account_id, route_id: route.routeId, notification_id: notificationId };
  // A redelivered event finds the record, a LATE within the throttle its turn taken: neither sends again,
  // unless the record is still QUEUED long after the run that wrote it ended (it timed out before the send).
  const reclaimed =
    written === 'duplicate' &&
    !suppressed &&
    (await reclaimQueuedNotification(record, Date.now(), Date.now() - RECLAIM_AFTER_MS));
  if ((written !== 'written' && !reclaimed) || suppressed) {
    logger.info('customer message not sent', { ...ids, outcome: suppressed ?? written });
    return 'not_sent';
  }
  try {
    const providerMessageId =
      channel === 'SMS'
        ? await sendSms({ to, body, context: outcomeTags(message.account_id, notificationId) })
        : await sendEmail({
            to,
            subject: render(template.subject ?? '', values),
            body,
            ...(route.trackingKey
              ? { unsubscribeUrl: unsubscribeUrl(link, unsubscribeAddressKey(route.trackingKey, to)) }
              : {}),
            tags: outcomeTags(message.account_id, notificationId),
          });
    await markNotificationSent(record, Date.now(), providerMessageId);
    logger.info('customer message sent', { ...ids, channel, trigger: stop.trigger });
    return 'sent';
  } catch (error) {
    if (isOptedOutRefusal(error)) {
      // The number is on AWS's opt-out list (a STOP the service did not see): recorded, never retried.
      await addOptOut(message.account_id, 'SMS', to, 'provider_opt_out_list', now);
      await updateNotification(record, {
        status: 'SUPPRESSED',
        statusReason: 'opted_out',
        endedAt: Date.now(),
      });
      logger.info('customer message not sent', { ...ids, outcome: 'opted_out' });
      return 'not_sent';
    }
    // The SDK retried passing failures already: what is left is the provider's refusal.
    const reason = error instanceof Error ? error.name : 'Error';
    await updateNotification(record, { status: 'FAILED', statusReason: reason, endedAt: Date.now() });
    logger.warn('customer message failed', { ...ids, channel, reason });
    return 'not_sent';
  }
}

/** What a send carries back in its delivery events (SES EmailTags, SMS Context): the record's account and id. */
const outcomeTags = (accountId: string, notificationId: string) => ({
  account_id: accountId,
  notification_id: notificationId,
});

/** End User Messaging SMS's refusal of a number on the opt-out list. */
const isOptedOutRefusal = (error: unknown) =>
  error instanceof Error &&
  error.name === 'ConflictException' &&
  (error as { Reason?: string }).Reason === 'DESTINATION_PHONE_NUMBER_OPTED_OUT';
