import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Channel } from './channel';
import { appendLogKeys, type LogKeys, logger, observed } from './observability';

/** What a consumer does with each message of its channel. */
export interface MessageHandler<Message> {
  /** Ids of the message for the log lines (account_id, dc_id, txid...): never secrets. */
  logKeys(message: Message): LogKeys;
  /** Throws to have SQS retry the message alone (partial batch response). */
  handle(message: Message, received: Received): Promise<void>;
}

/** How the message came: its record's receive count, and the invocation's context. */
export interface Received {
  /** 1 on the first receive (ApproximateReceiveCount). */
  receiveCount: number;
  context: Context;
}

/**
 * A consumer of a channel's queue (or DLQ): every record's body is parsed by the channel's schema
 * (`received`), and the records are handled in parallel with partial batch responses (Powertools'
 * BatchProcessor), under the observability middleware. A record whose body is no JSON or does not fit, like
 * one whose handling throws, is a batch item failure: SQS hands it out again alone, and moves it to the DLQ
 * (whose alarm reports it) once its receives are used up; the rest of the batch is done, and nothing is
 * lost. Each failed record is logged at WARN with its ids.
 *
 * Records of one batch run at once and share the process's logger, so a message's ids become the
 * invocation's log keys only when it is the batch's sole record; otherwise handlers log them per line.
 */
export function sqsHandler<Message>(
  consumer: { queue: Channel<unknown, Message> },
  handler: MessageHandler<Message>,
) {
  const channel = consumer.queue;
  const processor = new BatchProcessor(EventType.SQS);

  async function handleRecord(record: SQSRecord, context: Context, soleRecord: boolean): Promise<void> {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
    let logKeys: LogKeys = {};
    try {
      const message = channel.parse(record.body);
      logKeys = handler.logKeys(message);
      if (soleRecord) appendLogKeys(logKeys);
      await handler.handle(message, { receiveCount, context });
    } catch (error) {
      // Without ids when the body did not parse: the error says what is wrong with it.
      logger.warn('record failed; SQS retries it', {
        ...logKeys,
        message_id: record.messageId,
        receive_count: receiveCount,
        error,
      });
      throw error;
    }
  }

  return observed((event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const soleRecord = event.Records.length === 1;
    return processPartialResponse(
      event,
      (record: SQSRecord) => handleRecord(record, context, soleRecord),
      processor,
      { context },
    );
  });
}

/** What a consumer does with a whole batch of its channel's messages at once. */
export interface BatchHandler<Message> {
  /**
   * Handles the messages together, in order; answers those that failed, by their place in `messages`
   * (SQS hands them out again). Throwing fails them all.
   */
  handleBatch(messages: readonly Message[], context: Context): Promise<ReadonlySet<number>>;
}

/**
 * A consumer that handles its batch at once rather than record by record (the event feed appends an account's
 * events in one transaction), with partial batch responses under the observability middleware. A record
 * whose body is no JSON or does not fit its channel's schema fails alone, logged at WARN. On a FIFO queue, a
 * record that fails fails every later record of its message group in the batch too, unhandled where it came
 * after the failure: SQS hands the group out again from the failed record, so that none of its messages is
 * taken before an earlier one (Lambda's advice for FIFO sources with partial batch responses).
 */
export function sqsBatchHandler<Message>(
  consumer: { queue: Channel<unknown, Message> },
  handler: BatchHandler<Message>,
) {
  const channel = consumer.queue;
  const groupOf = (record: SQSRecord): string | undefined =>
    (record.attributes as { MessageGroupId?: string } | undefined)?.MessageGroupId;
  const warn = (record: SQSRecord, error: unknown) =>
    logger.warn('record failed; SQS retries it', {
      message_id: record.messageId,
      receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 1),
      error,
    });

  return observed(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const records = event.Records;
    const failed = new Set<number>();
    const failedGroups = new Set<string>();
    const fail = (index: number) => {
      failed.add(index);
      const group = groupOf(records[index] as SQSRecord);
      if (group !== undefined) failedGroups.add(group);
    };
    const handled: { index: number; message: Message }[] = [];
    records.forEach((record, index) => {
      const group = groupOf(record);
      if (group !== undefined && failedGroups.has(group)) {
        fail(index);
        return;
      }
      try {
        handled.push({ index, message: channel.parse(record.body) });
      } catch (error) {
        warn(record, error);
        fail(index);
      }
    });
    let handlerFailed: ReadonlySet<number>;
    try {
      handlerFailed = await handler.handleBatch(
        handled.map(({ message }) => message),
        context,
      );
    } catch (error) {
      for (const { index } of handled) warn(records[index] as SQSRecord, error);
      handlerFailed = new Set(handled.keys());
    }
    handled.forEach(({ index }, place) => {
      if (handlerFailed.has(place)) fail(index);
    });
    // A group's records after its first failure fail too, whatever their own outcome.
    const seenFailure = new Set<string>();
    records.forEach((record, index) => {
      const group = groupOf(record);
      if (group === undefined) return;
      if (failed.has(index)) seenFailure.add(group);
      else if (seenFailure.has(group)) failed.add(index);
    });
    return {
      batchItemFailures: [...failed]
        .sort((a, b) => a - b)
        .map((index) => ({ itemIdentifier: (records[index] as SQSRecord).messageId })),
    };
  });
}
