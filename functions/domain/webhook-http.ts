import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { BlockList } from 'node:net';
import { nodeHttp, nodeNet } from '../shared/builtins';
import { ipv6Bytes } from '../shared/ip-address';

// ---- Signing ----

/** The secret's prefix (Standard Webhooks: a symmetric secret is `whsec_` + base64 of the key bytes). */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + standard base64 of 32 random bytes, as Standard Webhooks libraries read it. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `whsec_` + padded standard base64 (the alphabet with `+` and `/`): the form Standard Webhooks decodes. */
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The HMAC key of a secret's `webhook-signature`: the bytes its base64 part encodes. Secrets issued before
 * webhooks were signed the Standard Webhooks way are `whsec_` + unpadded base64url, which the standard's
 * libraries refuse: their key is the secret's own bytes (the key their X-Signature has always had), so a
 * receiver keeps its secret and reads it as raw bytes, or as `whsec_` + base64 of it.
 */
export function signingKey(secret: string): Buffer {
  const standard = STANDARD_SECRET.exec(secret);
  return standard?.[1] ? Buffer.from(standard[1], 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`: one Standard Webhooks signature. */
export function standardSignature(secret: string, messageId: string, timestampSeconds: number, body: string) {
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return `v1,${createHmac('sha256', signingKey(secret)).update(signed, 'utf8').digest('base64')}`;
}

/**
 * The signature headers of one attempt, signed with every secret valid now (two during a rotation):
 * Standard Webhooks' `webhook-id` (the event id: the same on every attempt, so receivers deduplicate by it),
 * `webhook-timestamp` (this attempt, in seconds) and `webhook-signature` (space-separated `v1,` signatures),
 * and the older `X-Signature` (one `v1=` per secret), kept so receivers that check it go on working.
 */
export function signatureHeaders(
  secrets: readonly string[],
  messageId: string,
  sentAtMs: number,
  body: string,
): Record<string, string> {
  // The id is part of the signed text, delimited by dots (the standard forbids them in it).
  if (messageId.includes('.')) throw new Error(`webhook-id '${messageId}' contains a '.'`);
  const timestamp = Math.floor(sentAtMs / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => standardSignature(secret, messageId, timestamp, body))
      .join(' '),
    'X-Signature': signatureHeader(secrets, sentAtMs, body),
  };
}

/**
 * Every header of one delivery attempt: the body's type, the webhook, the event (`X-Event-Id` is the older
 * name of `webhook-id`, kept for this release) and the signatures of `signatureHeaders`. The OpenAPI
 * document's `webhooks` section documents these and shows them for its examples.
 */
export function deliveryHeaders(
  webhookId: string,
  event: { event_id: string; type: string },
  secrets: readonly string[],
  sentAtMs: number,
  body: string,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Webhook-Id': webhookId,
    'X-Event-Id': event.event_id,
    'X-Event-Type': event.type,
    ...signatureHeaders(secrets, event.event_id, sentAtMs, body),
  };
}

function hmacHex(secret: string, timestampMs: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampMs}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * The older header, `t=<unix ms>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` with one `v1` per secret;
 * the timestamp is signed so replays expire. Deprecated for `webhook-signature`.
 */
export function signatureHeader(
  secrets: string | readonly string[],
  timestampMs: number,
  rawBody: string,
): string {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestampMs}`, ...keys.map((secret) => `v1=${hmacHex(secret, timestampMs, rawBody)}`)].join(
    ',',
  );
}

const DEFAULT_TOLERANCE_MS = 5 * 60_000;

/**
 * What a receiver should do: recompute the HMAC over the raw body (not re-serialised JSON), compare in
 * constant time so the comparison leaks nothing, and reject timestamps outside the tolerance (replays).
 */
export function verifySignature(
  secret: string,
  header: string,
  rawBody: string,
  options: { toleranceMs?: number; now?: number } = {},
): boolean {
  const fields = new Map<string, string[]>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    fields.set(key, [...(fields.get(key) ?? []), part.slice(eq + 1).trim()]);
  }
  const t = fields.get('t')?.[0];
  if (t === undefined || !/^\d+$/.test(t)) return false;
  const timestampMs = Number(t);
  const now = options.now ?? Date.now();
  if (Math.abs(now - timestampMs) > (options.toleranceMs ?? DEFAULT_TOLERANCE_MS)) return false;

  const expected = Buffer.from(hmacHex(secret, timestampMs, rawBody), 'hex');
  // Several v1 values are allowed so a sender can sign with an old and a new secret during rotation.
  return (fields.get('v1') ?? []).some((v1) => {
    if (!/^[0-9a-f]{64}$/i.test(v1)) return false;
    return timingSafeEqual(Buffer.from(v1, 'hex'), expected);
  });
}

// ---- SSRF guard ----

const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated by RFC 3879, still routed inside some networks)
  ['100::', 64], // discard-only (RFC 6666): a blackhole inside a network, never a receiver
  ['ff00::', 8], // multicast
  // NAT64 local-use prefix (RFC 8215): only ever routed inside a network, and where the IPv4 address sits
  // depends on the prefix length its operator chose, so the whole /48 is refused.
  ['64:ff9b:1::', 48],
  // Teredo (RFC 4380): refused whole. Its client address is obfuscated (XOR) beside a server address and a
  // port, a tunnel a webhook receiver has no reason to sit behind; refusing it leaves nothing to get wrong.
  ['2001::', 32],
];

let blocked: { v4: BlockList; v6: BlockList } | undefined;
/** The blocked ranges as node's BlockLists, built on the first check (node:net is required then, nodeNet). */
function blockedRanges(): { v4: BlockList; v6: BlockList } {
  if (!blocked) {
    const { BlockList } = nodeNet();
    const v4 = new BlockList();
    for (const [net, prefix] of BLOCKED_V4) v4.addSubnet(net, prefix, 'ipv4');
    v4.addAddress('255.255.255.255', 'ipv4');
    const v6 = new BlockList();
    for (const [net, prefix] of BLOCKED_V6) v6.addSubnet(net, prefix, 'ipv6');
    blocked = { v4, v6 };
  }
  return blocked;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);
const ZEROS_80 = Array<number>(10).fill(0);
const quadAt = (bytes: Uint8Array, at: number) => Array.from(bytes.subarray(at, at + 4)).join('.');

/**
 * The IPv4 address an IPv6 address carries, for the forms a host may route as IPv4 (or translate to it):
 * IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, the NAT64 well-known
 * prefix 64:ff9b::/96 (RFC 6052) and 6to4 2002::/16 (RFC 3056, bits 16..47).
 */
export function embeddedIPv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  if (startsWith(bytes, [...ZEROS_80, 0xff, 0xff])) return quadAt(bytes, 12); // mapped
  if (startsWith(bytes, [...ZEROS_80, 0, 0])) return quadAt(bytes, 12); // compatible
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return quadAt(bytes, 12); // translated
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return quadAt(bytes, 12); // NAT64
  if (startsWith(bytes, [0x20, 0x02])) return quadAt(bytes, 2); // 6to4
  return undefined;
}

/**
 * True for addresses a webhook may not reach: blocked IPv4 ranges, blocked IPv6 ranges, and IPv6 forms that
 * embed a blocked IPv4 address. Anything that is not an IP address is blocked (fail closed).
 */
export function isBlockedAddress(address: string): boolean {
  // A zone (fe80::1%eth0) only scopes a link-local address; the address is judged without it.
  const bare = address.replace(/%.*$/, '');
  const family = nodeNet().isIP(bare);
  const ranges = blockedRanges();
  if (family === 4) return ranges.v4.check(bare, 'ipv4');
  if (family !== 6) return true;
  if (ranges.v6.check(bare, 'ipv6')) return true;
  const v4 = embeddedIPv4(bare);
  if (v4 !== undefined) return ranges.v4.check(v4, 'ipv4');
  // A valid address the parser cannot read would be a bug here: refuse rather than guess.
  return ipv6Bytes(bare) === undefined;
}

/**
 * True when the URL's host is an IP address the guard refuses. Node connects to an address literal without
 * calling `lookup`, so literals are checked here, by postWebhook and already when a webhook is created (the
 * URL parser has normalised forms like 0x7f.1 or 2130706433 to 127.0.0.1 by then).
 */
export function isBlockedLiteralHost(url: URL): boolean {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return nodeNet().isIP(hostname) !== 0 && isBlockedAddress(hostname);
}

/** Marks the error raised for a refused target, so postWebhook can report `refused: true`. */
class RefusedTargetError extends Error {}

/**
 * What the delivery log (shown to the tenant) says about a refused target: why, never the address a name
 * resolved to, which would map the network the service runs in.
 */
export const BLOCKED_KINDS = 'loopback, private, link-local, metadata or otherwise reserved';
const refusedLiteral = () => `refused: the target address is blocked (${BLOCKED_KINDS})`;
const refusedName = (hostname: string) =>
  `refused: host '${hostname}' resolves to a blocked address (${BLOCKED_KINDS})`;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Every address a host name resolves to, as `dns.lookup` with `all: true` answers. */
export type ResolveHost = (
  hostname: string,
  options: { all: true; family: number; hints: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Runs inside the socket connect, so the addresses checked are exactly the ones connected to: a DNS answer
 * cannot change between check and use (no TOCTOU / DNS rebinding).
 */
const guardedLookup =
  (resolveHost: ResolveHost) =>
  (
    hostname: string,
    options: { family?: number | string; hints?: number; all?: boolean },
    callback: LookupCallback,
  ): void => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolveHost(hostname, { all: true, family, hints: options.hints ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const blocked = addresses.find((a) => isBlockedAddress(a.address));
      // Refuse when ANY answer is private: a name mixing public and private answers is a rebinding trick.
      if (blocked) return callback(new RefusedTargetError(refusedName(hostname)), []);
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for host '${hostname}'`), []);
      // With autoSelectFamily (the default since Node 20) Node asks for all addresses; all of them passed.
      if (options.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };

// ---- Delivery ----

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** Resolves the target's host name (default: the system's, `dns.lookup`); tests give fixed answers. */
  resolveHost?: ResolveHost;
}

export type WebhookPostResult =
  | { ok: true; statusCode: number; durationMs: number }
  | { ok: false; statusCode?: number; error: string; durationMs: number; refused?: true };

/** Read at most this much of a response; receivers' bodies are not used, only drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Socket and DNS error codes, in words: Node's own messages name the address connected to. */
const ERROR_CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EPIPE: 'connection closed while sending',
};

/**
 * Short, stack-free text for the delivery log, which the tenant reads: an error with a code (socket, DNS,
 * TLS) is described by its code alone, as Node's messages name the resolved address and port. Happy-eyeballs
 * failures are AggregateErrors with an empty message.
 */
function describeError(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describeError(err.errors[0]);
  if (err instanceof RefusedTargetError) return err.message;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && code !== '') {
    const words = ERROR_CODE_TEXT[code];
    return words ? `${words} (${code})` : `request failed (${code})`;
  }
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** POSTs one delivery. Never throws: every failure, including a refused target, is an `ok: false` result. */
export async function postWebhook(post: WebhookPost): Promise<WebhookPostResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const refuse = (error: string): WebhookPostResult => ({
    ok: false,
    error,
    durationMs: elapsed(),
    refused: true,
  });

  let url: URL;
  try {
    url = new URL(post.url);
  } catch {
    return refuse('invalid URL');
  }
  const send =
    url.protocol === 'http:' ? nodeHttp().request : url.protocol === 'https:' ? httpsRequest : undefined;
  if (!send) return refuse(`refused scheme ${url.protocol}`);

  if (!post.allowPrivateTargets && isBlockedLiteralHost(url)) return refuse(refusedLiteral());

  const options: RequestOptions = {
    method: 'POST',
    headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
    // A fresh connection per delivery, so every delivery goes through the address check again.
    agent: false,
    ...(post.allowPrivateTargets ? {} : { lookup: guardedLookup(post.resolveHost ?? dnsLookup) }),
  };

  return new Promise<WebhookPostResult>((resolve) => {
    let req: ClientRequest | undefined;
    // One budget for connect + headers + body, so a slow-dripping receiver cannot hold the delivery open.
    const timer = setTimeout(() => {
      const err = new Error(`timed out after ${post.timeoutMs} ms`);
      fail(err);
      req?.destroy(err);
    }, post.timeoutMs);
    let settled = false;
    const settle = (result: WebhookPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const fail = (err: unknown, statusCode?: number) =>
      settle({
        ok: false,
        ...(statusCode === undefined ? {} : { statusCode }),
        error: describeError(err),
        durationMs: elapsed(),
        ...(err instanceof RefusedTargetError ? { refused: true as const } : {}),
      });

    const onResponse = (res: IncomingMessage) => {
      const statusCode = res.statusCode ?? 0;
      const done = () => {
        if (statusCode >= 200 && statusCode < 300) {
          return settle({ ok: true, statusCode, durationMs: elapsed() });
        }
        // Redirects are never followed: the Location could point anywhere, including inside the network.
        const redirect = statusCode >= 300 && statusCode < 400;
        fail(redirect ? `redirect not followed (${statusCode})` : `HTTP ${statusCode}`, statusCode);
      };
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          // Enough: the status is known and the body is discarded anyway.
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (err) => fail(err, statusCode));
      res.on('close', () => fail('connection closed before the response ended', statusCode));
    };

    try {
      req = send(url, options, onResponse);
      req.on('error', (err) => fail(err));
      req.end(post.body);
    } catch (err) {
      // http.request throws synchronously for e.g. a header value containing a newline.
      fail(err);
    }
  });
}
