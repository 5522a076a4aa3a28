import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TABLE_SCHEMA } from '../functions/data/table-schema';
import { DLQ_RETENTION_DAYS, QUEUES, type QueueName } from '../functions/shared/resources';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

export interface LocalResources {
  tableName: string;
  bucketName: string;
  queueUrls: Record<QueueName, string>;
  dlqUrls: Record<QueueName, string>;
}

const clientConfig = (endpoint: string) => ({
  endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
});

/** Creates the table exactly as the stateful stack declares it (keys, GSIs, stream, TTL); keeps an existing one. */
export async function createTable(dynamoEndpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient(clientConfig(dynamoEndpoint));
  const { partitionKey, sortKey, ttlAttribute, indexes } = TABLE_SCHEMA;
  const keyAttributes = [
    partitionKey,
    sortKey,
    ...Object.values(indexes).flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: Object.entries(indexes).map(([name, index]) => ({
          IndexName: name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  } finally {
    client.destroy();
  }
}

/** Creates every queue of QUEUES with its DLQ and redrive policy, and the bucket, on fauxqs. */
export async function createQueuesAndBucket(
  awsEndpoint: string,
  names: { queuePrefix: string; bucketName: string },
): Promise<Omit<LocalResources, 'tableName'>> {
  const sqs = new SQSClient({ ...clientConfig(awsEndpoint), useQueueUrlAsEndpoint: false });
  const s3 = new S3Client({ ...clientConfig(awsEndpoint), forcePathStyle: true });
  const queueUrls = {} as Record<QueueName, string>;
  const dlqUrls = {} as Record<QueueName, string>;
  try {
    for (const [name, queue] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
      const dlq = await sqs.send(
        new CreateQueueCommand({
          QueueName: `${names.queuePrefix}-${name}-dlq`,
          Attributes: { MessageRetentionPeriod: String(DLQ_RETENTION_DAYS * 86_400) },
        }),
      );
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: `${names.queuePrefix}-${name}`,
          Attributes: {
            VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: Attributes?.QueueArn,
              maxReceiveCount: queue.maxReceiveCount,
            }),
          },
        }),
      );
      queueUrls[name] = main.QueueUrl as string;
      dlqUrls[name] = dlq.QueueUrl as string;
    }
    try {
      await s3.send(new CreateBucketCommand({ Bucket: names.bucketName }));
    } catch (error) {
      if (!(error instanceof Error && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
    }
  } finally {
    sqs.destroy();
    s3.destroy();
  }
  return { bucketName: names.bucketName, queueUrls, dlqUrls };
}
