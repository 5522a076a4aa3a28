/**
 * What the providers tell about customer messages after they were sent, read from the JSON they publish to
 * the service's outcomes topic (lib/constructs/message-outcomes.ts): Amazon SES's event publishing records
 * (`eventType` Delivery, Bounce, Complaint, Reject, Rendering Failure, ...), End User Messaging SMS's event
 * records (`eventType` TEXT_DELIVERED, TEXT_BLOCKED, ...) and its two-way SMS inbound messages (a customer's
 * reply, `originationNumber` and `messageBody`). Shapes as AWS documents them:
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html,
 * https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-types.html and
 * https://docs.aws.amazon.com/sms-voice/latest/userguide/two-way-sms-payload.html
 * (test/fixtures/aws/README.md says no capture of them is kept).
 *
 * A model module: pure, no I/O; domain/message-outcomes.ts applies what it reads.
 */

/** The record a send tagged (SES EmailTags, SMS Context): its account and the message's id. */
export interface MessageRef {
  accountId: string;
  notificationId: string;
}

export type MessageOutcome =
  /** The message's final status, with the provider's words (no addresses) and when it happened. */
  | {
      kind: 'ended';
      channel: 'EMAIL' | 'SMS';
      ref: MessageRef;
      status: 'DELIVERED' | 'BOUNCED' | 'FAILED';
      reason?: string;
      at: number;
      /** A complaint: the address that complained, to record its opt-out. */
      complainedBy?: string;
    }
  /** A customer replied STOP (or another opt-out keyword) from `phone` to the deployment's number. */
  | { kind: 'smsOptOut'; phone: string; at: number }
  /** Anything else: a Send or Open event, a message still on its way, another reply, SES's setup message. */
  | { kind: 'ignored'; what: string };

/** The keywords End User Messaging SMS takes as an opt-out by default (case-insensitive, the whole message). */
export const SMS_OPT_OUT_KEYWORDS = [
  'ARRET',
  'CANCEL',
  'END',
  'OPT-OUT',
  'OPTOUT',
  'QUIT',
  'REMOVE',
  'STOP',
  'STOPALL',
  'UNSUBSCRIBE',
] as const;

/** The SMS event types that end a message undelivered. */
const SMS_FAILURES = new Set([
  'TEXT_BLOCKED',
  'TEXT_TTL_EXPIRED',
  'TEXT_CARRIER_UNREACHABLE',
  'TEXT_INVALID',
  'TEXT_INVALID_MESSAGE',
  'TEXT_CARRIER_BLOCKED',
  'TEXT_UNREACHABLE',
  'TEXT_SPAM',
  'TEXT_UNKNOWN',
  'TEXT_PROTECT_BLOCKED',
]);
/** TEXT_SUCCESSFUL (the carrier accepted it) stands for delivery where the country reports no more. */
const SMS_DELIVERED = new Set(['TEXT_DELIVERED', 'TEXT_SUCCESSFUL']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** An ISO time as epoch ms, or `fallback`. */
const timeOf = (value: unknown, fallback: number) => {
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(at) ? at : fallback;
};
/** Anything that looks like an email address or a phone number taken out of a provider's words. */
export const withoutAddresses = (words: string) =>
  words
    .replace(/<?[^\s<>@]+@[^\s<>@]+>?/g, '<address>')
    .replace(/\+?\d[\d\s-]{7,}\d/g, '<number>')
    .slice(0, 200);

/** The first value of a tag, as SES gives tags (`{name: [value]}`); SMS context values are plain strings. */
const tagOf = (tags: unknown, name: string): string | undefined => {
  if (!isObject(tags)) return undefined;
  const value = tags[name];
  return Array.isArray(value) ? text(value[0]) : text(value);
};
const refOf = (tags: unknown): MessageRef | undefined => {
  const accountId = tagOf(tags, 'account_id');
  const notificationId = tagOf(tags, 'notification_id');
  return accountId && notificationId ? { accountId, notificationId } : undefined;
};

/** What one message of the outcomes topic (its SNS `Message`) tells; `now` stands in for a missing time. */
export function readMessageOutcome(message: string, now: number): MessageOutcome {
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    // SES publishes "Successfully validated SNS topic for Amazon SES event publishing." when set up.
    return { kind: 'ignored', what: 'a message that is no JSON' };
  }
  if (!isObject(body)) return { kind: 'ignored', what: 'a message that is no JSON object' };
  if (isObject(body.mail) && typeof body.eventType === 'string') return sesOutcome(body, now);
  if (typeof body.eventType === 'string' && body.eventType.startsWith('TEXT_')) return smsOutcome(body, now);
  if (typeof body.originationNumber === 'string' && typeof body.messageBody === 'string') {
    const keyword = body.messageBody.trim().toUpperCase();
    return (SMS_OPT_OUT_KEYWORDS as readonly string[]).includes(keyword)
      ? { kind: 'smsOptOut', phone: body.originationNumber, at: now }
      : { kind: 'ignored', what: 'an SMS reply that is no opt-out keyword' };
  }
  return { kind: 'ignored', what: 'a message of no known shape' };
}

function sesOutcome(event: Json, now: number): MessageOutcome {
  const type = event.eventType as string;
  const mail = event.mail as Json;
  const ref = refOf(mail.tags);
  if (!ref) return { kind: 'ignored', what: `an SES ${type} event without the service's tags` };
  const ended = (status: 'DELIVERED' | 'BOUNCED' | 'FAILED', details: unknown, reason?: string) =>
    ({
      kind: 'ended',
      channel: 'EMAIL',
      ref,
      status,
      ...(reason === undefined ? {} : { reason: withoutAddresses(reason) }),
      at: timeOf(isObject(details) ? details.timestamp : undefined, timeOf(mail.timestamp, now)),
    }) as const;
  switch (type) {
    case 'Delivery':
      return ended('DELIVERED', event.delivery);
    case 'Bounce': {
      const bounce = isObject(event.bounce) ? event.bounce : {};
      const kind = text(bounce.bounceType) ?? 'Undetermined';
      const recipients = Array.isArray(bounce.bouncedRecipients) ? bounce.bouncedRecipients : [];
      const status = recipients.map((r) => (isObject(r) ? text(r.status) : undefined)).find(Boolean);
      const reason = [`${kind}/${text(bounce.bounceSubType) ?? 'General'}`, status].filter(Boolean).join(' ');
      // A transient bounce is a delivery SES gave up on, which may work another day: FAILED, not BOUNCED.
      return ended(kind === 'Transient' ? 'FAILED' : 'BOUNCED', bounce, reason);
    }
    case 'Complaint': {
      const complaint = isObject(event.complaint) ? event.complaint : {};
      const feedback = text(complaint.complaintFeedbackType);
      const destination = Array.isArray(mail.destination) ? text(mail.destination[0]) : undefined;
      return {
        ...ended('BOUNCED', complaint, feedback ? `complaint: ${feedback}` : 'complaint'),
        ...(destination ? { complainedBy: destination } : {}),
      };
    }
    case 'Reject': {
      const reject = isObject(event.reject) ? event.reject : {};
      return ended('FAILED', reject, `rejected: ${text(reject.reason) ?? 'unknown'}`);
    }
    case 'Rendering Failure':
    case 'RenderingFailure':
      return ended('FAILED', event.failure, 'rendering failure');
    default:
      // Send, DeliveryDelay (SES still tries), Open, Click, Subscription: nothing final.
      return { kind: 'ignored', what: `an SES ${type} event` };
  }
}

function smsOutcome(event: Json, now: number): MessageOutcome {
  const type = event.eventType as string;
  const ref = refOf(event.context);
  if (!ref) return { kind: 'ignored', what: `an SMS ${type} event without the service's context` };
  const at = typeof event.eventTimestamp === 'number' ? event.eventTimestamp : now;
  if (SMS_DELIVERED.has(type)) return { kind: 'ended', channel: 'SMS', ref, status: 'DELIVERED', at };
  // An event that says more may come (isFinal false) ends nothing yet.
  if (SMS_FAILURES.has(type) && event.isFinal !== false) {
    const words = [text(event.messageStatus) ?? type, text(event.messageStatusDescription)].filter(Boolean);
    return {
      kind: 'ended',
      channel: 'SMS',
      ref,
      status: 'FAILED',
      reason: withoutAddresses(words.join(': ')),
      at,
    };
  }
  return { kind: 'ignored', what: `an SMS ${type} event` };
}
