import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { requireEnv } from '../shared/env';
import { BUCKET_NAME_ENV } from '../shared/resources';

/** Path-style addressing only where configured (the local S3 emulator); AWS uses virtual-hosted style. */
const s3 = new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });
const bucketName = requireEnv(BUCKET_NAME_ENV);

export const bucketKeys = {
  importPayload: (accountId: string, txid: string) => `imports/${accountId}/${txid}.json`,
};

export async function putJsonObject(key: string, body: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: bucketName, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

export async function getJsonObject(key: string): Promise<unknown> {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
  if (!Body) throw new Error(`object ${key} has no body`);
  return JSON.parse(await Body.transformToString('utf8'));
}
