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
   * For jobs with a record of their own (imports, download requests): runs of the worker counted on the
   * record; the last one ends the job FAILED instead of leaving it PENDING. `maxReceiveCount` leaves room
   * above it for receives spent while the function was throttled.
   */
  workerAttempts?: number;
  /** Environment variable with the DLQ's URL, for consumers that give a message up themselves. */
  deadLetterUrlEnv: string;
  /**
   * Set where a consumer reads the DLQ (its row's `deadLetters`): the DLQ's visibility timeout, at least six
   * times that consumer's timeout as for a queue (checked in CDK). Its alarm then counts the messages received
   * from the DLQ instead of its depth, which the consumer keeps at zero.
   */
  consumedDeadLetters?: { visibilityTimeoutSeconds: number };
}

/**
 * One SQS queue of the service, as everything that touches it names it: producers send through it
 * (shared/queues.ts), a function's `access.sendTo` lists it, a consumer's row reads it
 * (functions/workers/<name>/consumer.ts), CDK makes its queue and DLQ, and the local runtime finds them. No
 * code names a queue any other way, so "find references" on a channel shows its whole path.
 */
export interface Channel extends QueueSettings {
  /** The queue's name in the service: its construct ids (`ImportsQueue`, `ImportsDeadLetterQueue`) and exports. */
  readonly name: string;
}

/** The service's channels, each named by its key (`imports: {...}` is the channel named `imports`). */
export function defineChannels<const D extends Record<string, QueueSettings>>(
  definitions: D,
): { readonly [K in keyof D & string]: D[K] & { readonly name: K } } {
  return Object.fromEntries(
    Object.entries(definitions).map(([name, definition]) => [name, { ...definition, name }]),
  ) as { readonly [K in keyof D & string]: D[K] & { readonly name: K } };
}
