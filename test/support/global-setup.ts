import type { TestProject } from 'vitest/node';
import { type RunningService, startDynamoDbLocal, startLocalAws } from '../../local/services';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    awsEndpoint: string;
  }
}

let services: RunningService[] = [];

/** Starts DynamoDB Local (in memory) and fauxqs once for the run; nothing has to be running beforehand. */
export async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const [dynamodb, aws] = await Promise.all([startDynamoDbLocal(), startLocalAws()]);
  services = [dynamodb, aws];
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('awsEndpoint', aws.endpoint);
}

export async function teardown() {
  await Promise.all(services.map((service) => service.stop()));
}
