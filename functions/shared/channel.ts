import type * as z from './zod';

/** How a channel's queue and its dead-letter queue are set up; CDK and the local runtime make them from this. */
export interface QueueSettings {
  /** Environment variable through which consumers and producers learn the queue's URL. */
  urlEnv: string;
  /**
   * At least six times the consumer's timeout, as AWS advises for SQS event sources: a message is not handed
   * out twice while in flight, even when Lambda retries a throttled batch (checked in CDK).
   */
  visibilityTimeoutSeconds: number;
  /** Receives before the message moves to the queue's DLQ. */
  maxReceiveCount: number;
  /**
   * A FIFO queue (and a FIFO DLQ), in high-throughput mode: the messages of one message group are handed out
   * in the order they were sent, one batch of a group at a time, and a message sent twice within five
   * minutes under the same deduplication id is taken once. Its senders name both for every message.
   */
  fifo?: true;
  /**
   * For jobs with a record of their own (imports, download requests): runs of the worker counted on the
   * record; the last one ends the job FAILED instead of leaving it PENDING. `maxReceiveCount` leaves room
   * above it for receives spent while the function was throttled.
   */
  workerAttempts?: number;
  /** Environment variable with the DLQ's URL, for consumers that give a message up themselves. */
  deadLetterUrlEnv: string;
  /**
   * Set where a consumer reads the DLQ (its definition's `deadLetters`): the DLQ's visibility timeout, at least six
   * times that consumer's timeout as for a queue (checked in CDK). Its alarm then counts the messages received
   * from the DLQ instead of its depth, which the consumer keeps at zero.
   */
  consumedDeadLetters?: { visibilityTimeoutSeconds: number };
}

/**
 * One SQS queue of the service and the messages it carries, as everything that touches it names it: producers
 * send through it (shared/queues.ts checks each message against `message` first), a function's
 * `access.sendTo` lists it, a consumer's definition reads it and its handler gets each message parsed by
 * `received` (shared/sqs-handler.ts), CDK makes its queue and DLQ, and the local runtime finds them. No code
 * names a queue any other way, so "find references" on a channel shows its whole path.
 */
export interface Channel<Message = unknown, Received = Message> extends QueueSettings {
  /** The queue's name in the service: its construct ids (`ImportsQueue`, `ImportsDeadLetterQueue`) and exports. */
  readonly name: string;
  /** The schema of what producers send (zod), built on first use. */
  readonly message: () => z.ZodMiniType<Message>;
  /**
   * The schema of what the consumer gets (zod), built on first use: the message, or more where the queue is
   * also fed from outside the code (the imports queue gets S3's notifications too).
   */
  readonly received: () => z.ZodMiniType<Received>;
  /** A message body (JSON) as the consumer reads it; throws a MessageRefusedError naming what does not fit. */
  parse(body: string): Received;
}

/** How a channel is declared: its queue settings and the schemas of its messages (Channel). */
export interface ChannelDefinition extends QueueSettings {
  message: () => z.ZodMiniType;
  received?: () => z.ZodMiniType;
}

type MessageOf<D extends ChannelDefinition> = z.output<ReturnType<D['message']>>;
type ReceivedOf<D extends ChannelDefinition> = D extends { received: () => infer S extends z.ZodMiniType }
  ? z.output<S>
  : MessageOf<D>;

/** The channel a definition makes, named `Name`. */
export type ChannelOf<D extends ChannelDefinition, Name extends string> = Channel<
  MessageOf<D>,
  ReceivedOf<D>
> &
  Omit<D, 'message' | 'received'> & { readonly name: Name };

/** A message that does not fit its channel's schema, or is no JSON. */
export class MessageRefusedError extends Error {
  override readonly name = 'MessageRefusedError';
}

/**
 * The channel named `name` (its construct ids follow from it: `ImportsQueue`). Mark the call `@__PURE__`: a
 * bundle then keeps only the channels its code uses, and their schemas.
 */
export function defineChannel<const Name extends string, const D extends ChannelDefinition>(
  name: Name,
  definition: D,
): ChannelOf<D, Name> {
  const { message: buildMessage, received: buildReceived, ...settings } = definition;
  // Built when first used: a function that only lists the channel (its access) builds no schema.
  const message = once(buildMessage);
  const received = buildReceived ? once(buildReceived) : message;
  return {
    ...settings,
    name,
    message,
    received,
    parse(body) {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        throw new MessageRefusedError(`a message of the ${name} queue is not JSON`);
      }
      const result = received().safeParse(json);
      if (!result.success) {
        throw new MessageRefusedError(
          `a message of the ${name} queue does not fit its schema: ${describeMessageIssues(result.error.issues)}`,
        );
      }
      return result.data;
    },
  } as Channel as ChannelOf<D, Name>;
}

/** "dc_id: Invalid input: expected string, received number; txid: ...": each problem with its field. */
export function describeMessageIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.join('.') || '(the message)'}: ${issue.message}`).join('; ');
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
