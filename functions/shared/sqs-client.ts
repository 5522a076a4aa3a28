import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientOptions } from './config';
import { traceAwsClient } from './observability';

/**
 * The SQS client and the only commands the service sends, imported by name: queues.ts loads this module on
 * first use with `import()`, and a bundler keeps all of a dynamically imported module's exports. Importing
 * `@aws-sdk/client-sqs` itself that way would bundle every SQS command; by name here, only these.
 */
export { SendMessageBatchCommand, SendMessageCommand };

/**
 * Requests go to the client's endpoint (the regional one on AWS, AWS_ENDPOINT_URL_SQS locally), not to the
 * host inside the queue URL, which the local emulator names sqs.<region>.localhost.
 */
export function createSqsClient(): SQSClient {
  return traceAwsClient(new SQSClient({ ...awsClientOptions('SQS'), useQueueUrlAsEndpoint: false }));
}
