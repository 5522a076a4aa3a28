import { Fn, Stack, Validations } from 'aws-cdk-lib';
import { type ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ChannelName } from '../../functions/models/channels';
import type { Channel } from '../../functions/shared/channel';
import { channelQueueIds } from '../naming';
import type { StatefulExports } from '../stateful-stack';

/** The stateful resources a function's `ResourceAccess` may name. */
export interface ServiceResources {
  readonly table: ITable;
  readonly bucket: IBucket;
  /** The ARN of the bucket's objects under `keyPrefix` (every object for ''), for object grants. */
  bucketObjectsArn(keyPrefix: string): string;
  /** The days the bucket keeps proofs and delivery notes (its lifecycle rule for the proofs prefix). */
  readonly proofRetentionDays: number;
  /** The channel's queue (functions/models/channels.ts). */
  queue(channel: Channel): IQueue;
  /** The channel's dead-letter queue. */
  deadLetterQueue(channel: Channel): IQueue;
  /** The SNS topic every alarm notifies. */
  readonly alarmTopic: ITopic;
  /** The KMS key webhook signing secrets are encrypted under. */
  readonly webhookSecretsKey: IKey;
  /** The event pipe's dead-letter queue. */
  readonly eventPipeDeadLetterQueue: IQueue;
  /** The feed pipe's dead-letter queue. */
  readonly feedPipeDeadLetterQueue: IQueue;
}

/**
 * The stateful stack's table, bucket, queues, alarm topic and webhook secrets key, imported by their fixed export names. Fixed names keep
 * ARNs rendering the same everywhere (cdk-nag finding ids among them) whatever the logical ids.
 *
 * The bucket, the queues, the topic and the key are imported on first use only: CloudFormation locks every export some stack
 * imports, so importing only what a function is granted keeps the stateful stack free to change the rest.
 */
export class StatefulImports extends Construct implements ServiceResources {
  readonly table: ITable;
  private readonly exported: StatefulExports;
  private readonly acknowledgedPrefixes = new Set<string>();
  /** What was imported so far, by construct id. */
  private readonly imported = new Map<string, unknown>();

  constructor(scope: Construct, id: string, exported: StatefulExports) {
    super(scope, id);
    this.exported = exported;
    this.table = Table.fromTableAttributes(this, 'Table', {
      tableArn: Fn.importValue(exported.table.tableArnExportName),
      globalIndexes: [...exported.table.indexNames],
    });
    Validations.of(Stack.of(this)).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${exported.table.tableArnExportName}/index/*]`,
      reason: `CDK table grants cover the table's GSIs as <table ARN>/index/*; the table has only its own indexes (${exported.table.indexNames.join(', ')}), and the actions stay read-only for 'read' functions.`,
    });
  }

  get bucket(): IBucket {
    return this.importOnce('Bucket', (id) =>
      Bucket.fromBucketAttributes(this, id, {
        bucketArn: Fn.importValue(this.exported.bucket.bucketArnExportName),
      }),
    );
  }

  get proofRetentionDays(): number {
    return this.exported.bucket.proofRetentionDays;
  }

  bucketObjectsArn(keyPrefix: string): string {
    if (!this.acknowledgedPrefixes.has(keyPrefix)) {
      this.acknowledgedPrefixes.add(keyPrefix);
      Validations.of(Stack.of(this)).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${this.exported.bucket.bucketArnExportName}/${keyPrefix}*]`,
        reason:
          "Object keys are made per object under a prefix of what they hold (imports/, uploads/, revisions/, analytics/, proofs/, each <prefix><account>/...), so object grants name <bucket ARN>/<prefix>*, and each function is granted only the prefixes its code reads or writes (ResourceAccess.bucketKeyPrefixes: none gets the whole bucket). Each statement allows reads (s3:GetObject) or writes (s3:PutObject, with aborting its multipart uploads), never List or Delete. proofs/ holds tenants' evidence for proofRetentionDays: only the proof check and the evidence read may read it, only create-only presigned links write proofs, and the evidence read writes delivery notes under proofs/delivery-notes/ only.",
      });
    }
    return this.bucket.arnForObjects(`${keyPrefix}*`);
  }

  get alarmTopic(): ITopic {
    return this.importOnce('AlarmTopic', (id) =>
      Topic.fromTopicArn(this, id, Fn.importValue(this.exported.alarmTopicArnExportName)),
    );
  }

  get webhookSecretsKey(): IKey {
    return this.importOnce('WebhookSecretsKey', (id) =>
      Key.fromKeyArn(this, id, Fn.importValue(this.exported.webhookSecretsKeyArnExportName)),
    );
  }

  get eventPipeDeadLetterQueue(): IQueue {
    return this.importPipeDeadLetterQueue(
      'EventPipeDeadLetterQueue',
      this.exported.eventPipeDeadLetterArnExportName,
    );
  }

  get feedPipeDeadLetterQueue(): IQueue {
    return this.importPipeDeadLetterQueue(
      'FeedPipeDeadLetterQueue',
      this.exported.feedPipeDeadLetterArnExportName,
    );
  }

  queue(channel: Channel): IQueue {
    const { queueArnExportName, queueUrlExportName } = this.queueExports(channel);
    return this.importQueue(channelQueueIds(channel.name).queue, queueArnExportName, queueUrlExportName);
  }

  deadLetterQueue(channel: Channel): IQueue {
    const { deadLetterArnExportName, deadLetterUrlExportName } = this.queueExports(channel);
    return this.importQueue(
      channelQueueIds(channel.name).deadLetterQueue,
      deadLetterArnExportName,
      deadLetterUrlExportName,
    );
  }

  private queueExports(channel: Channel) {
    const exported = this.exported.queues[channel.name as ChannelName];
    if (!exported) throw new Error(`the stateful stack exports no queue for the channel ${channel.name}`);
    return exported;
  }

  private importQueue(id: string, arnExportName: string, urlExportName: string): IQueue {
    return this.importOnce(id, () =>
      Queue.fromQueueAttributes(this, id, {
        queueArn: Fn.importValue(arnExportName),
        queueUrl: Fn.importValue(urlExportName),
      }),
    );
  }

  /** A pipe's dead-letter queue, imported as construct `id` by its ARN (the stateful stack exports no URL of it). */
  private importPipeDeadLetterQueue(id: string, arnExportName: string): IQueue {
    return this.importOnce(id, () => Queue.fromQueueArn(this, id, Fn.importValue(arnExportName)));
  }

  /** The resource imported as construct `id`: by `make` on first use, the same one afterwards. */
  private importOnce<T>(id: string, make: (id: string) => T): T {
    if (!this.imported.has(id)) this.imported.set(id, make(id));
    return this.imported.get(id) as T;
  }
}
