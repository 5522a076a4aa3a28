import {
  Aws,
  CfnOutput,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EVENT_RECORD_FIFO_IDS } from '../functions/data/events';
import { TABLE_SCHEMA } from '../functions/data/table-schema';
import * as channels from '../functions/models/channels';
import { allChannels, type ChannelName } from '../functions/models/channels';
import type { Channel } from '../functions/shared/channel';
import {
  BUCKET_LIFECYCLE,
  DLQ_RETENTION_DAYS,
  IMPORT_UPLOADS_PREFIX,
  PROOF_RETENTION_DAYS_DEFAULT,
  PROOFS_PREFIX,
  QUEUE_RETENTION_DAYS,
} from '../functions/shared/resources';
import { AlarmTopic } from './constructs/alarm-topic';
import { EventPipe } from './constructs/event-pipe';
import { MessageOutcomes } from './constructs/message-outcomes';
import { channelQueueIds, pascalCase } from './naming';
import { alarmOn, IMPORT_QUEUE_MAX_AGE, WATCHES } from './watches';

/** S3's longest bucket name. */
const MAX_BUCKET_NAME = 63;
/** The most random characters CloudFormation ends a generated bucket name with (12 or 13 are seen). */
const GENERATED_NAME_SUFFIX_MAX = 13;
/** A stack id's UUID, the last part of its ARN. */
const STACK_UUID_LENGTH = 36;

/**
 * The table as other stacks see it: its ARN under a fixed export name (the table name derives from the ARN).
 * A fixed name keeps the contract between the stacks explicit (CDK's generated export names change with
 * logical ids) and makes the ARN render the same everywhere, e.g. in cdk-nag finding ids.
 */
export interface TableExports {
  readonly tableArnExportName: string;
  readonly indexNames: readonly string[];
}

/** The bucket as other stacks see it: its ARN under a fixed export name (the name derives from the ARN). */
export interface BucketExports {
  readonly bucketArnExportName: string;
  /**
   * The days its lifecycle rule keeps proofs and delivery notes: a value of the template, not an export, told
   * to the functions granted the proofs prefix (RESOURCE_ENV.proofRetentionDays).
   */
  readonly proofRetentionDays: number;
}

/** A queue as other stacks see it: its ARN and URL under fixed export names. */
export interface QueueExports {
  readonly queueArnExportName: string;
  readonly queueUrlExportName: string;
  readonly deadLetterArnExportName: string;
  readonly deadLetterUrlExportName: string;
}

/**
 * Everything the stateless stacks may import, by fixed export name. Only what some function imports is
 * locked by CloudFormation (an export cannot change or go while another stack imports it).
 */
export interface StatefulExports {
  readonly table: TableExports;
  readonly bucket: BucketExports;
  /** By channel name (functions/models/channels.ts). */
  readonly queues: Readonly<Record<ChannelName, QueueExports>>;
  /** The SNS topic every alarm notifies: its ARN under a fixed export name. */
  readonly alarmTopicArnExportName: string;
  /** The KMS key webhook signing secrets are encrypted under: its ARN under a fixed export name. */
  readonly webhookSecretsKeyArnExportName: string;
  /** The event pipe's dead-letter queue: its ARN under a fixed export name (the dashboard graphs it). */
  readonly eventPipeDeadLetterArnExportName: string;
  /** The feed pipe's dead-letter queue, likewise. */
  readonly feedPipeDeadLetterArnExportName: string;
}

export interface StatefulStackProps extends StackProps {
  /** Subscribed by email to the alarm topic when given. */
  readonly alarmEmail?: string;
  /**
   * Days the bucket keeps proofs of delivery and delivery notes (the `proofRetentionDays` context).
   * @default PROOF_RETENTION_DAYS_DEFAULT (400)
   */
  readonly proofRetentionDays?: number;
  /**
   * The SES configuration set customer emails are sent with: given, their outcomes are published to the message
   * outcomes topic (lib/constructs/message-outcomes.ts).
   */
  readonly emailConfigurationSet?: string;
}

export interface QueueWithDlq {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /**
   * In alarm while the DLQ holds any message, or, for a DLQ a consumer reads, in a period in which it received
   * any.
   */
  readonly deadLetterAlarm: Alarm;
}

/**
 * Everything that holds data: the single table, the bucket, the queues and the key of the webhook secrets. Kept apart from the API so
 * the stateless stack can be replaced freely; the table and bucket are retained even if this stack goes.
 */
export class StatefulStack extends Stack {
  readonly table: Table;
  readonly tableExports: TableExports;
  readonly bucket: Bucket;
  private readonly queues = new Map<Channel, QueueWithDlq>();
  readonly alarmTopic: Topic;
  /** The topic SES and End User Messaging SMS publish customer messages' outcomes to. */
  readonly messageOutcomes: MessageOutcomes;
  /**
   * Encrypts webhook signing secrets at rest (envelope encryption, functions/data/secret-envelope.ts).
   * Customer managed, rotated yearly by KMS, retained: without it the stored secrets cannot be read. Its key
   * policy is CDK's default, which lets the account's IAM policies grant its use: only the functions whose
   * access names `webhookSecrets` get kms:GenerateDataKey or kms:Decrypt on it. Stop PINs are sealed under it
   * too, under an encryption context of their own, by the functions whose access names `stopPins`.
   */
  readonly webhookSecretsKey: Key;
  /** In alarm while the oldest accepted import has waited IMPORT_QUEUE_MAX_AGE for the import worker. */
  readonly importBacklogAlarm: Alarm;
  /** The relay from the table stream to the events queue, with its own dead-letter queue and alarm. */
  readonly eventPipe: EventPipe;
  /** The relay from the table stream to the event feed's FIFO queue, with its own dead-letter queue and alarm. */
  readonly feedPipe: EventPipe;
  /** The table, bucket and queues under fixed export names, for the stateless stacks to import. */
  readonly exports: StatefulExports;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    // Here rather than with the API: the topic outlives redeployments of the stateless side, and with it
    // the email subscription its recipient confirmed.
    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: props.alarmEmail }).topic;

    this.webhookSecretsKey = new Key(this, 'WebhookSecretsKey', {
      description: 'Encrypts the Delivery Route Service webhook signing secrets (envelope encryption)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // The stream carries the transactional-outbox EVENT# items to the events queue.
      stream: StreamViewType.NEW_IMAGE,
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const [indexName, index] of Object.entries(TABLE_SCHEMA.indexes)) {
      this.table.addGlobalSecondaryIndex({
        indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    this.tableExports = {
      tableArnExportName: `${this.stackName}-TableArn`,
      indexNames: Object.keys(TABLE_SCHEMA.indexes),
    };
    this.exportValue(this.table.tableArn, { name: this.tableExports.tableArnExportName });

    const proofRetentionDays = props.proofRetentionDays ?? PROOF_RETENTION_DAYS_DEFAULT;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Unversioned on purpose: every object has its expiration rule below, which versions would outlive.
      versioned: false,
      lifecycleRules: [
        ...[...BUCKET_LIFECYCLE, { prefix: PROOFS_PREFIX, expireAfterDays: proofRetentionDays }].map(
          ({ prefix, expireAfterDays }) => ({
            id: `expire-${prefix.replace(/\/$/, '')}`,
            prefix,
            expiration: Duration.days(expireAfterDays),
          }),
        ),
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    for (const channel of allChannels) {
      const { name } = channel;
      const id = pascalCase(name);
      const constructIds = channelQueueIds(name);
      const consumed = channel.consumedDeadLetters;
      // A FIFO queue's DLQ must be FIFO too. High throughput: SQS's limits apply per message group.
      const fifo = channel.fifo
        ? {
            fifo: true,
            deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {};
      const deadLetterQueue = new Queue(this, constructIds.deadLetterQueue, {
        ...(channel.fifo ? { fifo: true } : {}),
        retentionPeriod: Duration.days(DLQ_RETENTION_DAYS),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...(consumed ? { visibilityTimeout: Duration.seconds(consumed.visibilityTimeoutSeconds) } : {}),
      });
      Validations.of(deadLetterQueue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: `This is the dead-letter queue of the ${name} queue; a DLQ has no DLQ of its own.`,
      });
      const queue = new Queue(this, constructIds.queue, {
        ...fifo,
        retentionPeriod: Duration.days(QUEUE_RETENTION_DAYS),
        visibilityTimeout: Duration.seconds(channel.visibilityTimeoutSeconds),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: channel.maxReceiveCount },
      });
      // A DLQ a consumer reads stays empty: its alarm counts what the consumer received from it instead.
      const deadLetterAlarm = alarmOn(
        this,
        `${id}DeadLetterAlarm`,
        consumed ? WATCHES.consumedDeadLetters : WATCHES.deadLetters,
        deadLetterQueue,
        {
          description: consumed
            ? `Messages of the ${name} queue failed ${channel.maxReceiveCount} times and went to its DLQ, whose consumer ended their jobs`
            : `Messages of the ${name} queue failed ${channel.maxReceiveCount} times and wait in its DLQ`,
          topic: this.alarmTopic,
        },
      );
      this.queues.set(channel, { queue, deadLetterQueue, deadLetterAlarm });
    }
    this.importBacklogAlarm = alarmOn(
      this,
      'ImportBacklogAlarm',
      WATCHES.importBacklog,
      this.queueOf(channels.imports).queue,
      {
        description: `An accepted route import has waited more than ${IMPORT_QUEUE_MAX_AGE.toMinutes()} minutes for the import worker`,
        topic: this.alarmTopic,
      },
    );
    this.notifyOfCreatedObjects();
    this.messageOutcomes = new MessageOutcomes(this, 'MessageOutcomes', {
      queue: this.queueOf(channels.messageOutcomes).queue,
      emailConfigurationSet: props.emailConfigurationSet,
    });
    this.eventPipe = new EventPipe(this, 'EventPipe', {
      table: this.table,
      target: this.queueOf(channels.events).queue,
      targetName: 'events queue',
      alarmTopic: this.alarmTopic,
    });
    this.feedPipe = new EventPipe(this, 'FeedPipe', {
      table: this.table,
      target: this.queueOf(channels.feed).queue,
      targetName: 'event feed queue',
      fifoIds: EVENT_RECORD_FIFO_IDS,
      alarmTopic: this.alarmTopic,
    });

    const bucketExports: BucketExports = {
      bucketArnExportName: `${this.stackName}-BucketArn`,
      proofRetentionDays,
    };
    this.exportValue(this.bucket.bucketArn, { name: bucketExports.bucketArnExportName });
    const queueExports: Partial<Record<ChannelName, QueueExports>> = {};
    for (const channel of allChannels) {
      const { queue, deadLetterQueue } = this.queueOf(channel);
      const ids = channelQueueIds(channel.name);
      const exported: QueueExports = {
        queueArnExportName: `${this.stackName}-${ids.queue}Arn`,
        queueUrlExportName: `${this.stackName}-${ids.queue}Url`,
        deadLetterArnExportName: `${this.stackName}-${ids.deadLetterQueue}Arn`,
        deadLetterUrlExportName: `${this.stackName}-${ids.deadLetterQueue}Url`,
      };
      this.exportValue(queue.queueArn, { name: exported.queueArnExportName });
      this.exportValue(queue.queueUrl, { name: exported.queueUrlExportName });
      this.exportValue(deadLetterQueue.queueArn, { name: exported.deadLetterArnExportName });
      this.exportValue(deadLetterQueue.queueUrl, { name: exported.deadLetterUrlExportName });
      queueExports[channel.name as ChannelName] = exported;
    }
    const alarmTopicArnExportName = `${this.stackName}-AlarmTopicArn`;
    this.exportValue(this.alarmTopic.topicArn, { name: alarmTopicArnExportName });
    const webhookSecretsKeyArnExportName = `${this.stackName}-WebhookSecretsKeyArn`;
    this.exportValue(this.webhookSecretsKey.keyArn, { name: webhookSecretsKeyArnExportName });
    const eventPipeDeadLetterArnExportName = `${this.stackName}-EventPipeDeadLetterQueueArn`;
    this.exportValue(this.eventPipe.deadLetterQueue.queueArn, { name: eventPipeDeadLetterArnExportName });
    const feedPipeDeadLetterArnExportName = `${this.stackName}-FeedPipeDeadLetterQueueArn`;
    this.exportValue(this.feedPipe.deadLetterQueue.queueArn, { name: feedPipeDeadLetterArnExportName });
    this.exports = {
      table: this.tableExports,
      bucket: bucketExports,
      queues: queueExports as Record<ChannelName, QueueExports>,
      alarmTopicArnExportName,
      webhookSecretsKeyArnExportName,
      eventPipeDeadLetterArnExportName,
      feedPipeDeadLetterArnExportName,
    };

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The single table; pass it to the admin CLI as --table',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'SNS topic every alarm notifies; subscribe more endpoints to it as needed',
    });
    new CfnOutput(this, 'BucketName', {
      value: this.bucket.bucketName,
      description:
        'Private bucket for import payloads, analytics files, proofs of delivery and delivery notes',
    });

    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Holds service-written objects and proofs uploaded through presigned links, read through presigned links; CloudTrail data events are the audit path if needed, not a second logging bucket.',
    });
  }

  /** The queue of a channel (functions/models/channels.ts), with its DLQ and the DLQ's alarm. */
  queueOf(channel: Channel): QueueWithDlq {
    const queue = this.queues.get(channel);
    if (!queue) throw new Error(`the stateful stack has no queue for the channel ${channel.name}`);
    return queue;
  }

  /**
   * Objects created under the uploads prefix are announced on the imports queue, which starts their import;
   * those under the proofs prefix on the proof uploads queue, which checks them. The bucket's own
   * NotificationConfiguration (not `addEventNotification`, whose custom resource is a Lambda of its own). S3
   * checks that it may send to each queue when the configuration is saved, so the bucket waits for the queue
   * policies. A policy cannot name the bucket by `Fn::GetAtt` (the bucket would then wait for itself): it names
   * it as bucketNameMatch() says, in this account.
   */
  private notifyOfCreatedObjects(): void {
    const cfnBucket = this.bucket.node.defaultChild as CfnBucket;
    const bucketName = this.bucketNameMatch(cfnBucket);
    const destinations = [
      { channel: channels.imports, prefix: IMPORT_UPLOADS_PREFIX, sid: 'BucketNotifiesUploads' },
      { channel: channels.proofUploads, prefix: PROOFS_PREFIX, sid: 'BucketNotifiesProofUploads' },
    ];
    cfnBucket.notificationConfiguration = {
      queueConfigurations: destinations.map(({ channel, prefix, sid }) => {
        const { queue } = this.queueOf(channel);
        const { policyDependable } = queue.addToResourcePolicy(
          new PolicyStatement({
            sid,
            principals: [new ServicePrincipal('s3.amazonaws.com')],
            actions: ['sqs:SendMessage'],
            resources: [queue.queueArn],
            conditions: {
              ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:s3:::${bucketName}` },
              StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
            },
          }),
        );
        if (!policyDependable) throw new Error(`the ${channel.name} queue has no queue policy to wait for`);
        cfnBucket.node.addDependency(policyDependable);
        return {
          event: 's3:ObjectCreated:*',
          queue: queue.queueArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: prefix }] } },
        };
      }),
    };
  }

  /**
   * The bucket's name as a policy can match it before the bucket exists. CloudFormation names it
   * `<stack>-<logical id>-<12 or 13 random characters>`, lower-cased (matched by its logical id, which the
   * local runtime's names hold too), and cuts the stack name and the logical
   * id to fit S3's 63 characters when the whole would not: a match on either would then fail, and S3 would
   * refuse the notification configuration (a long `stackPrefix`). Such a bucket gets a name of its own
   * instead: the stack name's start and the stack's UUID (unique, and unknown before the stack exists, so no
   * one can take the name first). A bucket whose generated name fits keeps it: renaming a bucket replaces it.
   */
  private bucketNameMatch(cfnBucket: CfnBucket): string {
    const stackName = this.stackName.toLowerCase();
    const logicalId = this.getLogicalId(cfnBucket).toLowerCase();
    const generatedPrefix = `${stackName}-${logicalId}-`;
    if (generatedPrefix.length + GENERATED_NAME_SUFFIX_MAX <= MAX_BUCKET_NAME) return `*${logicalId}*`;
    const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
    const start = stackName.slice(0, MAX_BUCKET_NAME - STACK_UUID_LENGTH - 1).replace(/-+$/, '');
    const name = `${start}-${stackUuid}`;
    cfnBucket.bucketName = name;
    return name;
  }
}
