import { BUCKET_NAME_ENV, QUEUES, type QueueName, TABLE_NAME_ENV } from '../functions/shared/resources';
import type { LocalResources } from './resources';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

/**
 * The environment the handlers get locally: the same variables CDK sets on AWS, plus the SDK's own
 * endpoint variables, so handler code never knows where it runs.
 */
export function localHandlerEnvironment(
  endpoints: { dynamodb: string; aws: string },
  resources: LocalResources,
): Record<string, string> {
  const queueEnv = Object.fromEntries(
    (Object.keys(QUEUES) as QueueName[]).flatMap((name) => [
      [QUEUES[name].urlEnv, resources.queueUrls[name]],
      [QUEUES[name].deadLetterUrlEnv, resources.dlqUrls[name]],
    ]),
  );
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.aws,
    AWS_ENDPOINT_URL_S3: endpoints.aws,
    S3_FORCE_PATH_STYLE: 'true',
    [TABLE_NAME_ENV]: resources.tableName,
    [BUCKET_NAME_ENV]: resources.bucketName,
    ...queueEnv,
    // Local receivers listen on 127.0.0.1, which the SSRF guard refuses by default.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // This machine runs Node 20 (Lambda runs 22); the SDK's reminder about that is noise here.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // No X-Ray here. Off already without AWS_EXECUTION_ENV, but a shell may have one (AWS CloudShell does).
    POWERTOOLS_TRACE_ENABLED: 'false',
    // No CloudWatch to read the EMF lines either: they would only bury the logs. The shell's value wins
    // (POWERTOOLS_METRICS_DISABLED=false npm start prints them).
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  };
}
