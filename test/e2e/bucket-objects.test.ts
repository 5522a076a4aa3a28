import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  digestObject,
  getObjectBytes,
  getObjectText,
  isMissingObject,
  ObjectTooLargeError,
  objectExists,
  putJsonObject,
  putObjectBytes,
  readableObjectMetadata,
} from '../../functions/data/bucket';
import { resetConfig } from '../../functions/shared/config';
import { useAwsProxy } from '../support/aws-proxy';
import { expectDeniedWritingNothing, signObjectRequestsAs } from '../support/bucket-requests';

/**
 * The service's object reads and writes (functions/data/bucket.ts), which send S3's REST requests without the
 * S3 client, against the local S3 behind the signing proxy (signature, IAM, then fauxqs): signed as a function
 * with CDK's grant, what they write the SDK reads back, and what the SDK writes they read.
 */
const aws = useAwsProxy();

/** A key with the characters S3 keys may hold that URLs escape. */
const ODD_KEY = "proofs/acc_1/route é/00007/prf_0123 + (copy)!*'~.jpg";

beforeAll(() => {
  // A role's session, as Lambda gives a function: its token is signed with every request.
  const writer = aws.principal(
    'object-writer',
    [
      aws.functionPolicy(),
      {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: `${aws.bucketArn}/objects/*` }],
      },
    ],
    { sessionToken: randomBytes(48).toString('base64') },
  );
  aws.proxy.addPrincipal(writer);
  signObjectRequestsAs(aws, writer);
});
afterAll(resetConfig);

describe('object writes and reads without the S3 client', () => {
  it('writes bytes with their content type and metadata, which the SDK reads back, and reads them again', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    const key = 'objects/note é.pdf';
    await putObjectBytes(key, bytes, 'application/pdf', { 'proof-sha256': 'abc', route: 'rt 1' });

    const read = await aws.admin.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: key }));
    expect(read.ContentType).toBe('application/pdf');
    expect(read.Metadata).toEqual({ 'proof-sha256': 'abc', route: 'rt 1' });
    expect([...((await read.Body?.transformToByteArray()) ?? [])]).toEqual([...bytes]);

    expect([...(await getObjectBytes(key, 5))]).toEqual([...bytes]);
    expect(await readableObjectMetadata(key)).toEqual({ 'proof-sha256': 'abc', route: 'rt 1' });
    expect(await objectExists(key)).toBe(true);
  });

  it('writes JSON text and reads what the SDK wrote under a key URLs escape', async () => {
    await putJsonObject('objects/body.json', '{"route_id":"r é"}');
    const head = await aws.admin.s3.send(
      new HeadObjectCommand({ Bucket: aws.names.bucket, Key: 'objects/body.json' }),
    );
    expect(head.ContentType).toBe('application/json');
    expect(await getObjectText('objects/body.json', 1000)).toBe('{"route_id":"r é"}');

    await aws.admin.s3.send(
      new PutObjectCommand({ Bucket: aws.names.bucket, Key: ODD_KEY, Body: 'photo', Metadata: { a: 'b' } }),
    );
    expect(await getObjectText(ODD_KEY, 5)).toBe('photo');
    expect(await readableObjectMetadata(ODD_KEY)).toEqual({ a: 'b' });
  });

  it('refuses an object over the reader’s limit before reading its body', async () => {
    await putJsonObject('objects/large.json', 'x'.repeat(2000));
    const refused = await getObjectBytes('objects/large.json', 1999).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ObjectTooLargeError);
    expect(refused).toMatchObject({ key: 'objects/large.json', size: 2000 });
    // The connection of the refused read is free again: the next reads go through.
    expect((await getObjectBytes('objects/large.json', 2000)).length).toBe(2000);
  });

  it('digests an object in one streamed read: size, first bytes, SHA-256 and Last-Modified', async () => {
    const body = Buffer.alloc(300_000, 7);
    body.write('%PDF-1.7', 0);
    const before = Date.now();
    await putObjectBytes('objects/proof.bin', body, 'application/octet-stream', {});
    const { lastModified, digest } = await digestObject('objects/proof.bin', {
      maxBytes: 300_000,
      firstBytes: 8,
    });
    // Last-Modified has whole seconds.
    expect(lastModified).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(lastModified).toBeLessThanOrEqual(Date.now());
    expect(digest).toEqual({
      size: 300_000,
      firstBytes: Buffer.from('%PDF-1.7'),
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    const tooLarge = await digestObject('objects/proof.bin', { maxBytes: 299_999, firstBytes: 8 });
    expect(tooLarge).toEqual({ lastModified });
  });

  it('frees each connection it used: more HEADs in a row than the HTTP handler keeps connections (50)', async () => {
    await putJsonObject('objects/head.json', '{}');
    for (let count = 0; count < 60; count++) expect(await objectExists('objects/head.json')).toBe(true);
    for (let count = 0; count < 60; count++) expect(await objectExists('objects/never-written')).toBe(false);
  });

  it('tells a missing object apart: S3 answers 403 to a function that may not list the bucket', async () => {
    expect(await objectExists('objects/never-written')).toBe(false);
    expect(await readableObjectMetadata('objects/never-written')).toBeUndefined();
    const missing = await getObjectBytes('objects/never-written', 10).catch((error: unknown) => error);
    expect(isMissingObject(missing)).toBe(true);
    expect(missing).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  });

  it('fails a write the function’s grant does not cover with S3’s error, writing nothing', async () => {
    await expectDeniedWritingNothing(aws, putJsonObject('elsewhere/x.json', '{}'), 'elsewhere/x.json');
  });
});

describe('retries, against a stand-in for S3 answering 503 SlowDown (the local S3 never throttles)', () => {
  let server: Server;
  let answers: number[] = [];
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      const status = answers.shift() ?? 200;
      if (status !== 200) {
        response.writeHead(status, { 'content-type': 'application/xml' });
        const code = status === 400 ? 'InvalidArgument' : 'SlowDown';
        response.end(
          `<Error><Code>${code}</Code><Message>Please reduce your request rate.</Message></Error>`,
        );
        return;
      }
      response.writeHead(200, { 'content-length': '2', 'last-modified': new Date().toUTCString() });
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => {
    requests.length = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  const standIn = () =>
    signObjectRequestsAs(
      aws,
      { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' },
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );

  it('sends a throttled request again, up to three attempts in all, as the SDK would', async () => {
    standIn();
    answers = [503, 503];
    expect(await getObjectText('objects/a.json', 10)).toBe('ok');
    expect(requests).toEqual(Array(3).fill(`GET /${aws.names.bucket}/objects/a.json?x-id=GetObject`));

    answers = [503, 503, 503];
    const failed = await getObjectText('objects/a.json', 10).catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
    expect((failed as Error).message).toContain('Please reduce your request rate.');
    expect(requests).toHaveLength(6);
  });

  it('does not send again what S3 refused for good (4xx)', async () => {
    standIn();
    answers = [400];
    const failed = await putJsonObject('objects/b.json', '{}').catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } });
    expect(requests).toEqual([`PUT /${aws.names.bucket}/objects/b.json?x-id=PutObject`]);
  });
});
