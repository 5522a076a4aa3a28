import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { awsClientOptions } from '../shared/config';
import { traceAwsClient } from '../shared/observability';

/**
 * The STS client and the one command the service sends, imported by name for the reason kms-client.ts gives:
 * bucket-links.ts loads this module with `import()` only when it signs a link, so no other function bundles or
 * loads STS.
 */
export { AssumeRoleCommand };

export function createStsClient(): STSClient {
  return traceAwsClient(new STSClient(awsClientOptions('STS')));
}
