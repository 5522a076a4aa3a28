/**
 * AWS Signature Version 4 as the services check it: the proxy rebuilds the canonical request the client
 * signed and signs it with the principal's secret, with @smithy/signature-v4 (the SDK's own signer, through
 * its public API), then compares the result with the client's signature.
 */
import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';

export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** AWS refuses presigned URLs valid for longer than a week. */
export const MAX_PRESIGNED_EXPIRY_SECONDS = 604_800;

/** What a request says of its signing: who signed it, when, for which Region and service, over what. */
export interface SigningDetails {
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
  | { kind: 'signed'; signing: SigningDetails };

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

type SigningParts = Omit<
  SigningDetails,
  'accessKeyId' | 'scopeDate' | 'region' | 'service' | 'signedHeaders'
> & {
  /** As the client wrote them: `;`-separated. */
  signedHeaders: string;
};

/** A signed request's signing: its credential (key id and scope) from a match of AUTHORIZATION or CREDENTIAL. */
function signed(credential: RegExpExecArray, parts: SigningParts): ParsedAuthentication {
  const [, accessKeyId = '', scopeDate = '', region = '', service = ''] = credential;
  return {
    kind: 'signed',
    signing: {
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

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape the SDK's signer takes. */
export class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';
const DATE_HEADER = 'x-amz-date';

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

/**
 * True when the client's signature is the one the principal's secret makes for this request: the SDK's
 * signer (its public `sign`) signs the request again over exactly the headers the client listed, at the
 * client's time, Region and service, and the two signatures are compared in constant time.
 *
 * What the signer adds is kept out of what it signs unless the client signed it too: the payload hash
 * travels in x-amz-content-sha256 (the signer reads it from there), the X-Amz-Date header it writes is
 * the signing's own time, and a presigned URL's query (X-Amz-Credential, X-Amz-Date, ...) is signed as
 * sent, which is how the SDK's presigner signs it.
 */
export async function signatureMatches(
  signing: SigningDetails,
  secret: string,
  request: RequestToVerify,
): Promise<boolean> {
  const listed = new Set(signing.signedHeaders);
  const headers: Record<string, string> = {};
  for (const name of listed) {
    const value = headerText(request.headers[name]);
    if (value === undefined) return false;
    headers[name] = value;
  }
  if (!listed.has(DATE_HEADER) && !signing.presigned) return false;
  headers[PAYLOAD_HASH_HEADER] = request.payloadHash;
  const signer = new SignatureV4({
    service: signing.service,
    region: signing.region,
    credentials: { accessKeyId: signing.accessKeyId, secretAccessKey: secret },
    sha256: Sha256,
    uriEscapePath: request.doubleEncodePath,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: 'unused',
      path: request.rawPath,
      query: request.query,
      headers,
    },
    {
      signingDate: new Date(amzDateToMs(signing.amzDate)),
      signableHeaders: listed,
      unsignableHeaders: new Set([PAYLOAD_HASH_HEADER, DATE_HEADER].filter((name) => !listed.has(name))),
    },
  );
  const authorization = SIGNED.exec(String(signed.headers.authorization));
  if (!authorization || authorization[1] !== [...listed].sort().join(';')) return false;
  const expected = Buffer.from(authorization[2] as string, 'hex');
  const given = Buffer.from(signing.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header list and signature of the Authorization the SDK's signer writes. */
const SIGNED = /SignedHeaders=([^,\s]+), Signature=([0-9a-f]{64})$/;
