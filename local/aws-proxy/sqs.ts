/**
 * SQS (AWS JSON 1.0 protocol, `X-Amz-Target: AmazonSQS.<Operation>`, what SDK v3 speaks) through the proxy:
 * signature, IAM, the limits fauxqs does not enforce as AWS does, then fauxqs.
 *
 * Limits enforced here (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html):
 * - a message's size (body + attribute names, types and values) <= the queue's MaximumMessageSize;
 * - a SendMessageBatch's total size <= 1 MiB (BatchRequestTooLong) and <= 10 entries in every batch call
 *   (TooManyEntriesInBatchRequest);
 * - DelaySeconds 0..900;
 * - the characters AWS allows, astral ones included (see sqs-messages.ts for how fauxqs carries those).
 *
 * Queue URLs: fauxqs finds a queue by the exact URL string it made at CreateQueue
 * (`http://sqs.<region>.localhost:<port>/<account>/<name>`). Clients see every queue at
 * `<proxy endpoint>/<account>/<name>` instead: the proxy rewrites the URLs in CreateQueue, GetQueueUrl,
 * ListQueues and ListDeadLetterSourceQueues responses, and turns any QueueUrl back into fauxqs' own (asking
 * fauxqs by name once per queue) before forwarding.
 */
import type { IncomingMessage } from 'node:http';
import { queueUrlParts, sqsChecks } from '../iam/actions';
import { type ServiceError, sendError, sqsError, validationError } from './errors';
import { authorize, operationChecks, type SignedCall, signedBody } from './principals';
import {
  hasInvalidCharacters,
  INVALID_CONTENTS_MESSAGE,
  type MessageAttributes,
  MessageTranslator,
  md5Hex,
  md5OfAttributes,
  messageSize,
  type OutgoingMessage,
  type ReceivedMessage,
} from './sqs-messages';
import { endToEndHeaders, readBody, relay, replyWith, sendJson, type Upstream } from './upstream';

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_ENTRIES = 10;
/** AWS's limit on a SendMessageBatch's total payload: 1 MiB, like the largest single message. */
const MAX_BATCH_BYTES = 1_048_576;
const MAX_DELAY_SECONDS = 900;
const QUERY_PROTOCOL_UNSUPPORTED =
  "The local AWS endpoint speaks SQS's AWS JSON 1.0 protocol (X-Amz-Target: AmazonSQS.<Operation>), as AWS SDK v3 does; the query protocol is not supported locally.";
/** Operations whose responses carry queue URLs. */
const URL_RESPONSES = new Set(['CreateQueue', 'GetQueueUrl', 'ListQueues', 'ListDeadLetterSourceQueues']);
/** How long a queue's MaximumMessageSize is trusted without asking fauxqs again. */
const QUEUE_SIZE_TTL_MS = 2000;

type Input = Record<string, unknown>;

interface BatchEntry extends OutgoingMessage {
  Id: string;
  DelaySeconds?: unknown;
}

interface FailedEntry {
  Id: string;
  SenderFault: true;
  Code: string;
  Message: string;
}

const invalidParameter = (message: string) =>
  sqsError('InvalidParameterValue', 'InvalidParameterValue', message);

function delayError(delay: unknown): ServiceError | undefined {
  if (delay === undefined || delay === null) return undefined;
  if (typeof delay === 'number' && Number.isInteger(delay) && delay >= 0 && delay <= MAX_DELAY_SECONDS) {
    return undefined;
  }
  return invalidParameter(
    `Value ${String(delay)} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.`,
  );
}

/** The first rule a single message breaks, if any. */
function messageError(
  body: string,
  attributes: MessageAttributes | undefined,
  delay: unknown,
  maxSize: number | undefined,
): ServiceError | undefined {
  const delayProblem = delayError(delay);
  if (delayProblem) return delayProblem;
  if (hasInvalidCharacters(body)) {
    return sqsError('InvalidMessageContents', 'InvalidMessageContents', INVALID_CONTENTS_MESSAGE);
  }
  if (maxSize !== undefined && messageSize(body, attributes) > maxSize) {
    return invalidParameter(
      `One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes.`,
    );
  }
  return undefined;
}

export class SqsProxy {
  private readonly translator = new MessageTranslator();
  private readonly queueSizes = new Map<string, { maxSize: number; at: number }>();
  /** fauxqs' URL of each queue, by `<region>/<account>/<name>`. */
  private readonly emulatorUrls = new Map<string, string>();

  constructor(
    private readonly upstream: Upstream,
    /** The proxy's own origin, e.g. http://127.0.0.1:4566. */
    private readonly endpoint: URL,
  ) {}

  async handle(call: SignedCall): Promise<void> {
    const request = await this.authorizedRequest(call);
    if (!request) return;
    const { operation, input } = request;
    switch (operation) {
      case 'SendMessage':
        return this.sendMessage(call, input);
      case 'SendMessageBatch':
        return this.sendMessageBatch(call, input);
      case 'ReceiveMessage':
        return this.receiveMessage(call, input);
      case 'DeleteMessageBatch':
      case 'ChangeMessageVisibilityBatch':
        if (Array.isArray(input.Entries) && input.Entries.length > MAX_BATCH_ENTRIES) {
          sendError(call.res, 'sqs', tooManyEntries(input.Entries.length));
          return;
        }
    }
    const response = await this.forward(call, input);
    if (response.statusCode !== 200) {
      relay(response, call.res);
      return;
    }
    this.afterSuccess(operation, input);
    if (!URL_RESPONSES.has(operation)) {
      relay(response, call.res);
      return;
    }
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as Record<string, unknown>;
    for (const field of ['QueueUrl', 'QueueUrls', 'queueUrls']) {
      const value = reply[field];
      if (typeof value === 'string') reply[field] = this.clientQueueUrl(call, value);
      if (Array.isArray(value)) reply[field] = value.map((url: string) => this.clientQueueUrl(call, url));
    }
    replyWith(call.res, response, JSON.stringify(reply));
  }

  /**
   * The operation and its input, once the signature matches and IAM allows the call (QueueUrl already
   * turned into fauxqs' URL); undefined when the client has been answered with an error.
   */
  private async authorizedRequest(
    call: SignedCall,
  ): Promise<{ operation: string; input: Input } | undefined> {
    const { req, res } = call;
    const body = await signedBody('sqs', call, MAX_REQUEST_BYTES);
    if (!body) return undefined;
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.startsWith('AmazonSQS.') || !String(req.headers['content-type']).includes('x-amz-json-1.0')) {
      sendError(res, 'sqs', validationError('sqs', QUERY_PROTOCOL_UNSUPPORTED));
      return undefined;
    }
    const operation = target.slice('AmazonSQS.'.length);
    let input: Input;
    try {
      input = body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Input);
    } catch {
      sendError(res, 'sqs', validationError('sqs', 'The request body is not valid JSON.'));
      return undefined;
    }
    const checks = operationChecks('sqs', call, () => sqsChecks(operation, input, call.scope), {
      unchecked: [],
      malformed: (message) => sqsError('MissingParameter', 'MissingParameter', message),
    });
    if (!checks || !authorize('sqs', call, checks)) return undefined;
    if (typeof input.QueueUrl === 'string') {
      input.QueueUrl = await this.emulatorQueueUrl(call, input.QueueUrl);
    }
    return { operation, input };
  }

  /** The URL clients use for a queue fauxqs names `emulatorUrl`: the same account and name on the proxy. */
  private clientQueueUrl(call: SignedCall, emulatorUrl: string): string {
    try {
      const { accountId, name } = queueUrlParts(emulatorUrl);
      this.emulatorUrls.set(`${call.scope.region}/${accountId}/${name}`, emulatorUrl);
      return `${this.endpoint.origin}/${accountId}/${encodeURIComponent(name)}`;
    } catch {
      return emulatorUrl;
    }
  }

  /** The URL fauxqs knows the queue by; unchanged when fauxqs has no such queue (it will say so). */
  private async emulatorQueueUrl(call: SignedCall, url: string): Promise<string> {
    let parts: { accountId: string; name: string };
    try {
      parts = queueUrlParts(url);
    } catch {
      return url;
    }
    const key = `${call.scope.region}/${parts.accountId}/${parts.name}`;
    const known = this.emulatorUrls.get(key);
    if (known) return known;
    const response = await this.upstream.send(
      'POST',
      '/',
      {
        authorization: String(call.req.headers.authorization ?? ''),
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.GetQueueUrl',
      },
      Buffer.from(JSON.stringify({ QueueName: parts.name })),
    );
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as { QueueUrl?: string };
    if (response.statusCode !== 200 || !reply.QueueUrl) return url;
    this.emulatorUrls.set(key, reply.QueueUrl);
    return reply.QueueUrl;
  }

  private forward(call: SignedCall, input: Input): Promise<IncomingMessage> {
    const headers = endToEndHeaders(call.req.headers);
    return this.upstream.send('POST', call.req.url ?? '/', headers, Buffer.from(JSON.stringify(input)));
  }

  private afterSuccess(operation: string, input: Input): void {
    if (operation === 'DeleteMessage' && typeof input.ReceiptHandle === 'string') {
      this.translator.forget(input.ReceiptHandle);
    }
    if (operation === 'DeleteMessageBatch' && Array.isArray(input.Entries)) {
      for (const entry of input.Entries as Input[]) {
        if (typeof entry.ReceiptHandle === 'string') this.translator.forget(entry.ReceiptHandle);
      }
    }
    if (['CreateQueue', 'SetQueueAttributes', 'DeleteQueue'].includes(operation)) this.queueSizes.clear();
    if (operation === 'DeleteQueue') this.emulatorUrls.clear();
  }

  /** The queue's MaximumMessageSize, or undefined when fauxqs does not know the queue (it will say so). */
  private async maxMessageSize(queueUrl: unknown): Promise<number | undefined> {
    if (typeof queueUrl !== 'string') return undefined;
    const cached = this.queueSizes.get(queueUrl);
    if (cached && Date.now() - cached.at < QUEUE_SIZE_TTL_MS) return cached.maxSize;
    const response = await this.upstream.send(
      'POST',
      '/',
      {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.GetQueueAttributes',
      },
      Buffer.from(JSON.stringify({ QueueUrl: queueUrl, AttributeNames: ['MaximumMessageSize'] })),
    );
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as {
      Attributes?: { MaximumMessageSize?: string };
    };
    const maxSize = Number(reply.Attributes?.MaximumMessageSize);
    if (response.statusCode !== 200 || !Number.isInteger(maxSize)) return undefined;
    this.queueSizes.set(queueUrl, { maxSize, at: Date.now() });
    return maxSize;
  }

  private async sendMessage(call: SignedCall, input: Input): Promise<void> {
    const body = input.MessageBody;
    if (typeof body !== 'string') {
      relay(await this.forward(call, input), call.res);
      return;
    }
    const attributes = input.MessageAttributes as MessageAttributes | undefined;
    const maxSize = await this.maxMessageSize(input.QueueUrl);
    const problem = messageError(body, attributes, input.DelaySeconds, maxSize);
    if (problem) {
      sendError(call.res, 'sqs', problem);
      return;
    }
    const original: OutgoingMessage = { MessageBody: body, MessageAttributes: attributes };
    const stored = maxSize === undefined ? original : this.translator.toEmulator(original, maxSize);
    const response = await this.forward(call, {
      ...input,
      ...stored,
      MessageAttributes: stored.MessageAttributes,
    });
    if (response.statusCode !== 200 || stored === original) {
      relay(response, call.res);
      return;
    }
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as Input;
    reply.MD5OfMessageBody = md5Hex(body);
    const attributesDigest = attributes && md5OfAttributes(attributes);
    if (attributesDigest) reply.MD5OfMessageAttributes = attributesDigest;
    replyWith(call.res, response, JSON.stringify(reply));
  }

  private async sendMessageBatch(call: SignedCall, input: Input): Promise<void> {
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length === 0) {
      relay(await this.forward(call, input), call.res);
      return;
    }
    if (entries.length > MAX_BATCH_ENTRIES) {
      sendError(call.res, 'sqs', tooManyEntries(entries.length));
      return;
    }
    const batch = entries as BatchEntry[];
    const total = batch.reduce(
      (sum, entry) =>
        sum +
        (typeof entry.MessageBody === 'string' ? messageSize(entry.MessageBody, entry.MessageAttributes) : 0),
      0,
    );
    if (total > MAX_BATCH_BYTES) {
      sendError(
        call.res,
        'sqs',
        sqsError(
          'BatchRequestTooLong',
          'AWS.SimpleQueueService.BatchRequestTooLong',
          `Batch requests cannot be longer than ${MAX_BATCH_BYTES} bytes. You have sent ${total} bytes.`,
        ),
      );
      return;
    }
    const maxSize = await this.maxMessageSize(input.QueueUrl);
    const failed: FailedEntry[] = [];
    const accepted: BatchEntry[] = [];
    for (const entry of batch) {
      const problem =
        typeof entry.MessageBody === 'string'
          ? messageError(entry.MessageBody, entry.MessageAttributes, entry.DelaySeconds, maxSize)
          : undefined;
      if (problem) {
        failed.push({
          Id: entry.Id,
          SenderFault: true,
          Code: problem.queryCode ?? problem.type,
          Message: problem.message,
        });
      } else accepted.push(entry);
    }
    const translated =
      maxSize === undefined
        ? accepted
        : this.translator
            .fitBatch(
              accepted.map((entry) => this.translator.toEmulator(entry, maxSize)),
              accepted,
            )
            .map((stored, index) => ({
              ...(accepted[index] as BatchEntry),
              MessageBody: stored.MessageBody,
              MessageAttributes: stored.MessageAttributes,
            }));
    if (translated.length === 0) {
      sendJson(call.res, 200, { Successful: [], Failed: failed });
      return;
    }
    const response = await this.forward(call, { ...input, Entries: translated });
    if (response.statusCode !== 200) {
      relay(response, call.res);
      return;
    }
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as {
      Successful?: Input[];
      Failed?: FailedEntry[];
    };
    const byId = new Map(accepted.map((entry) => [entry.Id, entry]));
    for (const result of reply.Successful ?? []) {
      const original = byId.get(String(result.Id));
      if (!original) continue;
      result.MD5OfMessageBody = md5Hex(original.MessageBody);
      const attributesDigest = original.MessageAttributes && md5OfAttributes(original.MessageAttributes);
      if (attributesDigest) result.MD5OfMessageAttributes = attributesDigest;
    }
    reply.Failed = [...(reply.Failed ?? []), ...failed];
    replyWith(call.res, response, JSON.stringify(reply));
  }

  private async receiveMessage(call: SignedCall, input: Input): Promise<void> {
    const response = await this.forward(call, input);
    if (response.statusCode !== 200) {
      relay(response, call.res);
      return;
    }
    const reply = JSON.parse((await readBody(response)).toString('utf8')) as { Messages?: ReceivedMessage[] };
    const requested = Array.isArray(input.MessageAttributeNames)
      ? (input.MessageAttributeNames as string[])
      : [];
    if (reply.Messages) {
      reply.Messages = reply.Messages.map((message) => this.translator.fromEmulator(message, requested));
    }
    replyWith(call.res, response, JSON.stringify(reply));
  }
}

function tooManyEntries(count: number): ServiceError {
  return sqsError(
    'TooManyEntriesInBatchRequest',
    'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${count}.`,
  );
}
