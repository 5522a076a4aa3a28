import { GetObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { SigningCredentials } from '../../functions/data/bucket-requests';
import { configure } from '../../functions/shared/config';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import { LOCAL_REGION } from '../../local/cloud/model';
import type { AwsProxyFixture } from './aws-proxy';

/** The service's object requests (functions/data/bucket.ts) as a function with the fixture's bucket sends them. */

/** Points the service's code at `endpoint` (the signing proxy, or a stand-in for S3), signing as `who`. */
export function signObjectRequestsAs(
  aws: AwsProxyFixture,
  who: SigningCredentials,
  endpoint = aws.proxy.endpoint,
): void {
  configure({
    AWS_REGION: LOCAL_REGION,
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: who.accessKeyId,
    AWS_SECRET_ACCESS_KEY: who.secretAccessKey,
    AWS_SESSION_TOKEN: who.sessionToken,
    [RESOURCE_ENV.bucket]: aws.names.bucket,
    S3_FORCE_PATH_STYLE: 'true',
  });
}

/** A write outside the function's grant failed with S3's AccessDenied, and left no object at `key`. */
export async function expectDeniedWritingNothing(
  aws: AwsProxyFixture,
  write: Promise<unknown>,
  key: string,
): Promise<void> {
  const denied = await write.catch((error: unknown) => error);
  expect(denied).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  const read = await aws.failure(
    aws.admin.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: key })),
  );
  expect(read.name).toBe('NoSuchKey');
}
