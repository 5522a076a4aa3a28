import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import {
  parseAuthentication,
  type RequestToVerify,
  Sha256,
  type SigningDetails,
  signatureMatches,
  UNSIGNED_PAYLOAD,
} from '../../local/aws-proxy/sigv4';

// How the local AWS endpoint checks a signature: requests signed and presigned by the SDK's own signer pass,
// and any change to what was signed fails.

const KEY = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' };
const SIGNED_AT = new Date(Date.UTC(2026, 10, 26, 12, 0, 0));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const signer = (service: string, credentials: object = KEY) =>
  new SignatureV4({
    service,
    region: 'eu-west-1',
    credentials: credentials as typeof KEY,
    sha256: Sha256,
    uriEscapePath: service !== 's3',
  });

const lowerCased = (headers: Record<string, string>): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** What the endpoint reads of a request signed by the SDK, and what the endpoint would verify. */
function received(request: HttpRequest, payloadHash: string, doubleEncodePath: boolean) {
  const query = (request.query ?? {}) as Record<string, string | string[]>;
  const headers = lowerCased(request.headers);
  const parsed = parseAuthentication(headers, query);
  if (parsed.kind !== 'signed') throw new Error(`not signed: ${JSON.stringify(parsed)}`);
  const toVerify: RequestToVerify = {
    method: request.method,
    rawPath: request.path,
    query,
    headers,
    payloadHash,
    doubleEncodePath,
  };
  return { signing: parsed.signing, toVerify };
}

const dynamoDbCall = (body: string): HttpRequest =>
  ({
    method: 'POST',
    protocol: 'http:',
    hostname: '127.0.0.1',
    port: 4566,
    path: '/',
    query: {},
    headers: {
      host: '127.0.0.1:4566',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.GetItem',
    },
    body,
  }) as HttpRequest;

const verify = (signing: SigningDetails, toVerify: RequestToVerify, secret = KEY.secretAccessKey) =>
  signatureMatches(signing, secret, toVerify);

describe('a request signed in its Authorization header', () => {
  const body = '{"TableName":"t","Key":{"pk":{"S":"a b/é"}}}';

  it('matches as the SDK signed it, and not with another secret', async () => {
    const signed = await signer('dynamodb').sign(dynamoDbCall(body), { signingDate: SIGNED_AT });
    const { signing, toVerify } = received(signed as HttpRequest, sha256(body), true);
    expect(signing.signedHeaders).toContain('x-amz-target');
    expect(await verify(signing, toVerify)).toBe(true);
    expect(await verify(signing, toVerify, 'another-secret')).toBe(false);
  });

  it('fails for another body, a changed signed header, a missing one, another path or time', async () => {
    const signed = (await signer('dynamodb').sign(dynamoDbCall(body), {
      signingDate: SIGNED_AT,
    })) as HttpRequest;
    const { signing, toVerify } = received(signed, sha256(body), true);
    expect(await verify(signing, { ...toVerify, payloadHash: sha256(`${body} `) })).toBe(false);
    const target = { ...toVerify.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' };
    expect(await verify(signing, { ...toVerify, headers: target })).toBe(false);
    const { 'x-amz-target': _, ...withoutTarget } = toVerify.headers;
    expect(await verify(signing, { ...toVerify, headers: withoutTarget })).toBe(false);
    expect(await verify(signing, { ...toVerify, rawPath: '/other' })).toBe(false);
    expect(await verify({ ...signing, amzDate: '20261126T120001Z' }, toVerify)).toBe(false);
  });

  it('ignores headers the client did not sign', async () => {
    const signed = (await signer('dynamodb').sign(dynamoDbCall(body), {
      signingDate: SIGNED_AT,
    })) as HttpRequest;
    const { signing, toVerify } = received(signed, sha256(body), true);
    const extra = { ...toVerify.headers, 'user-agent': 'another agent', 'x-forwarded-for': '10.0.0.1' };
    expect(await verify(signing, { ...toVerify, headers: extra })).toBe(true);
  });

  it('matches with a session token, which is signed', async () => {
    const session = { ...KEY, sessionToken: 'session-token-1' };
    const signed = (await signer('dynamodb', session).sign(dynamoDbCall(body), {
      signingDate: SIGNED_AT,
    })) as HttpRequest;
    const { signing, toVerify } = received(signed, sha256(body), true);
    expect(signing.signedHeaders).toContain('x-amz-security-token');
    expect(await verify(signing, toVerify)).toBe(true);
    const swapped = { ...toVerify.headers, 'x-amz-security-token': 'session-token-2' };
    expect(await verify(signing, { ...toVerify, headers: swapped })).toBe(false);
  });

  it("signs S3's path as sent and the others' encoded once more", async () => {
    const put = {
      method: 'PUT',
      protocol: 'http:',
      hostname: 'bucket.s3.localhost',
      path: '/uploads/a%20b/%C3%A9.json',
      query: {},
      headers: { host: 'bucket.s3.localhost', 'x-amz-content-sha256': UNSIGNED_PAYLOAD },
    } as HttpRequest;
    const signed = (await signer('s3').sign(put, { signingDate: SIGNED_AT })) as HttpRequest;
    const { signing, toVerify } = received(signed, UNSIGNED_PAYLOAD, false);
    expect(signing.signedHeaders).toContain('x-amz-content-sha256');
    expect(await verify(signing, toVerify)).toBe(true);
    expect(await verify(signing, { ...toVerify, doubleEncodePath: true })).toBe(false);
  });
});

describe('a presigned URL', () => {
  const get = {
    method: 'GET',
    protocol: 'http:',
    hostname: 'bucket.s3.localhost',
    path: '/analytics/acc/tx/route_analytics_1.csv',
    query: { 'response-content-disposition': 'attachment; filename="a b.csv"' },
    // As the S3 presigner has it: the payload is not signed, and the signer moves this header to the query.
    headers: { host: 'bucket.s3.localhost', 'X-Amz-Content-Sha256': UNSIGNED_PAYLOAD },
  } as HttpRequest;

  it('matches as the SDK presigned it, and fails for another key, query value or expiry', async () => {
    const presigned = (await signer('s3').presign(get, {
      signingDate: SIGNED_AT,
      expiresIn: 900,
    })) as HttpRequest;
    const { signing, toVerify } = received(presigned, UNSIGNED_PAYLOAD, false);
    expect(signing.presigned).toEqual({ expiresSeconds: 900 });
    expect(toVerify.query['X-Amz-Content-Sha256']).toBe(UNSIGNED_PAYLOAD);
    expect(await verify(signing, toVerify)).toBe(true);
    expect(await verify(signing, { ...toVerify, rawPath: '/analytics/acc/tx/route_analytics_2.csv' })).toBe(
      false,
    );
    const disposition = { ...toVerify.query, 'response-content-disposition': 'inline' };
    expect(await verify(signing, { ...toVerify, query: disposition })).toBe(false);
    expect(await verify(signing, { ...toVerify, query: { ...toVerify.query, 'X-Amz-Expires': '901' } })).toBe(
      false,
    );
  });
});
