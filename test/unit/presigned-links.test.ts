import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it } from 'vitest';
import { signedObjectUrl } from '../../functions/data/bucket-links';
import type { ObjectRequest } from '../../functions/data/bucket-requests';
import { configure, resetConfig } from '../../functions/shared/config';

/**
 * The service signs its links without the S3 client (functions/data/bucket-links.ts, signedObjectUrl). The SDK's
 * presigner, given the same credentials, time and request, is the reference: the URLs must be equal, byte for
 * byte, wherever the service runs (AWS partitions, the local emulator's path-style endpoint).
 */
const credentials = {
  accessKeyId: 'ASIAEXAMPLEKEY',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjE+/token=',
};
const signingDate = new Date('2026-11-27T21:04:05Z');
const BUCKET = 'delivery-routes-stateful-bucket83908e77-1x2y3z';

const places = [
  { name: 'AWS, eu-west-1', env: { AWS_REGION: 'eu-west-1' }, client: {} },
  { name: 'AWS, us-east-1', env: { AWS_REGION: 'us-east-1' }, client: {} },
  { name: 'AWS China', env: { AWS_REGION: 'cn-north-1' }, client: {} },
  { name: 'AWS GovCloud', env: { AWS_REGION: 'us-gov-west-1' }, client: {} },
  {
    name: 'the local emulator (path-style)',
    env: {
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4566',
      S3_FORCE_PATH_STYLE: 'true',
    },
    client: { endpoint: 'http://127.0.0.1:4566', forcePathStyle: true },
  },
  {
    name: 'an endpoint with a path, virtual-hosted',
    env: { AWS_REGION: 'eu-central-1', AWS_ENDPOINT_URL_S3: 'https://s3.example.test:8443/base' },
    client: { endpoint: 'https://s3.example.test:8443/base' },
  },
];

/** Keys of every shape the service writes, with the characters S3 keys may hold that URLs escape. */
const keys = [
  'imports/acc_1/tx_1.json',
  "proofs/acc_1/route é/00007/prf_0123 + (copy)!*'~.jpg",
  'analytics/acc_1/tx/routes-2026-11-27.csv',
  'delivery-notes/acc_1/Route%20Ü/ab.pdf',
];

type Case = {
  name: string;
  object: ObjectRequest;
  command: (bucket: string) => GetObjectCommand | PutObjectCommand;
};
const cases: Case[] = keys.flatMap((key): Case[] => [
  {
    name: `a download of ${key}`,
    object: {
      method: 'GET',
      key,
      query: { 'response-content-disposition': 'attachment; filename="route é (1).csv"' },
    },
    command: (bucket) =>
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: 'attachment; filename="route é (1).csv"',
      }),
  },
  {
    name: `an upload of ${key}`,
    object: { method: 'PUT', key },
    command: (bucket) => new PutObjectCommand({ Bucket: bucket, Key: key }),
  },
  {
    name: `an upload of ${key} held to its type and length`,
    object: {
      method: 'PUT',
      key,
      headers: { 'content-type': 'image/jpeg', 'content-length': '123456' },
    },
    command: (bucket) =>
      new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: 'image/jpeg', ContentLength: 123456 }),
  },
  {
    name: `an upload of ${key} that may only create it (If-None-Match: *)`,
    object: {
      method: 'PUT',
      key,
      headers: { 'content-type': 'image/png', 'content-length': '64', 'if-none-match': '*' },
    },
    command: (bucket) =>
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        ContentType: 'image/png',
        ContentLength: 64,
        IfNoneMatch: '*',
      }),
  },
]);

/** The SDK's URL: the presigner on an S3 client configured as the service's was before it signed alone. */
async function sdkUrl(place: (typeof places)[number], testCase: Case): Promise<string> {
  const s3 = new S3Client({
    region: place.env.AWS_REGION,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...place.client,
  });
  const signed = testCase.object.headers ? new Set(Object.keys(testCase.object.headers)) : undefined;
  return getSignedUrl(s3, testCase.command(BUCKET), {
    expiresIn: 900,
    signingDate,
    ...(signed ? { signableHeaders: signed } : {}),
  });
}

describe('presigned links, signed without the S3 client', () => {
  afterEach(() => resetConfig());

  for (const place of places) {
    it(`are the SDK presigner's URLs, in ${place.name}`, async () => {
      configure({ BUCKET_NAME: BUCKET, ...place.env });
      for (const testCase of cases) {
        const ours = await signedObjectUrl(testCase.object, credentials, signingDate, 900);
        expect(ours, testCase.name).toBe(await sdkUrl(place, testCase));
      }
    });
  }

  it('sign what an upload is held to: another type or length is another signature', async () => {
    configure({ BUCKET_NAME: BUCKET, AWS_REGION: 'eu-west-1' });
    const upload = (type: string, length: string) =>
      signedObjectUrl(
        {
          method: 'PUT',
          key: 'proofs/a/b/00001/p',
          headers: { 'content-type': type, 'content-length': length },
        },
        credentials,
        signingDate,
        900,
      );
    const signature = (url: string) => new URL(url).searchParams.get('X-Amz-Signature');
    const url = await upload('image/jpeg', '100');
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(signature(await upload('image/png', '100'))).not.toBe(signature(url));
    expect(signature(await upload('image/jpeg', '101'))).not.toBe(signature(url));
  });

  it('name the variable when the region is missing', async () => {
    configure({ BUCKET_NAME: BUCKET, AWS_REGION: undefined });
    await expect(signedObjectUrl({ method: 'GET', key: 'k' }, credentials, signingDate, 60)).rejects.toThrow(
      'AWS_REGION',
    );
  });
});
