/**
 * AWS Signature Version 4 as the services check it: the proxy rebuilds the canonical request the client
 * signed (with @smithy/signature-v4, the SDK's own signer, over exactly the headers the client listed),
 * signs it with the principal's secret and compares the result with the client's signature.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { getCanonicalHeaders, SignatureV4Base } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';

export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_PAYLOAD_HASH = createHash('sha256').update('').digest('hex');
/** AWS refuses presigned URLs valid for longer than a week. */
export const MAX_PRESIGNED_EXPIRY_SECONDS = 604_800;

/** What a request's signature claims: who signed it, when, for which Region and service, over what. */
export interface SignatureClaim {
  accessKeyId: string;
  /** `YYYYMMDD` of the credential scope. */
  scopeDate: string;
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ` (X-Amz-Date). */
  amzDate: string;
  /** Lower-case names, in the order the client listed them. */
  signedHeaders: string[];
  signature: string;
  sessionToken?: string;
  /** Present for presigned URLs (query-string authentication). */
  presigned?: { expiresSeconds: number };
}

export type ParsedAuthentication =
  | { kind: 'unsigned' }
  | { kind: 'malformed'; message: string }
  | { kind: 'signed'; claim: SignatureClaim };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})\s*$/;
const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;
const AMZ_DATE = /^\d{8}T\d{6}Z$/;

/** Splits a raw query string into decoded names and values; `+` stays a plus sign, as SigV4 has it. */
export function parseQuery(rawQuery: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (rawQuery === '') return query;
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = safeDecode(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : safeDecode(pair.slice(equals + 1));
    const existing = query[name];
    if (existing === undefined) query[name] = value;
    else query[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const headerText = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

type ClaimParts = Omit<
  SignatureClaim,
  'accessKeyId' | 'scopeDate' | 'region' | 'service' | 'signedHeaders'
> & {
  /** As the client wrote them: `;`-separated. */
  signedHeaders: string;
};

/** A signed request's claim: its credential (key id and scope) from a match of AUTHORIZATION or CREDENTIAL. */
function signed(credential: RegExpExecArray, parts: ClaimParts): ParsedAuthentication {
  const [, accessKeyId = '', scopeDate = '', region = '', service = ''] = credential;
  return {
    kind: 'signed',
    claim: {
      accessKeyId,
      scopeDate,
      region,
      service,
      ...parts,
      signedHeaders: parts.signedHeaders.split(';'),
    },
  };
}

/** Reads the signature from the Authorization header or, for presigned URLs, from the query string. */
export function parseAuthentication(
  headers: IncomingHttpHeaders,
  query: Record<string, string | string[]>,
): ParsedAuthentication {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = AUTHORIZATION.exec(authorization);
    if (!match) {
      return { kind: 'malformed', message: 'Authorization header is not a valid AWS4-HMAC-SHA256 one' };
    }
    const amzDate = single(headers['x-amz-date']);
    if (!amzDate || !AMZ_DATE.test(amzDate)) {
      return { kind: 'malformed', message: 'X-Amz-Date header is missing or malformed' };
    }
    return signed(match, {
      amzDate,
      signedHeaders: match[5] as string,
      signature: match[6] as string,
      sessionToken: single(headers['x-amz-security-token']),
    });
  }
  const credential = single(query['X-Amz-Credential']);
  if (credential === undefined) return { kind: 'unsigned' };
  const match = CREDENTIAL.exec(credential);
  const amzDate = single(query['X-Amz-Date']);
  const signedHeaders = single(query['X-Amz-SignedHeaders']);
  const signature = single(query['X-Amz-Signature']);
  const expires = Number(single(query['X-Amz-Expires']));
  if (
    !match ||
    single(query['X-Amz-Algorithm']) !== 'AWS4-HMAC-SHA256' ||
    !amzDate ||
    !AMZ_DATE.test(amzDate) ||
    !signedHeaders ||
    !signature ||
    !Number.isInteger(expires) ||
    expires < 1
  ) {
    return { kind: 'malformed', message: 'Query-string authentication parameters are incomplete' };
  }
  return signed(match, {
    amzDate,
    signedHeaders,
    signature,
    sessionToken: single(query['X-Amz-Security-Token']),
    presigned: { expiresSeconds: expires },
  });
}

/** Epoch ms of an X-Amz-Date. */
export function amzDateToMs(amzDate: string): number {
  return Date.UTC(
    Number(amzDate.slice(0, 4)),
    Number(amzDate.slice(4, 6)) - 1,
    Number(amzDate.slice(6, 8)),
    Number(amzDate.slice(9, 11)),
    Number(amzDate.slice(11, 13)),
    Number(amzDate.slice(13, 15)),
  );
}

/** Exposes the SDK signer's canonical request, with or without S3's single URI encoding of the path. */
class CanonicalRequests extends SignatureV4Base {
  constructor(uriEscapePath: boolean) {
    super({
      service: 'unused',
      region: 'unused',
      credentials: { accessKeyId: 'unused', secretAccessKey: 'unused' },
      // The canonical request needs no hashing; the base class only stores this.
      sha256: class {} as never,
      uriEscapePath,
    });
  }

  of(request: HttpRequest, headers: Record<string, string>, payloadHash: string): string {
    return this.createCanonicalRequest(request, headers, payloadHash);
  }
}

const doubleEncodingPath = new CanonicalRequests(true);
const singleEncodingPath = new CanonicalRequests(false);

/** The derived signing keys, by secret, date, Region and service: four HMACs saved on every request. */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const cacheKey = `${secret}\n${date}\n${region}\n${service}`;
  let key = signingKeys.get(cacheKey);
  if (!key) {
    key = [date, region, service, 'aws4_request'].reduce<Buffer>(
      (previous, part) => createHmac('sha256', previous).update(part).digest(),
      Buffer.from(`AWS4${secret}`),
    );
    if (signingKeys.size > 1000) signingKeys.clear();
    signingKeys.set(cacheKey, key);
  }
  return key;
}

export interface RequestToVerify {
  method: string;
  /** The path exactly as it came on the wire (percent-encoded). */
  rawPath: string;
  query: Record<string, string | string[]>;
  headers: IncomingHttpHeaders;
  payloadHash: string;
  /** S3 signs the path as sent; every other service signs it URI-encoded once more. */
  doubleEncodePath: boolean;
}

/** True when the client's signature is the one the principal's secret makes for this request. */
export function signatureMatches(claim: SignatureClaim, secret: string, request: RequestToVerify): boolean {
  const signed: Record<string, string> = {};
  for (const name of claim.signedHeaders) {
    const value = headerText(request.headers[name]);
    if (value !== undefined) signed[name] = value;
  }
  const canonicalHeaders = getCanonicalHeaders(
    { headers: signed } as HttpRequest,
    undefined,
    new Set(claim.signedHeaders),
  );
  if (Object.keys(canonicalHeaders).length !== claim.signedHeaders.length) return false;
  const canonicalRequest = (request.doubleEncodePath ? doubleEncodingPath : singleEncodingPath).of(
    { method: request.method, path: request.rawPath, query: request.query, headers: signed } as HttpRequest,
    canonicalHeaders as Record<string, string>,
    request.payloadHash,
  );
  const scope = `${claim.scopeDate}/${claim.region}/${claim.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${claim.amzDate}\n${scope}\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  const expected = createHmac('sha256', signingKey(secret, claim.scopeDate, claim.region, claim.service))
    .update(stringToSign)
    .digest();
  const given = Buffer.from(claim.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
