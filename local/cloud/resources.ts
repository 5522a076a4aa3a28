import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';
import { CreateQueueCommand, DeleteQueueCommand, QueueDoesNotExist, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS } from '../services';
import { type Deployment, LOCAL_REGION, type QueueSpec, type TableSpec } from './model';

/** The clients of the local operator, who creates and empties a deployment's resources. */
function operatorClients(endpoint: string) {
  const config = { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const clients = {
    dynamodb: new DynamoDBClient(config),
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    s3: new S3Client({ ...config, forcePathStyle: true }),
  };
  const destroy = () => {
    for (const client of Object.values(clients)) client.destroy();
  };
  return { ...clients, destroy };
}

/**
 * Creates the tables, queues (dead-letter queues first: a redrive policy names its DLQ) and buckets as the
 * templates declare them, as the operator; keeps what exists. Returns each table's stream ARN.
 */
export async function createResources(
  deployment: Deployment,
  endpoint: string,
): Promise<Record<string, string>> {
  const { dynamodb, sqs, s3, destroy } = operatorClients(endpoint);
  try {
    const streamArns: Record<string, string> = {};
    for (const table of deployment.tables) {
      await createTable(dynamodb, table);
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: table.name }));
      if (Table?.LatestStreamArn) streamArns[table.logicalId] = Table.LatestStreamArn;
    }
    await createQueues(sqs, deployment.queues);
    for (const bucket of deployment.buckets) {
      try {
        await s3.send(new CreateBucketCommand({ Bucket: bucket.name }));
      } catch (error) {
        if (!(error instanceof Error && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
      }
    }
    return streamArns;
  } finally {
    destroy();
  }
}

/**
 * Empties the resources createResources made, as if they were made anew under the same names: each table and
 * queue is deleted and created again (with its items, stream or messages gone), each bucket's objects deleted.
 */
export async function emptyResources(deployment: Deployment, endpoint: string): Promise<void> {
  const { dynamodb, sqs, s3, destroy } = operatorClients(endpoint);
  try {
    for (const table of deployment.tables) {
      try {
        await dynamodb.send(new DeleteTableCommand({ TableName: table.name }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error; // deleted by its user
      }
      await createTable(dynamodb, table);
    }
    // Deleted and created again, not purged: a long poll its client gave up on waits on in SQS, and would take
    // the next message sent to the queue it waits on out of sight for the visibility timeout.
    for (const queue of deployment.queues) {
      try {
        await sqs.send(new DeleteQueueCommand({ QueueUrl: queue.url }));
      } catch (error) {
        if (!(error instanceof QueueDoesNotExist)) throw error; // deleted by its user
      }
    }
    await createQueues(sqs, deployment.queues);
    for (const bucket of deployment.buckets) {
      for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket.name })) {
        const objects = (page.Contents ?? []).map(({ Key }) => ({ Key }));
        if (objects.length === 0) continue;
        const { Errors = [] } = await s3.send(
          new DeleteObjectsCommand({ Bucket: bucket.name, Delete: { Objects: objects, Quiet: true } }),
        );
        if (Errors.length > 0)
          throw new Error(`objects of ${bucket.name} not deleted: ${JSON.stringify(Errors.slice(0, 3))}`);
      }
    }
  } finally {
    destroy();
  }
}

/** Creates the queues, dead-letter queues first: a redrive policy names its DLQ. */
async function createQueues(sqs: SQSClient, queues: readonly QueueSpec[]): Promise<void> {
  const redrives = (queue: QueueSpec) => (queue.attributes.RedrivePolicy ? 1 : 0);
  for (const queue of [...queues].sort((a, b) => redrives(a) - redrives(b))) {
    await sqs.send(new CreateQueueCommand({ QueueName: queue.name, Attributes: queue.attributes }));
  }
}

async function createTable(dynamodb: DynamoDBClient, table: TableSpec): Promise<void> {
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: table.billingMode,
        AttributeDefinitions: table.attributeDefinitions.map(({ name, type }) => ({
          AttributeName: name,
          AttributeType: type,
        })),
        KeySchema: [
          { AttributeName: table.partitionKey.name, KeyType: 'HASH' },
          ...(table.sortKey ? [{ AttributeName: table.sortKey.name, KeyType: 'RANGE' as const }] : []),
        ],
        GlobalSecondaryIndexes: table.globalSecondaryIndexes.length
          ? table.globalSecondaryIndexes.map((index) => ({
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
                ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
              ],
              Projection: { ProjectionType: index.projectionType, NonKeyAttributes: index.nonKeyAttributes },
            }))
          : undefined,
        StreamSpecification: table.streamViewType
          ? { StreamEnabled: true, StreamViewType: table.streamViewType }
          : undefined,
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return; // kept from an earlier run
    throw error;
  }
  if (table.ttlAttribute) {
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: table.name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  }
}
