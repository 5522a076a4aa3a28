import { endNotification, findNotification, type NotificationRecord } from '../data/notifications';
import { addOptOut } from '../data/opt-outs';
import { getRouteHeader } from '../data/routes';
import { accountsThatTexted } from '../data/sms-recipients';
import { type MessageOutcome, readMessageOutcome } from '../models/message-outcomes';
import { logger } from '../shared/observability';

/**
 * Delivery outcomes and replies of customer messages (docs/api.md, Customer notifications): what SES and End
 * User Messaging SMS publish after a send, read by models/message-outcomes.ts, applied to the message's record.
 * A final status never goes back (data/notifications.ts ENDS_FROM: a DELIVERED after a bounce changes nothing);
 * a message that ends BOUNCED or FAILED raises NOTIFICATION_FAILED in the same write. An outcome that names no
 * message of its account is dropped with a log line: it may be another deployment's, or of a route deleted since.
 */

/** Attempts at the write when other events of the route take its next sequence first. */
const MAX_EVENT_ATTEMPTS = 5;

/** Applies one message of the outcomes topic; what it did, for the log. */
export async function applyMessageOutcome(message: string, now = Date.now()): Promise<string> {
  const outcome = readMessageOutcome(message, now);
  switch (outcome.kind) {
    case 'ignored':
      return `ignored: ${outcome.what}`;
    case 'smsOptOut':
      return recordSmsOptOut(outcome.phone, outcome.at);
    case 'ended':
      return endMessage(outcome);
  }
}

/**
 * A STOP reply names the customer's phone and the deployment's origination number, which every account of the
 * deployment sends from: the opt-out is recorded for every account that texted that phone (as AWS's own
 * opt-out list, which the reply also joins, stops every message from that number).
 */
async function recordSmsOptOut(phone: string, at: number): Promise<string> {
  const accounts = await accountsThatTexted(phone);
  await Promise.all(accounts.map((accountId) => addOptOut(accountId, 'SMS', phone, 'stop_reply', at)));
  return `sms opt-out recorded for ${accounts.length} account(s)`;
}

async function endMessage(outcome: Extract<MessageOutcome, { kind: 'ended' }>): Promise<string> {
  const { ref } = outcome;
  const record = await findNotification(ref.accountId, ref.notificationId);
  if (!record || record.channel !== outcome.channel) {
    logger.warn('message outcome dropped: no such message of its account', {
      account_id: ref.accountId,
      notification_id: ref.notificationId,
      channel: outcome.channel,
    });
    return 'dropped: unknown message';
  }
  if (outcome.complainedBy) {
    await addOptOut(ref.accountId, 'EMAIL', outcome.complainedBy, 'complaint', outcome.at);
  }
  const end = {
    status: outcome.status,
    ...(outcome.reason === undefined ? {} : { statusReason: outcome.reason }),
    endedAt: outcome.at,
  };
  for (let attempt = 1; attempt <= MAX_EVENT_ATTEMPTS; attempt++) {
    const event = outcome.status === 'DELIVERED' ? undefined : await failedEvent(record, outcome);
    if (event === null) return 'dropped: the route is gone';
    const written = await endNotification(record, end, event);
    if (written === 'ended') return `${record.status} -> ${outcome.status}`;
    if (written === 'stale') return `stale: ${outcome.status} would not move ${record.status} on`;
  }
  throw new Error('other events of the route kept taking its next sequence');
}

/** NOTIFICATION_FAILED for the message; null when its route is gone (or going). */
async function failedEvent(record: NotificationRecord, outcome: Extract<MessageOutcome, { kind: 'ended' }>) {
  const route = await getRouteHeader(record.accountId, record.routeId);
  if (!route || route.deleting) return null;
  return {
    accountId: record.accountId,
    dcId: route.dcId,
    routeId: record.routeId,
    type: 'NOTIFICATION_FAILED' as const,
    details: {
      waypoint_id: record.waypointId,
      notification_id: record.notificationId,
      trigger: record.trigger,
      channel: outcome.channel,
      to: record.to,
      status: outcome.status as 'BOUNCED' | 'FAILED',
      reason: outcome.reason ?? '',
    },
    occurredAt: outcome.at,
  };
}
