/**
 * The local outbox: what the local AWS endpoint does with customer messages instead of sending them. The
 * notifications worker's SES v2 client (`SendEmail`, REST JSON: `POST /v2/email/outbound-emails`, signed for
 * `ses`) and End User Messaging SMS client (`SendTextMessage`, JSON 1.0: `X-Amz-Target:
 * PinpointSMSVoiceV2.SendTextMessage`, signed for `sms-voice`) reach this endpoint through their
 * AWS_ENDPOINT_URL_* variables; each call is authorized as IAM would (ses:SendEmail on the From address's
 * domain identity and the configuration set; sms-voice:SendTextMessage on the origination identity and the
 * configuration set), answered with a MessageId, kept in the outbox (newest last) and printed as one line.
 * `GET /_local/outbox` on the local API lists it (docs/local-runtime.md, The outbox).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { check } from '../iam/actions';
import type { OutboxOutcomes } from './outbox-outcomes';
import { authorize, type SignedCall, signedBody } from './principals';
import { readBody, sendJson } from './upstream';

export interface OutboxMessage {
  /** The provider's MessageId the call was answered with. */
  id: string;
  channel: 'EMAIL' | 'SMS';
  to: string;
  from: string;
  subject: string | null;
  body: string;
  /** EMAIL: the headers the call set (Content.Simple.Headers). */
  headers: Record<string, string>;
  configuration_set: string | null;
  /** EMAIL's tags, SMS's context: what delivery events carry back. */
  tags: Record<string, string>;
  sent_at: number;
}

/** Newest last; the oldest go beyond this many. */
const OUTBOX_MESSAGES = 1000;

export class Outbox {
  readonly messages: OutboxMessage[] = [];

  /** What AWS's simulators would publish about each message (outbox-outcomes.ts). */
  constructor(readonly outcomes: OutboxOutcomes) {}

  add(message: OutboxMessage): void {
    this.messages.push(message);
    if (this.messages.length > OUTBOX_MESSAGES) this.messages.shift();
    const about = message.subject === null ? message.body : message.subject;
    console.log(`outbox: ${message.channel} to ${message.to}: ${about.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
}

type Input = Record<string, unknown>;

const MAX_REQUEST_BYTES = 1024 * 1024;

/** The error both services' JSON protocols answer (`__type` and x-amzn-ErrorType). */
function fail(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-ErrorType': type });
  res.end(JSON.stringify({ __type: type, message }));
}

async function jsonBody(call: SignedCall): Promise<Input | undefined> {
  // Errors of the signature in the shape of KMS's JSON protocol, which both clients read.
  const body = await signedBody('kms', call, MAX_REQUEST_BYTES);
  if (!body) return undefined;
  try {
    const input = JSON.parse(body.toString('utf8')) as unknown;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('not an object');
    return input as Input;
  } catch {
    fail(call.res, 400, 'SerializationException', 'the body is no JSON object');
    return undefined;
  }
}

const arnOf = (call: SignedCall, service: string, resource: string) =>
  `arn:aws:${service}:${call.scope.region}:${call.scope.accountId}:${resource}`;

/**
 * What a send is authorized against: `action` on the sender's identity, and on the configuration set the input
 * names, if it names one (`configurationSet`, else null).
 */
function sendChecks(call: SignedCall, input: Input, action: string, identityArn: string) {
  const configurationSet = typeof input.ConfigurationSetName === 'string' ? input.ConfigurationSetName : null;
  const service = action.slice(0, action.indexOf(':'));
  const checks = [
    check(action, identityArn),
    ...(configurationSet
      ? [check(action, arnOf(call, service, `configuration-set/${configurationSet}`))]
      : []),
  ];
  return { configurationSet, checks };
}

/** SES v2 SendEmail (Simple content only). */
export async function handleSes(call: SignedCall, outbox: Outbox): Promise<void> {
  if (call.req.method !== 'POST' || call.rawPath !== '/v2/email/outbound-emails') {
    call.req.resume();
    fail(call.res, 404, 'NotFoundException', `the local outbox serves SendEmail only, not ${call.rawPath}`);
    return;
  }
  const input = await jsonBody(call);
  if (!input) return;
  const from = typeof input.FromEmailAddress === 'string' ? input.FromEmailAddress : '';
  const to = ((input.Destination as Input | undefined)?.ToAddresses as string[] | undefined) ?? [];
  const simple = (input.Content as Input | undefined)?.Simple as Input | undefined;
  if (!from.includes('@') || to.length !== 1 || !simple) {
    fail(
      call.res,
      400,
      'BadRequestException',
      'FromEmailAddress, one ToAddresses and Content.Simple are required',
    );
    return;
  }
  const identityArn = arnOf(call, 'ses', `identity/${from.slice(from.lastIndexOf('@') + 1)}`);
  const { configurationSet, checks } = sendChecks(call, input, 'ses:SendEmail', identityArn);
  if (!authorize('kms', call, checks)) return;
  const id = `local-${randomUUID()}`;
  outbox.add({
    id,
    channel: 'EMAIL',
    to: to[0] as string,
    from,
    subject: String((simple.Subject as Input | undefined)?.Data ?? ''),
    body: String(((simple.Body as Input | undefined)?.Text as Input | undefined)?.Data ?? ''),
    headers: Object.fromEntries(
      ((simple.Headers as { Name: string; Value: string }[] | undefined) ?? []).map((h) => [h.Name, h.Value]),
    ),
    configuration_set: configurationSet,
    tags: Object.fromEntries(
      ((input.EmailTags as { Name: string; Value: string }[] | undefined) ?? []).map((t) => [
        t.Name,
        t.Value,
      ]),
    ),
    sent_at: Date.now(),
  });
  sendJson(call.res, 200, { MessageId: id });
  const sent = outbox.messages[outbox.messages.length - 1] as OutboxMessage;
  outbox.outcomes.emailSent({
    id,
    to: sent.to,
    from,
    configurationSet,
    tags: sent.tags,
  });
}

/** End User Messaging SMS SendTextMessage. */
export async function handleSms(call: SignedCall, outbox: Outbox): Promise<void> {
  const target = String(call.req.headers['x-amz-target'] ?? '');
  if (target !== 'PinpointSMSVoiceV2.SendTextMessage') {
    call.req.resume();
    fail(
      call.res,
      400,
      'UnknownOperationException',
      `the local outbox serves SendTextMessage only, not ${target}`,
    );
    return;
  }
  const input = await jsonBody(call);
  if (!input) return;
  const { DestinationPhoneNumber: to, OriginationIdentity: origination, MessageBody: body } = input;
  if (typeof to !== 'string' || !/^\+[1-9]\d{1,14}$/.test(to) || typeof origination !== 'string') {
    fail(
      call.res,
      400,
      'ValidationException',
      'DestinationPhoneNumber (E.164) and OriginationIdentity are required',
    );
    return;
  }
  const identityArn = origination.startsWith('arn:')
    ? origination
    : arnOf(
        call,
        'sms-voice',
        origination.startsWith('pool-') ? `pool/${origination}` : `phone-number/${origination}`,
      );
  const { configurationSet, checks } = sendChecks(call, input, 'sms-voice:SendTextMessage', identityArn);
  if (!authorize('kms', call, checks)) return;
  if (outbox.outcomes.optedOutPhones.has(to)) {
    // As End User Messaging answers a number on the configuration's opt-out list.
    call.res.writeHead(400, { 'content-type': 'application/json', 'x-amzn-ErrorType': 'ConflictException' });
    call.res.end(
      JSON.stringify({
        __type: 'ConflictException',
        Message: 'The destination phone number is opted out',
        Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT',
        ResourceType: 'opt-out-list',
        ResourceId: 'Default',
      }),
    );
    return;
  }
  const id = `local-${randomUUID()}`;
  const context = (input.Context as Record<string, string> | undefined) ?? {};
  outbox.add({
    id,
    channel: 'SMS',
    to,
    from: origination,
    subject: null,
    body: typeof body === 'string' ? body : '',
    headers: {},
    configuration_set: configurationSet,
    tags: context,
    sent_at: Date.now(),
  });
  sendJson(call.res, 200, { MessageId: id });
  outbox.outcomes.smsSent({ id, to, from: origination, context });
}

/**
 * The outbox's routes on the local API (`/_local/outbox...`): true when `path` was one of them and is answered.
 * `GET /_local/outbox` lists every message, newest last; `POST /_local/outbox/sms-replies` with
 * `{from, to, body}` (E.164 numbers) stands for a customer's SMS reply (outbox-outcomes.ts).
 */
export function serveOutbox(
  method: string,
  path: string,
  res: ServerResponse,
  outbox: Outbox,
  req?: IncomingMessage,
): boolean {
  if (path === '/_local/outbox/sms-replies') {
    if (method !== 'POST' || !req) {
      req?.resume();
      sendJson(res, 405, { message: '/_local/outbox/sms-replies takes POST' });
      return true;
    }
    void receiveSmsReply(req, res, outbox);
    return true;
  }
  if (path !== '/_local/outbox') return false;
  req?.resume();
  if (method !== 'GET') sendJson(res, 405, { message: '/_local/outbox takes GET' });
  else sendJson(res, 200, { messages: outbox.messages });
  return true;
}

const E164 = /^\+[1-9]\d{1,14}$/;

async function receiveSmsReply(req: IncomingMessage, res: ServerResponse, outbox: Outbox): Promise<void> {
  try {
    const input = JSON.parse((await readBody(req, 64 * 1024)).toString('utf8')) as Record<string, unknown>;
    const { from, to, body } = input ?? {};
    if (typeof from !== 'string' || !E164.test(from) || typeof to !== 'string' || typeof body !== 'string') {
      sendJson(res, 400, { message: 'from (E.164), to and body (strings) are required' });
      return;
    }
    await outbox.outcomes.smsReply({ from, to, body });
    sendJson(res, 202, { published: true });
  } catch (error) {
    sendJson(res, 400, { message: `the reply was not published: ${(error as Error).message}` });
  }
}
