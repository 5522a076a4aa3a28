import { formatUrl } from '@aws-sdk/core/util';
import { config, perConfig } from '../shared/config';
import { type ObjectRequest, objectHttpRequest, type SigningCredentials, s3Signer } from './bucket-requests';

/*
 * Presigned links to the bucket's objects, signed with the link-signing role's credentials. Apart from the
 * object reads and writes (bucket.ts), so that a function that only hands out links holds none of their code.
 */

/** A presigned link and when it stops working (epoch ms). */
export interface PresignedLink {
  url: string;
  expiresAt: number;
}

/** A GET link for `key`, for at most `expiresInSeconds`, that downloads as `fileName`. */
export async function presignedDownloadLink(
  key: string,
  expiresInSeconds: number,
  fileName: string,
): Promise<PresignedLink> {
  return presign(
    {
      method: 'GET',
      key,
      query: { 'response-content-disposition': `attachment; filename="${fileName}"` },
    },
    expiresInSeconds,
  );
}

/** What a PUT link binds its upload to: S3 refuses a PUT through it whose headers differ (they are signed). */
export interface UploadTerms {
  contentType: string;
  contentLength: number;
  /**
   * Only while no object has the key: the link is signed with `If-None-Match: *`, which the PUT must send, and
   * S3 answers 412 to a PUT through it once the key holds an object (S3 conditional writes). A link may be
   * used until it expires: without this, a second PUT would replace the first object, after its check.
   */
  createOnly?: boolean;
}

/** An upload link and the headers its PUT must send, as signed: any other value is refused (403). */
export interface UploadLink extends PresignedLink {
  headers: Record<string, string>;
}

/**
 * A PUT link for `key`, for at most `expiresInSeconds`. Without `terms` the client may send any body and
 * content type; with them, exactly that Content-Type and Content-Length (and `If-None-Match: *`, createOnly).
 */
export async function presignedUploadLink(
  key: string,
  expiresInSeconds: number,
  terms?: UploadTerms,
): Promise<UploadLink> {
  if (!terms) return { ...(await presign({ method: 'PUT', key }, expiresInSeconds)), headers: {} };
  const headers: Record<string, string> = {
    'Content-Type': terms.contentType,
    'Content-Length': String(terms.contentLength),
    ...(terms.createOnly ? { 'If-None-Match': '*' } : {}),
  };
  const signed = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return { ...(await presign({ method: 'PUT', key, headers: signed }, expiresInSeconds)), headers };
}

/**
 * Signs a link to `object` with the link-signing role's credentials. A presigned link stops working when the
 * credentials that signed it expire, and Lambda never tells a function when its own do; STS tells when the
 * role's do, so the link's expiry is known: the sooner of the one asked for and the credentials'.
 */
async function presign(object: ObjectRequest, expiresInSeconds: number): Promise<PresignedLink> {
  const signer = await linkSigner(expiresInSeconds * 1000);
  // SigV4 dates have whole seconds: the link expires exactly at signedAt + expiresIn.
  const signedAt = Math.floor(Date.now() / 1000) * 1000;
  const latest = Math.min(signedAt + expiresInSeconds * 1000, signer.expiresAt);
  const expiresIn = Math.floor((latest - signedAt) / 1000);
  const url = await signedObjectUrl(object, signer.credentials, new Date(signedAt), expiresIn);
  return { url, expiresAt: signedAt + expiresIn * 1000 };
}

/**
 * The presigned URL of `object`: SigV4 query signing of the request the S3 client would send
 * (bucket-requests.ts), byte for byte the URL the SDK's presigner makes (test/unit/presigned-links.test.ts
 * holds them equal). The S3 client and the presigner are about 140 KB that a function would load on its first
 * link only to build a URL: 14-23 ms of that request. The headers given are signed; S3 holds the request to
 * them. The payload is not (UNSIGNED-PAYLOAD), as the SDK's presigner leaves it.
 */
export async function signedObjectUrl(
  object: ObjectRequest,
  credentials: SigningCredentials,
  signingDate: Date,
  expiresInSeconds: number,
): Promise<string> {
  const request = objectHttpRequest({
    ...object,
    headers: { ...object.headers, [UNSIGNED_PAYLOAD_HEADER]: 'UNSIGNED-PAYLOAD' },
  });
  const presigned = await s3Signer(credentials, false).presign(request, {
    expiresIn: expiresInSeconds,
    signingDate,
    signableHeaders: new Set(Object.keys(object.headers ?? {})),
  });
  return formatUrl(presigned);
}

/** Hoisted into the query by SignatureV4 (an x-amz-* header), under this name as the SDK's presigner puts it. */
const UNSIGNED_PAYLOAD_HEADER = 'X-Amz-Content-Sha256';

interface LinkSigner {
  credentials: SigningCredentials;
  /** When the credentials expire (epoch ms), as STS gave it. */
  expiresAt: number;
  /** How long STS made the session (ms): what a fresh one can sign at most. */
  grantedMs: number;
}

/** At most an hour: STS caps a session assumed with role credentials (role chaining) there anyway. */
const LINK_SIGNER_SESSION_SECONDS = 3600;

/** STS, loaded on the first link signed (only functions that sign links bundle it). */
const stsClient = /* @__PURE__ */ perConfig(() =>
  import('./sts-client').then((sts) => ({ sts, client: sts.createStsClient() })),
);

/** The signer and its renewal under way, per configuration: a session belongs to the deployment that issued it. */
const signing = /* @__PURE__ */ perConfig(
  (): { current?: LinkSigner; renewal?: Promise<LinkSigner> } => ({}),
);

/**
 * The link signer, renewed when its credentials cannot sign a link for what it asks, or for half of what a
 * fresh session can (the lesser). A link asking for as long as a whole session (analytics downloads, an hour)
 * would otherwise need a fresh session, and an AssumeRole, for each one: now a session signs every link for
 * its first half, each valid until the session ends. Links asked for while a renewal is under way take its
 * credentials whatever they have left (the freshest there are), so the links of one response share one
 * AssumeRole.
 */
async function linkSigner(lifetimeMs: number): Promise<LinkSigner> {
  const state = signing();
  if (state.current) {
    const wanted = Math.min(lifetimeMs, state.current.grantedMs / 2);
    if (state.current.expiresAt - Date.now() >= wanted) return state.current;
  }
  state.renewal ??= assumeLinkSigner()
    .then((renewed) => {
      state.current = renewed;
      return renewed;
    })
    .finally(() => {
      state.renewal = undefined;
    });
  return state.renewal;
}

/**
 * A session of the role LINK_SIGNER_ROLE_ARN names. Required, not defaulted to the function's own
 * credentials: on Lambda their expiry is unknown, so links signed with them could die before the time the API
 * promises.
 */
async function assumeLinkSigner(): Promise<LinkSigner> {
  const roleArn = config().linkSignerRoleArn;
  const askedAt = Date.now();
  const { sts, client } = await stsClient();
  const { Credentials } = await client.send(
    new sts.AssumeRoleCommand({
      RoleArn: roleArn,
      RoleSessionName: (config().functionName ?? 'link-signer').slice(0, 64),
      DurationSeconds: LINK_SIGNER_SESSION_SECONDS,
    }),
  );
  if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey || !Credentials.Expiration) {
    throw new Error('AssumeRole of the link signer returned no credentials');
  }
  return {
    credentials: {
      accessKeyId: Credentials.AccessKeyId,
      secretAccessKey: Credentials.SecretAccessKey,
      ...(Credentials.SessionToken ? { sessionToken: Credentials.SessionToken } : {}),
    },
    expiresAt: Credentials.Expiration.getTime(),
    grantedMs: Credentials.Expiration.getTime() - askedAt,
  };
}
