import { config, perConfig } from '../shared/config';
import { RESOURCE_ENV } from '../shared/resources';

/**
 * The sender adapter of customer messages: email through Amazon SES v2 SendEmail, SMS through AWS End User
 * Messaging SMS SendTextMessage. On AWS the clients reach the services; locally their endpoints are the local
 * runtime's outbox (docs/local-runtime.md), so this code is the same in both. A channel the deployment did not
 * configure (its sender variable unset) is not sent: `configuredChannels` says which are.
 */

const theClients = /* @__PURE__ */ perConfig(() =>
  import('./messaging-clients').then((sdk) => ({
    sdk,
    ses: sdk.createSesClient(),
    sms: sdk.createSmsClient(),
  })),
);

const setting = (name: string) => config().environment[name] || undefined;

export function configuredChannels(): { EMAIL: boolean; SMS: boolean } {
  return {
    EMAIL: setting(RESOURCE_ENV.emailFrom) !== undefined,
    SMS: setting(RESOURCE_ENV.smsOriginationIdentity) !== undefined,
  };
}

export interface EmailToSend {
  to: string;
  subject: string;
  body: string;
  /**
   * RFC 8058 one-click unsubscribe: the link, sent as List-Unsubscribe with List-Unsubscribe-Post and in the
   * body's footer. Absent only for a route without tracking links (imported before them), which has no host
   * for it.
   */
  unsubscribeUrl?: string;
  /** Tags SES events carry back (the notification's id), so an outcome finds its record. */
  tags: Record<string, string>;
}

const withUnsubscribeFooter = (email: EmailToSend) =>
  email.unsubscribeUrl ? `${email.body}\n\nUnsubscribe: ${email.unsubscribeUrl}` : email.body;

/** Sends the email; the provider's message id. */
export async function sendEmail(email: EmailToSend): Promise<string> {
  const { sdk, ses } = await theClients();
  const configurationSet = setting(RESOURCE_ENV.emailConfigurationSet);
  const answer = await ses.send(
    new sdk.SendEmailCommand({
      FromEmailAddress: setting(RESOURCE_ENV.emailFrom),
      Destination: { ToAddresses: [email.to] },
      Content: {
        Simple: {
          Subject: { Data: email.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: withUnsubscribeFooter(email), Charset: 'UTF-8' } },
          ...(email.unsubscribeUrl
            ? {
                Headers: [
                  { Name: 'List-Unsubscribe', Value: `<${email.unsubscribeUrl}>` },
                  { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
                ],
              }
            : {}),
        },
      },
      ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
      EmailTags: Object.entries(email.tags).map(([Name, Value]) => ({ Name, Value })),
    }),
  );
  if (!answer.MessageId) throw new Error('SES SendEmail answered no MessageId');
  return answer.MessageId;
}

export interface SmsToSend {
  to: string;
  body: string;
  /** Carried back in delivery receipts (the notification's id). */
  context: Record<string, string>;
}

/** Sends the SMS (transactional); the provider's message id. */
export async function sendSms(sms: SmsToSend): Promise<string> {
  const { sdk, sms: client } = await theClients();
  const configurationSet = setting(RESOURCE_ENV.smsConfigurationSet);
  const answer = await client.send(
    new sdk.SendTextMessageCommand({
      DestinationPhoneNumber: sms.to,
      OriginationIdentity: setting(RESOURCE_ENV.smsOriginationIdentity),
      MessageBody: sms.body,
      MessageType: 'TRANSACTIONAL',
      ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
      Context: sms.context,
    }),
  );
  if (!answer.MessageId) throw new Error('SMS SendTextMessage answered no MessageId');
  return answer.MessageId;
}
