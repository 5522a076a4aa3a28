import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { awsClientOptions } from '../shared/config';
import { traceAwsClient } from '../shared/observability';

/**
 * The SES v2 and End User Messaging SMS clients and the only commands the service sends: message-sender.ts
 * loads this module with `import()`, so only the notifications worker bundles them. Their endpoints come from
 * AWS_ENDPOINT_URL_SESV2 and AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2 locally (the local outbox), never from code.
 */
export { SendEmailCommand, SendTextMessageCommand };

export const createSesClient = () => traceAwsClient(new SESv2Client(awsClientOptions('SESV2')));
export const createSmsClient = () =>
  traceAwsClient(new PinpointSMSVoiceV2Client(awsClientOptions('PINPOINT_SMS_VOICE_V2')));
