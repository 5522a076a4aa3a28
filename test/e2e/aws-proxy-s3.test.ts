import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { useAwsProxy } from '../support/aws-proxy';

/**
 * The local S3 as S3 answers what fauxqs does not implement: conditional writes (If-None-Match: *), which
 * create an object only while its key holds none (S3 User Guide, "How to prevent object overwrites with
 * conditional writes"), and the `s3:if-none-match` condition key of IAM policies that require them.
 */
const aws = useAwsProxy();

const text = async (key: string) =>
  (
    await aws.admin.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: key }))
  ).Body?.transformToString();

const put = (key: string, body: string, conditions: { IfNoneMatch?: string; IfMatch?: string } = {}) =>
  aws.admin.s3.send(new PutObjectCommand({ Bucket: aws.names.bucket, Key: key, Body: body, ...conditions }));

describe('If-None-Match: * on PutObject', () => {
  it('creates an object while the key holds none, and answers 412 PreconditionFailed once it does, leaving it as it was', async () => {
    await put('conditional/first.txt', 'first', { IfNoneMatch: '*' });
    const refused = await aws.failure(put('conditional/first.txt', 'second', { IfNoneMatch: '*' }));
    expect(refused.name).toBe('PreconditionFailed');
    expect(refused.$metadata?.httpStatusCode).toBe(412);
    expect(await text('conditional/first.txt')).toBe('first');
    // Without the condition S3 replaces the object, as before.
    await put('conditional/first.txt', 'replaced');
    expect(await text('conditional/first.txt')).toBe('replaced');
  });

  it('lets one of conditional writes of one key at once create it; the others get 412', async () => {
    const bodies = ['a', 'b', 'c', 'd', 'e'];
    const outcomes = await Promise.allSettled(
      bodies.map((body) => put('conditional/raced.txt', body, { IfNoneMatch: '*' })),
    );
    const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [bodies[index]] : []));
    expect(won).toHaveLength(1);
    for (const outcome of outcomes.filter((candidate) => candidate.status === 'rejected'))
      expect((outcome.reason as Error).name).toBe('PreconditionFailed');
    expect(await text('conditional/raced.txt')).toBe(won[0]);
  });

  it('answers 501 NotImplemented to another If-None-Match value, and to If-Match (not implemented locally)', async () => {
    for (const conditions of [{ IfNoneMatch: '"abc"' }, { IfMatch: '"abc"' }]) {
      const refused = await aws.failure(put('conditional/other.txt', 'x', conditions));
      expect(refused.$metadata?.httpStatusCode).toBe(501);
      expect(refused.name).toBe('NotImplemented');
    }
    const missing = await aws.failure(text('conditional/other.txt'));
    expect(missing.name).toBe('NoSuchKey');
  });

  it('holds a presigned PUT to the If-None-Match it signs: without it 403, with it once, then 412', async () => {
    const command = new PutObjectCommand({
      Bucket: aws.names.bucket,
      Key: 'conditional/linked.txt',
      IfNoneMatch: '*',
    });
    // As the service signs links: no checksum of a body it does not have (the presigner adds one by default).
    const signer = new S3Client({
      ...aws.clientConfig(aws.admin.principal),
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const link = await getSignedUrl(signer, command, {
      expiresIn: 60,
      signableHeaders: new Set(['if-none-match']),
    });
    signer.destroy();
    expect(new URL(link).searchParams.get('X-Amz-SignedHeaders')).toContain('if-none-match');
    expect((await fetch(link, { method: 'PUT', body: 'no header' })).status).toBe(403);
    const first = await fetch(link, { method: 'PUT', body: 'first', headers: { 'If-None-Match': '*' } });
    expect(first.status).toBe(200);
    const again = await fetch(link, { method: 'PUT', body: 'again', headers: { 'If-None-Match': '*' } });
    expect(again.status).toBe(412);
    expect(await again.text()).toContain('<Code>PreconditionFailed</Code>');
    expect(await text('conditional/linked.txt')).toBe('first');
  });
});

describe('If-None-Match: * on CompleteMultipartUpload', () => {
  async function multipart(key: string, body: string) {
    const { UploadId } = await aws.admin.s3.send(
      new CreateMultipartUploadCommand({ Bucket: aws.names.bucket, Key: key }),
    );
    const { ETag } = await aws.admin.s3.send(
      new UploadPartCommand({ Bucket: aws.names.bucket, Key: key, UploadId, PartNumber: 1, Body: body }),
    );
    return aws.admin.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: aws.names.bucket,
        Key: key,
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] },
        IfNoneMatch: '*',
      }),
    );
  }

  it('completes while the key holds no object, and answers 412 once it does', async () => {
    await multipart('conditional/parts.txt', 'first');
    const refused = await aws.failure(multipart('conditional/parts.txt', 'second'));
    expect(refused.name).toBe('PreconditionFailed');
    expect(await text('conditional/parts.txt')).toBe('first');
  });
});

describe('the s3:if-none-match condition key', () => {
  it('lets a policy refuse every PutObject that does not send If-None-Match', async () => {
    const createOnly = aws.principal('create-only', [
      {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 's3:PutObject', Resource: `${aws.bucketArn}/*` },
          {
            Effect: 'Deny',
            Action: 's3:PutObject',
            Resource: `${aws.bucketArn}/*`,
            Condition: { Null: { 's3:if-none-match': 'true' } },
          },
        ],
      },
    ]);
    aws.proxy.addPrincipal(createOnly);
    const { s3 } = aws.clientsFor(createOnly);
    const send = (key: string, conditions: { IfNoneMatch?: string } = {}) =>
      s3.send(new PutObjectCommand({ Bucket: aws.names.bucket, Key: key, Body: 'x', ...conditions }));
    const refused = await aws.failure(send('conditional/policy.txt'));
    expect(refused.name).toBe('AccessDenied');
    expect(refused.message).toContain('explicit deny');
    await send('conditional/policy.txt', { IfNoneMatch: '*' });
    expect(await text('conditional/policy.txt')).toBe('x');
  });
});

describe('response-* parameters of a GetObject', () => {
  it('answer the headers they name in place of the stored ones, on a presigned GET too', async () => {
    await aws.admin.s3.send(
      new PutObjectCommand({
        Bucket: aws.names.bucket,
        Key: 'overrides/report.csv',
        Body: 'id\n1\n',
        ContentType: 'text/plain',
      }),
    );
    const command = new GetObjectCommand({
      Bucket: aws.names.bucket,
      Key: 'overrides/report.csv',
      ResponseContentDisposition: 'attachment; filename="route 1.csv"',
      ResponseContentType: 'text/csv; charset=utf-8',
      ResponseCacheControl: 'no-store',
    });
    const link = await getSignedUrl(aws.admin.s3, command, { expiresIn: 60 });
    const response = await fetch(link);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="route 1.csv"');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('id\n1\n');
    // Without them, the stored headers.
    const plain = await aws.admin.s3.send(
      new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'overrides/report.csv' }),
    );
    expect(plain.ContentType).toBe('text/plain');
    expect(plain.ContentDisposition).toBeUndefined();
  });
});
