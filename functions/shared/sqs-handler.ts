import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { appendLogKeys, type LogKeys, logger, observed } from './observability';

export interface RecordHandler {
  /** Ids of the message for the log lines (account_id, dc_id, txid...): never secrets. */
  logKeys(record: SQSRecord): LogKeys;
  /** Throws to have SQS retry the record alone (partial batch response). `context` is the invocation's. */
  handle(record: SQSRecord, context: Context): Promise<void>;
}

/**
 * An SQS consumer: records processed in parallel with partial batch responses, and the observability
 * middleware. Records of one batch run at once and share the process's logger, so a record's ids become
 * the invocation's log keys only when it is the batch's sole record; otherwise handlers log them per line.
 * A record that throws is logged with its ids (at WARN: SQS retries it, and its DLQ alarm reports it
 * once the retries are used up).
 */
export function sqsHandler(recordHandler: RecordHandler) {
  const processor = new BatchProcessor(EventType.SQS);

  async function handleRecord(record: SQSRecord, context: Context): Promise<void> {
    try {
      await recordHandler.handle(record, context);
    } catch (error) {
      logger.warn('record failed; SQS retries it', {
        ...safeLogKeys(record),
        message_id: record.messageId,
        receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        error,
      });
      throw error;
    }
  }

  function safeLogKeys(record: SQSRecord): LogKeys {
    try {
      return recordHandler.logKeys(record);
    } catch {
      return {}; // a malformed body: its handler's error says what is wrong
    }
  }

  return observed(
    middy((event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
      const [only] = event.Records;
      if (only && event.Records.length === 1) appendLogKeys(safeLogKeys(only));
      return processPartialResponse(event, handleRecord, processor, { context });
    }),
  );
}
