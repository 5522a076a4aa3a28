import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uploadStream } from '../../functions/data/bucket-uploads';
import { resetConfig } from '../../functions/shared/config';
import { useAwsProxy } from '../support/aws-proxy';
import { expectDeniedWritingNothing, signObjectRequestsAs } from '../support/bucket-requests';

/**
 * Streamed uploads of unknown size (functions/data/bucket-uploads.ts: a PutObject, or a multipart upload sent
 * without the S3 client) against the local S3 behind the signing proxy, signed as the analytics export is
 * granted: s3:PutObject and s3:AbortMultipartUpload on its prefix.
 */
const aws = useAwsProxy();
const MB = 1024 * 1024;

/** `bytes` as a stream of 64 KB chunks, as a CSV stringifier hands them out. */
const streamOf = (bytes: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, index) =>
      bytes.subarray(index * 65_536, (index + 1) * 65_536),
    ),
  );

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

afterAll(resetConfig);

describe('streamed uploads without the S3 client', () => {
  beforeAll(() => {
    const exporter = aws.principal(
      'object-exporter',
      [
        aws.functionPolicy(),
        {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['s3:PutObject', 's3:AbortMultipartUpload'],
              Resource: `${aws.bucketArn}/exports/*`,
            },
          ],
        },
      ],
      { sessionToken: randomBytes(48).toString('base64') },
    );
    aws.proxy.addPrincipal(exporter);
    signObjectRequestsAs(aws, exporter);
  });

  const read = async (key: string) => {
    const object = await aws.admin.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: key }));
    return {
      contentType: object.ContentType,
      bytes: Buffer.from(await (object.Body?.transformToByteArray() ?? [])),
    };
  };

  it('writes a stream over one part as a multipart upload of 5 MB parts, which the SDK reads back whole', async () => {
    const bytes = randomBytes(12 * MB + 12_345);
    await uploadStream('exports/large é.csv', streamOf(bytes), 'text/csv; charset=utf-8');
    const object = await read('exports/large é.csv');
    expect(object.contentType).toBe('text/csv; charset=utf-8');
    expect(object.bytes.length).toBe(bytes.length);
    expect(sha256(object.bytes)).toBe(sha256(bytes));
    const uploads = await aws.admin.s3.send(new ListMultipartUploadsCommand({ Bucket: aws.names.bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  it('writes a stream of one part or less, an empty one too, with one PutObject', async () => {
    const bytes = randomBytes(5 * MB);
    await uploadStream('exports/one-part.csv', streamOf(bytes), 'text/csv');
    expect(sha256((await read('exports/one-part.csv')).bytes)).toBe(sha256(bytes));
    await uploadStream('exports/header.csv', Readable.from(['id,name\r\n']), 'text/csv');
    expect((await read('exports/header.csv')).bytes.toString()).toBe('id,name\r\n');
    await uploadStream('exports/empty.csv', Readable.from([]), 'text/csv');
    expect((await read('exports/empty.csv')).bytes.length).toBe(0);
  });

  it('fails an upload outside its grant with S3’s error, leaving no object', async () => {
    await expectDeniedWritingNothing(
      aws,
      uploadStream('elsewhere/x.csv', streamOf(randomBytes(6 * MB)), 'text/csv'),
      'elsewhere/x.csv',
    );
  });
});

describe('failed multipart uploads, against a stand-in for S3 (the local S3 fails no part and completes every upload)', () => {
  let server: Server;
  const requests: string[] = [];
  /** What the stand-in fails: UploadPart 2, CompleteMultipartUpload (answered 200 with an error), or nothing. */
  let failing: 'part' | 'complete' | 'nothing' = 'part';
  /** The bodies of the CompleteMultipartUpload requests. */
  const completions: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://stand-in');
        requests.push(`${request.method} ${url.search}`);
        const xml = (status: number, body: string) => {
          response.writeHead(status, { 'content-type': 'application/xml' });
          response.end(body);
        };
        if (request.method === 'POST' && url.searchParams.has('uploads'))
          return xml(
            200,
            '<InitiateMultipartUploadResult><UploadId>up&amp;1</UploadId></InitiateMultipartUploadResult>',
          );
        if (request.method === 'PUT' && url.searchParams.get('partNumber') === '2' && failing === 'part')
          return xml(400, '<Error><Code>InvalidPart</Code><Message>part refused</Message></Error>');
        if (request.method === 'PUT') {
          response.writeHead(200, { etag: `"etag-${url.searchParams.get('partNumber')}"` });
          return response.end();
        }
        if (request.method === 'POST') {
          completions.push(Buffer.concat(chunks).toString());
          // S3 may answer CompleteMultipartUpload 200 with an error document.
          return failing === 'complete'
            ? xml(200, '<Error><Code>InternalError</Code><Message>try again</Message></Error>')
            : xml(200, '<CompleteMultipartUploadResult><ETag>"all-3"</ETag></CompleteMultipartUploadResult>');
        }
        response.writeHead(204);
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    signObjectRequestsAs(
      aws,
      { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' },
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
  });
  afterEach(() => {
    requests.length = 0;
    completions.length = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('completes an upload with its parts named by their ETags, in part order', async () => {
    failing = 'nothing';
    await uploadStream('exports/x.csv', streamOf(randomBytes(11 * MB)), 'text/csv');
    expect(requests.filter((request) => request.startsWith('PUT')).sort()).toEqual(
      [1, 2, 3].map((part) => `PUT ?partNumber=${part}&uploadId=up%261&x-id=UploadPart`),
    );
    expect(requests.at(-1)).toBe('POST ?uploadId=up%261');
    expect(completions).toEqual([
      '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<Part><ETag>"etag-1"</ETag><PartNumber>1</PartNumber></Part>' +
        '<Part><ETag>"etag-2"</ETag><PartNumber>2</PartNumber></Part>' +
        '<Part><ETag>"etag-3"</ETag><PartNumber>3</PartNumber></Part>' +
        '</CompleteMultipartUpload>',
    ]);
  });

  it('aborts the upload when a part is refused, and throws S3’s error', async () => {
    failing = 'part';
    const failed = await uploadStream('exports/x.csv', streamOf(randomBytes(11 * MB)), 'text/csv').catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ name: 'InvalidPart', $metadata: { httpStatusCode: 400 } });
    expect(requests[0]).toBe('POST ?uploads=');
    const refused = requests.indexOf('PUT ?partNumber=2&uploadId=up%261&x-id=UploadPart');
    const aborted = requests.indexOf('DELETE ?uploadId=up%261&x-id=AbortMultipartUpload');
    expect(refused).toBeGreaterThan(0);
    expect(aborted).toBeGreaterThan(refused);
    expect(requests.some((request) => request.startsWith('POST ?uploadId'))).toBe(false);
  });

  it('takes a 200 answer to CompleteMultipartUpload that holds an error for the error it is, and aborts', async () => {
    failing = 'complete';
    const failed = await uploadStream('exports/x.csv', streamOf(randomBytes(6 * MB)), 'text/csv').catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ name: 'InternalError' });
    // The two parts go at once, so either may arrive first.
    expect([requests[0], ...requests.slice(1, 3).sort(), ...requests.slice(3)]).toEqual([
      'POST ?uploads=',
      'PUT ?partNumber=1&uploadId=up%261&x-id=UploadPart',
      'PUT ?partNumber=2&uploadId=up%261&x-id=UploadPart',
      'POST ?uploadId=up%261',
      'DELETE ?uploadId=up%261&x-id=AbortMultipartUpload',
    ]);
  });
});
