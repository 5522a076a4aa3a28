import { localHandlerEnvironment } from './environment';
import { createQueuesAndBucket, createTable, type LocalResources } from './resources';
import { type RunningService, startDynamoDbLocal, startLocalAws } from './services';

export interface LocalStack {
  endpoints: { dynamodb: string; aws: string };
  resources: LocalResources;
  /** Environment for the handlers (already applied to process.env). */
  environment: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local and fauxqs on free ports, the table, queues and bucket created from the same
 * definitions as CDK's, and process.env pointed at them for the handlers loaded afterwards.
 */
export async function startLocalStack(options: {
  dataDir?: string;
  namePrefix: string;
}): Promise<LocalStack> {
  const services: RunningService[] = [];
  const stop = async () => {
    await Promise.all(services.map((service) => service.stop()));
  };
  try {
    const dynamodb = await startDynamoDbLocal({ dataDir: options.dataDir });
    services.push(dynamodb);
    const aws = await startLocalAws();
    services.push(aws);
    const endpoints = { dynamodb: dynamodb.endpoint, aws: aws.endpoint };
    const resources = await createLocalResources(endpoints, options.namePrefix);
    const environment = localHandlerEnvironment(endpoints, resources);
    Object.assign(process.env, environment);
    return { endpoints, resources, environment, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The table, queues and bucket of one stack, named after `namePrefix`. */
export async function createLocalResources(
  endpoints: { dynamodb: string; aws: string },
  namePrefix: string,
): Promise<LocalResources> {
  const tableName = `${namePrefix}-table`;
  await createTable(endpoints.dynamodb, tableName);
  const rest = await createQueuesAndBucket(endpoints.aws, {
    queuePrefix: namePrefix,
    bucketName: `${namePrefix}-bucket`,
  });
  return { tableName, ...rest };
}
