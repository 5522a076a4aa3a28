import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { awsClientOptions, config } from '../shared/config';
import { traceAwsClient } from '../shared/observability';

/**
 * The S3 client and the only commands the service sends, imported by name: bucket.ts loads this module on
 * first use with `import()`, and a bundler keeps all of a dynamically imported module's exports. Importing
 * `@aws-sdk/client-s3` itself that way would put the whole client (every command and waiter, 150 KB) into
 * each bundle that can reach the bucket; importing it by name here keeps only these.
 */
export { GetObjectCommand, HeadObjectCommand, PutObjectCommand };

/** Path-style addressing only where configured (the local S3 emulator); AWS uses virtual-hosted style. */
export function createS3Client(): S3Client {
  return traceAwsClient(
    new S3Client({ ...awsClientOptions('S3'), forcePathStyle: config().s3ForcePathStyle }),
  );
}
