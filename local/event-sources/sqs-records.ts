import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';

/**
 * An SQS record as Lambda's SQS event source hands it to a function, for the tests and the bench that invoke
 * a queue consumer themselves. The region and account come from the queue's ARN; the system attributes not
 * given are those of a message received once, now; md5OfBody is the body's MD5 as SQS computes it.
 */
export function sqsRecord(fields: {
  messageId: string;
  receiptHandle: string;
  body: string;
  queueArn: string;
  attributes?: Partial<SQSRecord['attributes']>;
  md5OfBody?: string;
}): SQSRecord {
  const [, , , region = '', account = ''] = fields.queueArn.split(':');
  const now = String(Date.now());
  return {
    messageId: fields.messageId,
    receiptHandle: fields.receiptHandle,
    body: fields.body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: now,
      SenderId: account,
      ApproximateFirstReceiveTimestamp: now,
      ...fields.attributes,
    },
    messageAttributes: {},
    md5OfBody: fields.md5OfBody ?? createHash('md5').update(fields.body, 'utf8').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: fields.queueArn,
    awsRegion: region,
  };
}
