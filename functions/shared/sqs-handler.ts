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
