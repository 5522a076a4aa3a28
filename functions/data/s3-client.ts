import { S3Client } from '@aws-sdk/client-s3';
import { awsClientOptions, config } from '../shared/config';
import { traceAwsClient } from '../shared/observability';

/**
 * The S3 client, for the multipart uploads of bucket-uploads.ts, which loads this module on first use.
 * Path-style addressing only where configured (the local S3 emulator); AWS uses virtual-hosted style.
 */
export function createS3Client(): S3Client {
  return traceAwsClient(
    new S3Client({ ...awsClientOptions('S3'), forcePathStyle: config().s3ForcePathStyle }),
  );
}
