import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_RECORD_PATTERN, MAX_EVENT_RECORD_BYTES } from '../../functions/data/events';
import { MAX_BATCH_BYTES, MAX_BATCH_MESSAGES } from '../../functions/shared/queues';
import { DLQ_RETENTION_DAYS } from '../../functions/shared/resources';
import { alarmOn, WATCHES } from '../watches';

/**
 * How long the pipe keeps trying a stream record before it gives the record up to its dead-letter queue.
 * - Retries: while a record is retried, the records behind it on its shard wait (events of every tenant),
 *   so a few tries, not Pipes' default of retrying until the record leaves the stream (24 hours stalled).
 *   Only refusals of the target count, and SQS refuses a message for what it is (characters it does not
 *   take, e.g. U+FFFF; its size) or for a wrong permission: trying again does not help. Throttling, 5xx and
 *   connection errors do not count, Pipes retries them without limit. Two retries: three tries in all
 *   (locally they take about 3 s of backoff; three retries took 7 s, most of a 10 s delivery target).
 * - Record age: a record older than this goes to the DLQ too, even if only the pipe was behind. 6 hours
 *   rides out a long outage, and leaves 18 of the stream's 24 hours to read the record back from the
 *   stream after the alarm (the DLQ message says where it is in the stream, not what it holds).
 */
export const EVENT_PIPE_RETRIES = {
  maximumRetryAttempts: 2,
  maximumRecordAge: Duration.hours(6),
} as const;

export interface EventPipeProps {
  readonly table: Table;
  readonly target: Queue;
  /** Notified while the pipe's dead-letter queue holds a message. */
  readonly alarmTopic: ITopic;
  /** What the pipe is for, in its description and its alarm's: `events queue`, `event feed queue`. */
  readonly targetName: string;
  /**
   * For a FIFO target: where in the stream record the message group id and the deduplication id are (dynamic
   * path parameters of Pipes' SqsQueueParameters: the whole value a JSON path into the record).
   */
  readonly fifoIds?: { readonly messageGroupId: string; readonly messageDeduplicationId: string };
}

/**
 * Stream records per batch: as many as one SendMessageBatch (one message a record) takes whatever they weigh.
 * Pipes sends a batch to an SQS target as one SendMessageBatch, at most ten messages and 1 MiB together, and
 * does not split it by size: SQS refuses a batch over 1 MiB whole (BatchRequestTooLong), a 4xx that Pipes
 * retries MaximumRetryAttempts times and then gives to the DLQ, every record of it ("Amazon EventBridge Pipes
 * batching and concurrency", "error handling"; SendMessageBatch in the SQS API reference). An event record
 * weighs at most MAX_EVENT_RECORD_BYTES (256 KiB, enforced where event items are written): four fit, where
 * ten of the largest (2,000-waypoint ROUTE_ETAS_CHANGED, ~230 KB each) would not. Read one record at a time,
 * a shard carried about one SendMessage round trip's worth of events (the local stream poller fell behind a
 * burst of 2,000 events by 1,300 of them); four a batch carry four times that at the same number of requests.
 * No batching window: a batch is whatever the shard holds when it is read, so an event alone leaves at once.
 */
export const EVENT_PIPE_BATCH_SIZE = Math.min(
  MAX_BATCH_MESSAGES,
  Math.floor(MAX_BATCH_BYTES / MAX_EVENT_RECORD_BYTES),
);

/**
 * The transactional outbox's relay: an EventBridge Pipe from the table's stream to a queue that lets only
 * new event items through (no code of ours in between, so nothing to lose an event). Two of them read the
 * stream, the most DynamoDB advises per shard: one to the events queue (the webhooks), one to the FIFO event
 * feed queue (GET /events), so that neither waits for the other.
 *
 * Up to EVENT_PIPE_BATCH_SIZE records a batch, one message a record, within SendMessageBatch's 1 MiB. When the
 * queue refuses some messages of a batch (Pipes' partial batch failure handling for SQS targets), only those
 * are sent again: the others went once. After EVENT_PIPE_RETRIES the batch goes to the pipe's own dead-letter queue (where it is in the
 * stream: the refused record and the records of its batch SQS took) and the records behind it flow again.
 * Pipes delivers at least once (a retried send may have reached the queue), like the events queue itself:
 * receivers deduplicate deliveries by `event_id` (docs/api.md §7), which stays the same through every hop.
 */
export class EventPipe extends Construct {
  /**
   * Where the pipe describes a batch it gave up: shard and sequence numbers of its records in the stream
   * (Pipes' DDBStreamBatchInfo), not the records. Not the events queue's DLQ: these are not event
   * messages, and redriving them to the events queue would deliver nothing.
   */
  readonly deadLetterQueue: Queue;
  /** In alarm while the pipe's dead-letter queue holds any message. */
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: EventPipeProps) {
    super(scope, id);
    const { tableStreamArn } = props.table;
    if (!tableStreamArn) throw new Error('the table needs a stream for the event pipe');
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(DLQ_RETENTION_DAYS),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This is the event pipe's dead-letter queue; a DLQ has no DLQ of its own.",
    });
    this.deadLetterAlarm = alarmOn(this, 'DeadLetterAlarm', WATCHES.deadLetters, this.deadLetterQueue, {
      description: `The pipe to the ${props.targetName} gave up stream records it could not send; they wait in the stream (24 h) and are described in its DLQ`,
      topic: props.alarmTopic,
    });

    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `EventBridge Pipe: reads the table stream, sends event records to the ${props.targetName}`,
    });
    props.table.grantStreamRead(role);
    props.target.grantSendMessages(role);
    // What Pipes needs to describe a failed batch in an SQS dead-letter queue (its DynamoDB source permissions).
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }),
    );
    const pipe = new CfnPipe(this, 'Pipe', {
      roleArn: role.roleArn,
      description: `New EVENT# items of the table -> ${props.targetName} (one message per stream record)`,
      source: tableStreamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: EVENT_PIPE_BATCH_SIZE,
          maximumRetryAttempts: EVENT_PIPE_RETRIES.maximumRetryAttempts,
          maximumRecordAgeInSeconds: EVENT_PIPE_RETRIES.maximumRecordAge.toSeconds(),
          deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(EVENT_RECORD_PATTERN) }] },
      },
      target: props.target.queueArn,
      ...(props.fifoIds ? { targetParameters: { sqsQueueParameters: props.fifoIds } } : {}),
    });
    // Pipes checks the role's permissions when it creates the pipe: the role's policy must exist by then.
    pipe.node.addDependency(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams (part of the stream-read grant) supports no resource-level permissions.',
    });
  }
}
