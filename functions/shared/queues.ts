import type { SQSClient } from '@aws-sdk/client-sqs';
import { type Channel, describeMessageIssues, MessageRefusedError } from './channel';
import { config, perConfig } from './config';

interface Sqs {
  readonly sdk: typeof import('./sqs-client');
  readonly client: SQSClient;
}

/**
 * The SQS client, made on first use (and again for a new configuration): functions that import this module
 * but never send (reads that share a domain module with a write) do not load the SQS SDK at cold start.
 */
const theSqs = /* @__PURE__ */ perConfig(
  (): Promise<Sqs> => import('./sqs-client').then((sdk) => ({ sdk, client: sdk.createSqsClient() })),
);

/** SQS caps a message's delay at 15 minutes; longer waits are chained by the consumer. */
export const MAX_DELAY_SECONDS = 900;

/** The DelaySeconds of a wait of `ms`: rounded up, and at most MAX_DELAY_SECONDS (longer waits take hops). */
export const delaySecondsFor = (ms: number) => Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(ms / 1000)));

/**
 * Sends one message to the channel's queue (its URL comes from the channel's environment variable). It is
 * checked against the channel's schema first: a message its consumer would refuse is never sent.
 */
export async function send<Message>(
  channel: Channel<Message, unknown>,
  message: Message,
  options: { delaySeconds?: number } = {},
): Promise<void> {
  const body = bodyOf(channel, message);
  await sendShared(channel, [{ body, delaySeconds: options.delaySeconds }]);
}

/** Sends messages (10, or 1 MiB, per request), each checked as `send` does; throws unless every one was accepted. */
export async function sendAll<Message>(
  channel: Channel<Message, unknown>,
  messages: readonly Message[],
): Promise<void> {
  const bodies = messages.map((message) => bodyOf(channel, message));
  await sendShared(
    channel,
    bodies.map((body) => ({ body })),
  );
}

/** The message as JSON, once it fits the channel's schema; MessageRefusedError naming what does not. */
function bodyOf<Message>(channel: Channel<Message, unknown>, message: Message): string {
  const checked = channel.message().safeParse(message);
  if (!checked.success) {
    throw new MessageRefusedError(
      `a message to the ${channel.name} queue does not fit its schema: ${describeMessageIssues(checked.error.issues)}`,
    );
  }
  // As it was given: the schema's output may be shaped for the consumer (the imports queue's is).
  return JSON.stringify(message);
}

/** SendMessageBatch takes at most 10 messages, of at most 1 MiB together (SQS API reference, since 2025). */
export const MAX_BATCH_MESSAGES = 10;
export const MAX_BATCH_BYTES = 1_048_576;

/**
 * Message bodies in batches SendMessageBatch accepts: up to 10 a batch, and no more than 1 MiB together (ten
 * deliveries of a 2,000-waypoint ROUTE_ETAS_CHANGED would pass it), in order.
 */
export function messageBatches(bodies: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body, 'utf8');
    if (batch.length === MAX_BATCH_MESSAGES || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(body);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

// ---- Sends shared by the calls of one turn ----

interface Outgoing {
  body: string;
  delaySeconds?: number;
}

/** One call's messages, and how its promise settles. */
interface Sender {
  messages: Outgoing[];
  /** Why one of its messages was not accepted (the first reason seen). */
  refused?: unknown;
  resolve(): void;
  reject(reason: unknown): void;
}

interface Entry {
  sender: Sender;
  message: Outgoing;
}

/** The calls waiting for the end of this turn of the event loop, per queue URL. */
const waiting = new Map<string, Sender[]>();

/**
 * Sends `messages` together with those of every other call made in the same turn of the event loop to the
 * same queue: a consumer's records, handled at once, queue their messages in shared SendMessageBatch
 * requests (a fan-out batch of ten events to three webhooks makes 3 requests, not 10). Each call settles with
 * its own messages only: it throws when one of them was refused. A request that fails as a whole is sent
 * again one call at a time, so a message one call got wrong never fails another call's.
 */
function sendShared(channel: Channel, messages: Outgoing[]): Promise<void> {
  const queueUrl = config().queueUrl(channel);
  if (messages.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let senders = waiting.get(queueUrl);
    if (!senders) {
      const turn: Sender[] = [];
      senders = turn;
      waiting.set(queueUrl, turn);
      setImmediate(() => {
        waiting.delete(queueUrl);
        void sendTurn(channel, queueUrl, turn);
      });
    }
    senders.push({ messages, resolve, reject });
  });
}

async function sendTurn(channel: Channel, queueUrl: string, senders: Sender[]): Promise<void> {
  const entries = senders.flatMap((sender) => sender.messages.map((message) => ({ sender, message })));
  try {
    await sendEntries(channel, queueUrl, entries);
  } catch (error) {
    for (const sender of senders) sender.refused ??= error;
  }
  for (const sender of senders) {
    if (sender.refused === undefined) sender.resolve();
    else sender.reject(sender.refused);
  }
}

/**
 * Sends the entries in as few requests as SendMessageBatch takes, marking the sender of each message that
 * was refused. A request that fails as a whole marks its senders when it is theirs alone; when it held several
 * senders' messages, each sender's are sent again on their own.
 */
async function sendEntries(channel: Channel, queueUrl: string, entries: Entry[]): Promise<void> {
  const { sdk, client } = await theSqs();
  let next = 0;
  for (const batch of messageBatches(entries.map(({ message }) => message.body))) {
    const request = entries.slice(next, next + batch.length);
    next += batch.length;
    try {
      const { Failed = [] } = await client.send(
        new sdk.SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: request.map(({ message }, index) => ({
            Id: String(index),
            MessageBody: message.body,
            DelaySeconds: message.delaySeconds,
          })),
        }),
      );
      for (const refusal of Failed) {
        const sender = request[Number(refusal.Id)]?.sender;
        if (sender) {
          sender.refused ??= new Error(
            `a message to ${channel.name} was refused: ${refusal.Code}: ${refusal.Message}`,
          );
        }
      }
    } catch (error) {
      const senders = new Set(request.map(({ sender }) => sender));
      if (senders.size === 1) {
        for (const sender of senders) sender.refused ??= error;
        continue;
      }
      await Promise.all(
        [...senders].map((sender) =>
          sendEntries(
            channel,
            queueUrl,
            request.filter((entry) => entry.sender === sender),
          ),
        ),
      );
    }
  }
}

/** Gives a message up: into the channel's DLQ, where its alarm tells an operator. */
export async function sendToDeadLetter<Message>(
  channel: Channel<Message, unknown>,
  message: Message,
): Promise<void> {
  const body = bodyOf(channel, message);
  const { sdk, client } = await theSqs();
  await client.send(
    new sdk.SendMessageCommand({
      QueueUrl: config().deadLetterQueueUrl(channel),
      MessageBody: body,
    }),
  );
}
