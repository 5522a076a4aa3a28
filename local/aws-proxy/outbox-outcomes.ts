/**
 * What happens to the outbox's messages after they are sent, as AWS's simulators make it happen: the outcome
 * events SES and End User Messaging SMS would publish to the message outcomes topic, delivered in SNS's
 * envelope (or raw, as the subscription says) to the queue the topic's subscription names
 * (channels.messageOutcomes), where the service's worker reads them as on AWS (docs/local-runtime.md, The
 * outbox). The topic is the one the template subscribes that queue to; as SNS, the outbox delivers only when
 * the queue's policy lets sns.amazonaws.com send from that topic, and logs a failed delivery otherwise.
 *
 * - Email: SES's mailbox simulator addresses (`bounce@simulator.amazonses.com`: a permanent Bounce;
 *   `complaint@simulator.amazonses.com`: a Delivery, then a Complaint; `suppressionlist@...`: a permanent
 *   Bounce, OnAccountSuppressionList); any other address gets a Delivery event.
 * - SMS: End User Messaging's destination simulator numbers of a failure (SMS_FAILURE_NUMBERS) get a
 *   TEXT_UNREACHABLE event; any other number a TEXT_DELIVERED one.
 * - Replies: `POST /_local/outbox/sms-replies` with `{from, to, body}` publishes a two-way SMS inbound message;
 *   an opt-out keyword also puts `from` on the local opt-out list, as AWS's default opt-out list does, so a
 *   later SendTextMessage to it answers ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT.
 */

import { randomUUID } from 'node:crypto';
import { SMS_OPT_OUT_KEYWORDS } from '../../functions/models/message-outcomes';
import type { Deployment, QueueSpec } from '../cloud/model';
import { servicePrincipalDecision } from '../iam/policy';
import { EmulatorQueues } from './emulator-queues';
import type { Upstream } from './upstream';

/** Destination simulator numbers that make a failure event (AWS End User Messaging SMS, Simulator phone numbers). */
export const SMS_FAILURE_NUMBERS = [
  '+61455944039',
  '+43676800442032',
  '+32460213923',
  '+56229140631',
  '+420790542287',
  '+4525919215',
  '+37282720793',
  '+3584573979111',
  '+33755512502',
  '+85257048854',
];

/** End User Messaging SMS's default opt-out keywords: the list the outcomes worker reads replies with. */
const OPT_OUT_KEYWORDS = new Set<string>(SMS_OPT_OUT_KEYWORDS);

export interface SentEmail {
  id: string;
  to: string;
  from: string;
  configurationSet: string | null;
  tags: Record<string, string>;
}

export interface SentSms {
  id: string;
  to: string;
  from: string;
  context: Record<string, string>;
}

export class OutboxOutcomes {
  private target: { queue: QueueSpec; topicArn: string; raw: boolean; allowed: boolean } | undefined;
  private region = 'us-east-1';
  private accountId = '000000000000';
  /** Phones that replied an opt-out keyword: SendTextMessage to them is refused. */
  readonly optedOutPhones = new Set<string>();

  private readonly queues: EmulatorQueues;

  constructor(fauxqs: Upstream) {
    this.queues = new EmulatorQueues(fauxqs);
  }

  /**
   * The topic the deployment subscribes `queue` to, and whether SNS could deliver there; without a
   * subscription (an app without it), outcomes are not published.
   */
  configure(deployment: Deployment, queue: QueueSpec): void {
    this.region = deployment.region;
    this.accountId = deployment.accountId;
    const subscription = deployment.topicSubscriptions.find((candidate) => candidate.queueArn === queue.arn);
    if (!subscription) {
      this.target = undefined;
      return;
    }
    const policies = deployment.queuePolicies
      .filter((policy) => policy.queueArns.includes(queue.arn))
      .map((policy) => policy.document);
    const decision = servicePrincipalDecision(
      policies,
      'sns.amazonaws.com',
      { action: 'sqs:SendMessage', resource: queue.arn },
      {
        'aws:SourceArn': subscription.topicArn,
        'aws:SourceAccount': deployment.accountId,
        'aws:SecureTransport': 'true',
      },
    );
    this.target = {
      queue,
      topicArn: subscription.topicArn,
      raw: subscription.rawMessageDelivery,
      allowed: decision === 'Allow',
    };
  }

  /** SES's events of a sent email, as its mailbox simulator makes them. */
  emailSent(email: SentEmail): void {
    const now = new Date();
    const mail = {
      timestamp: now.toISOString(),
      source: email.from,
      sourceArn: `arn:aws:ses:${this.region}:${this.accountId}:identity/${email.from.slice(email.from.lastIndexOf('@') + 1)}`,
      sendingAccountId: this.accountId,
      messageId: email.id,
      destination: [email.to],
      headersTruncated: false,
      tags: {
        ...(email.configurationSet ? { 'ses:configuration-set': [email.configurationSet] } : {}),
        ...Object.fromEntries(Object.entries(email.tags).map(([name, value]) => [name, [value]])),
      },
    };
    const at = new Date(now.getTime() + 1).toISOString();
    const delivery = {
      eventType: 'Delivery',
      mail,
      delivery: {
        timestamp: at,
        processingTimeMillis: 1,
        recipients: [email.to],
        smtpResponse: '250 2.6.0 Message received',
        reportingMTA: 'a8-70.smtp-out.amazonses.com',
      },
    };
    const bounce = (subType: string, status: string) => ({
      eventType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: subType,
        bouncedRecipients: [
          {
            emailAddress: email.to,
            action: 'failed',
            status,
            diagnosticCode: `smtp; 550 ${status} user unknown`,
          },
        ],
        timestamp: at,
        feedbackId: `local-${randomUUID()}`,
        reportingMTA: 'dsn; a8-70.smtp-out.amazonses.com',
      },
    });
    const to = email.to.toLowerCase();
    const events =
      to === 'bounce@simulator.amazonses.com'
        ? [bounce('General', '5.1.1')]
        : to === 'suppressionlist@simulator.amazonses.com'
          ? [bounce('OnAccountSuppressionList', '5.1.1')]
          : to === 'complaint@simulator.amazonses.com'
            ? [
                delivery,
                {
                  eventType: 'Complaint',
                  mail,
                  complaint: {
                    complainedRecipients: [{ emailAddress: email.to }],
                    timestamp: at,
                    feedbackId: `local-${randomUUID()}`,
                    complaintFeedbackType: 'abuse',
                  },
                },
              ]
            : [delivery];
    this.publishAll(events);
  }

  /** End User Messaging SMS's event of a sent text, as its simulator numbers make it. */
  smsSent(sms: SentSms): void {
    const failed = SMS_FAILURE_NUMBERS.includes(sms.to);
    const now = Date.now();
    this.publishAll([
      {
        eventType: failed ? 'TEXT_UNREACHABLE' : 'TEXT_DELIVERED',
        eventVersion: '1.0',
        eventTimestamp: now + 1,
        isFinal: true,
        originationPhoneNumber: sms.from,
        destinationPhoneNumber: sms.to,
        messageId: sms.id,
        messageRequestTimestamp: now,
        messageEncoding: 'GSM',
        messageType: 'TRANSACTIONAL',
        messageStatus: failed ? 'UNREACHABLE' : 'DELIVERED',
        messageStatusDescription: failed
          ? 'The recipient’s device is unreachable'
          : 'Message has been delivered to the recipient',
        context: sms.context,
        totalMessageParts: 1,
      },
    ]);
  }

  /** A customer's reply, as two-way SMS publishes it; an opt-out keyword puts `from` on the opt-out list. */
  async smsReply(reply: { from: string; to: string; body: string }): Promise<void> {
    if (OPT_OUT_KEYWORDS.has(reply.body.trim().toUpperCase())) this.optedOutPhones.add(reply.from);
    await this.publish({
      originationNumber: reply.from,
      destinationNumber: reply.to,
      messageKeyword: reply.body.trim().split(/\s+/)[0]?.toUpperCase() ?? '',
      messageBody: reply.body,
      inboundMessageId: randomUUID(),
      previousPublishedMessageId: '',
    });
  }

  private publishAll(events: object[]): void {
    // After the call is answered, as AWS publishes them; in order.
    void events
      .reduce<Promise<void>>((previous, event) => previous.then(() => this.publish(event)), Promise.resolve())
      .catch((error: unknown) => console.error('local outbox: publishing an outcome failed', error));
  }

  private async publish(message: object): Promise<void> {
    const target = this.target;
    if (!target) return;
    if (!target.allowed) {
      // SNS's delivery fails the same way: the queue's policy does not let the topic send.
      console.error(
        `local outbox: SNS cannot deliver to ${target.queue.name}: its policy does not let ${target.topicArn} send`,
      );
      return;
    }
    const body = target.raw
      ? JSON.stringify(message)
      : JSON.stringify({
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: target.topicArn,
          Message: JSON.stringify(message),
          Timestamp: new Date().toISOString(),
          SignatureVersion: '1',
          Signature: 'local',
          SigningCertURL: 'https://sns.local/SimpleNotificationService.pem',
          UnsubscribeURL: 'https://sns.local/?Action=Unsubscribe',
        });
    await this.queues.send(target.queue, body);
  }
}
