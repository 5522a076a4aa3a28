import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { awsClientOptions } from '../shared/config';
import { traceAwsClient } from '../shared/observability';

/**
 * The KMS client and the only commands the service sends, imported by name: a bundler keeps all of a
 * dynamically imported module's exports, and `import()` of `@aws-sdk/client-kms` itself would bundle every
 * command of the client. secret-envelope.ts loads this module with `import()` when it first seals or opens a
 * secret, so only the functions that do (webhook creation and rotation, the delivery worker) bundle the KMS
 * client.
 */
export { DecryptCommand, GenerateDataKeyCommand };

/** The endpoint comes from AWS_ENDPOINT_URL_KMS locally, never from code. */
export function createKmsClient(): KMSClient {
  return traceAwsClient(new KMSClient(awsClientOptions('KMS')));
}
