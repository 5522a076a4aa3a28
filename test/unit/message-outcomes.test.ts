import { describe, expect, it } from 'vitest';
import { readMessageOutcome } from '../../functions/models/message-outcomes';

/**
 * Reading what SES and End User Messaging SMS publish (models/message-outcomes.ts). The records are built from
 * the shapes AWS documents (test/fixtures/aws/README.md: no capture of them is kept).
 */

const NOW = 1_795_438_800_000;
const tags = {
  'ses:configuration-set': ['customer-messages'],
  account_id: ['acc_1'],
  notification_id: ['n-1'],
};
const mail = {
  timestamp: '2026-11-29T10:00:00.000Z',
  source: 'Acme <deliveries@acme.example>',
  messageId: '0100018c-example',
  destination: ['dana@example.com'],
  tags,
};
const ref = { accountId: 'acc_1', notificationId: 'n-1' };
const read = (record: unknown) => readMessageOutcome(JSON.stringify(record), NOW);

describe('readMessageOutcome, SES events', () => {
  it('reads a Delivery as DELIVERED at its time', () => {
    expect(
      read({
        eventType: 'Delivery',
        mail,
        delivery: { timestamp: '2026-11-29T10:00:01.500Z', recipients: [] },
      }),
    ).toEqual({
      kind: 'ended',
      channel: 'EMAIL',
      ref,
      status: 'DELIVERED',
      at: Date.parse('2026-11-29T10:00:01.500Z'),
    });
  });

  it('reads a permanent Bounce as BOUNCED with its type and status code, never the address', () => {
    const outcome = read({
      eventType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [
          {
            emailAddress: 'dana@example.com',
            status: '5.1.1',
            diagnosticCode: 'smtp; 550 <dana@example.com>',
          },
        ],
        timestamp: '2026-11-29T10:00:02.000Z',
      },
    });
    expect(outcome).toMatchObject({ kind: 'ended', status: 'BOUNCED', reason: 'Permanent/General 5.1.1' });
    expect(JSON.stringify(outcome)).not.toContain('dana');
  });

  it('reads a transient Bounce as FAILED', () => {
    expect(
      read({ eventType: 'Bounce', mail, bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull' } }),
    ).toMatchObject({ status: 'FAILED', reason: 'Transient/MailboxFull' });
  });

  it('reads a Complaint as BOUNCED, naming who complained so that an opt-out is recorded', () => {
    expect(
      read({
        eventType: 'Complaint',
        mail,
        complaint: { complaintFeedbackType: 'abuse', timestamp: mail.timestamp },
      }),
    ).toMatchObject({ status: 'BOUNCED', reason: 'complaint: abuse', complainedBy: 'dana@example.com' });
  });

  it('reads a Reject and a Rendering Failure as FAILED', () => {
    expect(read({ eventType: 'Reject', mail, reject: { reason: 'Bad content' } })).toMatchObject({
      status: 'FAILED',
      reason: 'rejected: Bad content',
    });
    expect(read({ eventType: 'Rendering Failure', mail, failure: {} })).toMatchObject({ status: 'FAILED' });
  });

  it('ignores Send, DeliveryDelay and Open, events without the service’s tags, and SES’s setup message', () => {
    for (const eventType of ['Send', 'DeliveryDelay', 'Open'])
      expect(read({ eventType, mail }).kind).toBe('ignored');
    expect(read({ eventType: 'Delivery', mail: { ...mail, tags: {} } }).kind).toBe('ignored');
    expect(
      readMessageOutcome('Successfully validated SNS topic for Amazon SES event publishing.', NOW).kind,
    ).toBe('ignored');
  });
});

describe('readMessageOutcome, SMS events and replies', () => {
  const sms = (eventType: string, more: Record<string, unknown> = {}) => ({
    eventType,
    eventVersion: '1.0',
    eventTimestamp: NOW + 5,
    isFinal: true,
    originationPhoneNumber: '+12065550152',
    destinationPhoneNumber: '+14255550156',
    messageId: '862a8790-example',
    messageStatus: eventType.replace('TEXT_', ''),
    messageStatusDescription: 'Message has been accepted by phone carrier',
    context: { account_id: 'acc_1', notification_id: 'n-1' },
    ...more,
  });

  it('reads TEXT_DELIVERED and TEXT_SUCCESSFUL as DELIVERED at the event’s time', () => {
    for (const type of ['TEXT_DELIVERED', 'TEXT_SUCCESSFUL'])
      expect(read(sms(type))).toEqual({
        kind: 'ended',
        channel: 'SMS',
        ref,
        status: 'DELIVERED',
        at: NOW + 5,
      });
  });

  it('reads the failures as FAILED with the provider’s words', () => {
    for (const type of [
      'TEXT_BLOCKED',
      'TEXT_CARRIER_UNREACHABLE',
      'TEXT_INVALID',
      'TEXT_SPAM',
      'TEXT_TTL_EXPIRED',
      'TEXT_UNREACHABLE',
    ])
      expect(read(sms(type, { messageStatusDescription: 'No route' }))).toMatchObject({
        status: 'FAILED',
        reason: `${type.replace('TEXT_', '')}: No route`,
      });
  });

  it('ignores queued, pending and non-final events, and events without the service’s context', () => {
    expect(read(sms('TEXT_QUEUED')).kind).toBe('ignored');
    expect(read(sms('TEXT_PENDING')).kind).toBe('ignored');
    expect(read(sms('TEXT_CARRIER_UNREACHABLE', { isFinal: false })).kind).toBe('ignored');
    expect(read(sms('TEXT_DELIVERED', { context: {} })).kind).toBe('ignored');
  });

  it('reads a STOP reply (any case, any default opt-out keyword) as an opt-out of the replying phone', () => {
    const reply = (messageBody: string) => ({
      originationNumber: '+14255550182',
      destinationNumber: '+12125550101',
      messageKeyword: 'KEYWORD_123456789012',
      messageBody,
      inboundMessageId: 'cae173d2-example',
      previousPublishedMessageId: 'wJalrXUtnFEMI-example',
    });
    expect(read(reply(' stop '))).toEqual({ kind: 'smsOptOut', phone: '+14255550182', at: NOW });
    expect(read(reply('UNSUBSCRIBE')).kind).toBe('smsOptOut');
    expect(read(reply('Thanks, see you at 3')).kind).toBe('ignored');
  });
});

describe('the opt-out store’s address normal form', () => {
  it('hashes an email trimmed and lower-cased, a phone in E.164 without separators', async () => {
    const { normalizedAddress } = await import('../../functions/data/opt-outs');
    expect(normalizedAddress('EMAIL', '  Dana.Customer@Example.COM ')).toBe('dana.customer@example.com');
    expect(normalizedAddress('SMS', '+1 (415) 555-0123')).toBe('+14155550123');
    expect(normalizedAddress('SMS', '0044 20 7946 0958')).toBe('+442079460958');
  });

  it('takes no address out of a provider’s words but leaves status codes', async () => {
    const { withoutAddresses } = await import('../../functions/models/message-outcomes');
    expect(withoutAddresses('smtp; 550 5.1.1 <dana@example.com>: user unknown')).toBe(
      'smtp; 550 5.1.1 <address>: user unknown',
    );
    expect(withoutAddresses('blocked for +1 415 555 0123')).toBe('blocked for <number>');
  });
});
