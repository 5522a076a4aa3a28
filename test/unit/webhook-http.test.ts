import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isBlockedAddress,
  newWebhookSecret,
  postWebhook,
  type ResolveHost,
  signatureHeader,
  signatureHeaders,
  signingKey,
  verifySignature,
  type WebhookPost,
} from '../../functions/domain/webhook-http';
import { listenOnLoopback } from '../../local/loopback-server';

const fakeDns: Record<string, Array<{ address: string; family: number }>> = {
  'rebind.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'public.test': [{ address: '192.0.2.1', family: 4 }],
  'nat64.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
};
const lookedUp: string[] = [];
/** The only stand-in: made-up hostnames get fixed DNS answers; every other name (e.g. localhost) resolves for real. */
const resolveHost: ResolveHost = (hostname, options, callback) => {
  const answer = fakeDns[hostname];
  if (!answer) return lookup(hostname, options, callback);
  lookedUp.push(hostname);
  process.nextTick(() => callback(null, answer));
};

// ---- Receivers ----

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  close: () => Promise<void>;
}

const receivers: Receiver[] = [];

/** A real HTTP server on 127.0.0.1 that records every request, then lets `respond` answer (or not). */
async function receiver(respond: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      respond(req, res);
    });
  });
  const r: Receiver = { ...(await listenOnLoopback(server)), received };
  receivers.push(r);
  return r;
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(code, headers);
    res.end(code === 204 ? undefined : 'ok');
  };

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const BODY = JSON.stringify({ eventId: 'evt_1', type: 'route.completed', note: 'Zürich – 東京' });

function post(url: string, overrides: Partial<WebhookPost> = {}): WebhookPost {
  return {
    url,
    body: BODY,
    headers: { 'Content-Type': 'application/json' },
    timeoutMs: 2_000,
    allowPrivateTargets: true,
    resolveHost,
    ...overrides,
  };
}

// ---- Signatures ----

describe('signatureHeader / verifySignature', () => {
  const secret = 'whsec_test';
  const t = 1_750_000_000_000;

  it('signs "<t>.<raw body>" with HMAC-SHA256 in the documented format', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${BODY}`).digest('hex');
    expect(signatureHeader(secret, t, BODY)).toBe(`t=${t},v1=${expected}`);
  });

  it('verifies its own signature within the tolerance', () => {
    const header = signatureHeader(secret, t, BODY);
    expect(verifySignature(secret, header, BODY, { now: t })).toBe(true);
    expect(verifySignature(secret, header, BODY, { now: t + 4 * 60_000 })).toBe(true);
  });

  it('rejects a tampered body, a wrong secret and a malformed header', () => {
    const header = signatureHeader(secret, t, BODY);
    expect(verifySignature(secret, header, BODY.replace('evt_1', 'evt_2'), { now: t })).toBe(false);
    expect(verifySignature('whsec_other', header, BODY, { now: t })).toBe(false);
    expect(verifySignature(secret, header.replace(/v1=./, 'v1=0'), BODY, { now: t })).toBe(false);
    expect(verifySignature(secret, `t=${t + 1},${header.split(',')[1]}`, BODY, { now: t })).toBe(false);
    expect(verifySignature(secret, `t=${t}`, BODY, { now: t })).toBe(false);
    expect(verifySignature(secret, '', BODY, { now: t })).toBe(false);
  });

  it('rejects timestamps outside the tolerance (default 5 min), either way', () => {
    const header = signatureHeader(secret, t, BODY);
    expect(verifySignature(secret, header, BODY, { now: t + 5 * 60_000 + 1 })).toBe(false);
    expect(verifySignature(secret, header, BODY, { now: t - 5 * 60_000 - 1 })).toBe(false);
    expect(verifySignature(secret, header, BODY, { now: t + 2_000, toleranceMs: 1_000 })).toBe(false);
    expect(verifySignature(secret, signatureHeader(secret, Date.now(), BODY), BODY)).toBe(true);
  });
});

describe('Standard Webhooks signatures (signatureHeaders)', () => {
  const id = 'evt_0123456789abcdef';
  const lower = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

  it('issues secrets as whsec_ + padded base64 of 32 random bytes, the form the libraries read', () => {
    const secrets = Array.from({ length: 20 }, newWebhookSecret);
    expect(new Set(secrets).size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(signingKey(secret)).toEqual(Buffer.from(secret.slice('whsec_'.length), 'base64'));
      expect(signingKey(secret)).toHaveLength(32);
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });

  it('signs "<webhook-id>.<seconds>.<body>" with the key the secret encodes, in the headers of the spec', () => {
    const secret = newWebhookSecret();
    const sentAt = 1_750_000_000_123;
    const headers = signatureHeaders([secret], id, sentAt, BODY);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.1750000000.${BODY}`).digest('base64');
    expect(headers).toEqual({
      'webhook-id': id,
      'webhook-timestamp': '1750000000',
      'webhook-signature': `v1,${expected}`,
      'X-Signature': signatureHeader(secret, sentAt, BODY),
    });
  });

  it('is verified by the standardwebhooks package, which refuses other bytes, another secret or an old timestamp', () => {
    const secret = newWebhookSecret();
    const verifier = new Webhook(secret);
    const now = Date.now();
    expect(verifier.verify(BODY, lower(signatureHeaders([secret], id, now, BODY)))).toEqual(JSON.parse(BODY));
    const tampered = BODY.replace('evt_1', 'evt_2');
    expect(() => verifier.verify(tampered, lower(signatureHeaders([secret], id, now, BODY)))).toThrow(
      WebhookVerificationError,
    );
    const foreign = lower(signatureHeaders([newWebhookSecret()], id, now, BODY));
    expect(() => verifier.verify(BODY, foreign)).toThrow(WebhookVerificationError);
    const old = lower(signatureHeaders([secret], id, now - 6 * 60_000, BODY));
    expect(() => verifier.verify(BODY, old)).toThrow(/too old/);
  });

  it('signs with every secret given (a rotation): either verifies, in both header forms', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const now = Date.now();
    const headers = signatureHeaders([current, previous], id, now, BODY);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(BODY, lower(headers))).toEqual(JSON.parse(BODY));
      expect(verifySignature(secret, headers['X-Signature'] as string, BODY, { now })).toBe(true);
    }
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, lower(headers))).toThrow(
      WebhookVerificationError,
    );
  });

  it('keys an older secret (whsec_ + base64url) by its own bytes: raw, or wrapped as whsec_ + base64', () => {
    const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
    expect(signingKey(legacy)).toEqual(Buffer.from(legacy, 'utf8'));
    const headers = lower(signatureHeaders([legacy], id, Date.now(), BODY));
    expect(new Webhook(legacy, { format: 'raw' }).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    const wrapped = `whsec_${Buffer.from(legacy).toString('base64')}`;
    expect(new Webhook(wrapped).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    // The same key as its X-Signature.
    expect(verifySignature(legacy, headers['x-signature'] as string, BODY)).toBe(true);
  });

  it('refuses a webhook-id with a dot, which would blur the signed text', () => {
    expect(() => signatureHeaders([newWebhookSecret()], 'evt.1', Date.now(), BODY)).toThrow(/'\.'/);
  });
});

// ---- Address blocking ----

describe('isBlockedAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['100.64.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['fd12::1', true],
    ['ff02::1', true],
    // Deprecated site-local (fec0::/10): routed inside some networks still
    ['fec0::1', true],
    ['feff:ffff::1', true],
    // Discard-only (100::/64): a blackhole inside a network
    ['100::1', true],
    ['100::ffff:ffff:ffff:ffff', true],
    ['100:0:0:1::1', false], // beyond the /64
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
    ['not-an-ip', true],
    // IPv6 forms that carry an IPv4 address: a blocked IPv4 stays blocked in every one of them.
    // IPv4-mapped (::ffff:0:0/96)
    ['::ffff:169.254.169.254', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:192.168.0.1', true],
    ['::ffff:93.184.216.34', false],
    // IPv4-compatible (::/96, deprecated)
    ['::127.0.0.1', true],
    ['::7f00:1', true],
    ['::10.0.0.1', true],
    ['::169.254.169.254', true],
    ['::a9fe:a9fe', true],
    ['::8.8.8.8', false],
    ['::808:808', false],
    // IPv4-translated (::ffff:0:0:0/96)
    ['::ffff:0:127.0.0.1', true],
    ['::ffff:0:8.8.8.8', false],
    // NAT64 well-known prefix (64:ff9b::/96): by the embedded address
    ['64:ff9b::127.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::10.1.2.3', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['64:ff9b::c0a8:101', true],
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b::5db8:d822', false],
    // NAT64 local-use prefix (64:ff9b:1::/48): never a public target, refused whole
    ['64:ff9b:1::808:808', true],
    ['64:ff9b:1:abcd::1', true],
    // 6to4 (2002::/16): the IPv4 address is bits 16..47
    ['2002:7f00:1::', true],
    ['2002:7f00:0001::1', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:0a00:0001:1::1', true],
    ['2002:c0a8:0101::', true],
    ['2002:808:808::1', false],
    ['2002:5db8:d822:1::1', false],
    // Teredo (2001::/32): refused whole, whatever its obfuscated client address
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
    ['2001:0:0:0:0:0:80ff:fffe', true],
    ['2001::1', true],
    // Neighbours of those prefixes that are ordinary public IPv6
    ['2001:4860:4860::8888', false],
    ['2001:1::1', false],
    ['2003::1', false],
    ['64:ff9b:2::1', false],
    ['2a00:1450:4001:80b::200e', false],
    // Scoped (zone) forms are link-local whatever the zone
    ['fe80::1%eth0', true],
  ])('%s -> blocked %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

// ---- Delivery ----

describe('postWebhook (private targets allowed)', () => {
  let ok200: Receiver;
  let ok204: Receiver;
  let fails500: Receiver;
  let silent: Receiver;

  beforeAll(async () => {
    ok200 = await receiver(status(200));
    ok204 = await receiver(status(204));
    fails500 = await receiver(status(500));
    silent = await receiver(() => {}); // reads the request, never answers
  });

  it('POSTs the exact body and headers, with Content-Length', async () => {
    const signature = signatureHeader('whsec_x', 1_750_000_000_000, BODY);
    const headers = {
      'Content-Type': 'application/json',
      'X-Webhook-Id': 'wh_1',
      'X-Event-Id': 'evt_1',
      'X-Event-Type': 'route.completed',
      'X-Signature': signature,
    };
    const result = await postWebhook(post(`${ok200.url}/hooks/in?src=drs`, { headers }));

    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(ok200.received).toHaveLength(1);
    const [got] = ok200.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hooks/in?src=drs');
    expect(got?.body).toBe(BODY);
    expect(got?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-id': 'wh_1',
      'x-event-id': 'evt_1',
      'x-event-type': 'route.completed',
      'x-signature': signature,
      'content-length': String(Buffer.byteLength(BODY)),
    });
    expect(
      verifySignature('whsec_x', got?.headers['x-signature'] as string, got?.body ?? '', {
        now: 1_750_000_000_000,
      }),
    ).toBe(true);
  });

  it('reaches a hostname that resolves to loopback', async () => {
    const viaName = await receiver(status(200));
    const result = await postWebhook(post(`http://localhost:${viaName.port}/`));
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(viaName.received).toHaveLength(1);
  });

  it('treats 204 as success', async () => {
    expect(await postWebhook(post(ok204.url))).toMatchObject({ ok: true, statusCode: 204 });
  });

  it('reports a non-2xx status as a failure', async () => {
    const result = await postWebhook(post(fails500.url));
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
    expect(fails500.received).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    const target = await receiver(status(200));
    const redirecting = await receiver(status(302, { Location: `${target.url}/elsewhere` }));
    const result = await postWebhook(post(redirecting.url));
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'redirect not followed (302)' });
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('times out a receiver that never answers, within roughly timeoutMs', async () => {
    const result = await postWebhook(post(silent.url, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1_500);
    expect(silent.received).toHaveLength(1);
  });

  it('stops reading an endless 2xx body at the cap instead of timing out', async () => {
    const endless = await receiver((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    });
    const result = await postWebhook(post(endless.url, { timeoutMs: 3_000 }));
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reports a header Node rejects as a failure without throwing', async () => {
    const result = await postWebhook(
      post(ok200.url, { headers: { 'X-Event-Id': 'evt_1\r\nX-Injected: 1' } }),
    );
    expect(result).toMatchObject({ ok: false });
    expect(result).not.toHaveProperty('refused');
  });

  it('reports a refused connection as a failure without throwing', async () => {
    const closed = await receiver(status(200));
    await closed.close();
    const result = await postWebhook(post(closed.url));
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('refused');
    expect(result).not.toHaveProperty('statusCode');
    if (!result.ok) {
      expect(result.error).toBe('connection refused (ECONNREFUSED)');
      expect(result.error).not.toContain('127.0.0.1');
    }
  });
});

describe('postWebhook (private targets refused)', () => {
  let local: Receiver;

  beforeAll(async () => {
    local = await receiver(status(200));
  });

  // The error is shown to the tenant (delivery log): it says why, never which internal address was found.
  const literal = /^refused: the target address is blocked \(/;
  const resolved = (host: string) => new RegExp(`^refused: host '${host}' resolves to a blocked address \\(`);
  it.each([
    ['loopback IPv4 literal', () => `${local.url}/hook`, literal],
    ['loopback IPv6 literal', () => `http://[::1]:${local.port}/hook`, literal],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${local.port}/`, literal],
    ['IPv4-compatible loopback', () => `http://[::127.0.0.1]:${local.port}/`, literal],
    ['NAT64 form of the metadata service', () => 'http://[64:ff9b::169.254.169.254]/latest', literal],
    ['6to4 form of a private address', () => 'http://[2002:a00:1::1]/', literal],
    ['Teredo address', () => 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', literal],
    ['hex-encoded loopback', () => `http://0x7f.1:${local.port}/`, literal],
    ['metadata service', () => 'http://169.254.169.254/latest/meta-data', literal],
    ['private network', () => 'http://10.0.0.1/', literal],
    ['deprecated site-local IPv6 literal', () => 'http://[fec0::1]/', literal],
    ['discard-only IPv6 literal', () => 'http://[100::1]/', literal],
    ['hostname resolving to loopback', () => `http://localhost:${local.port}/hook`, resolved('localhost')],
    [
      'hostname with one public and one private answer',
      () => `http://rebind.test:${local.port}/`,
      resolved('rebind\\.test'),
    ],
    [
      'hostname resolving to an embedded private address',
      () => 'http://nat64.test/',
      resolved('nat64\\.test'),
    ],
  ])('refuses a %s without naming the address', async (_name, url, error) => {
    const result = await postWebhook(post(url(), { allowPrivateTargets: false, timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, refused: true });
    if (!result.ok) {
      expect(result.error).toMatch(error);
      expect(result.error).not.toMatch(/127\.0\.0\.1|::1\b|7f00|10\.0\.0\.1|169\.254|a9fe|192\.168/);
    }
    expect(local.received).toHaveLength(0);
  });

  it('resolves hostnames while connecting and connects to the allowed answer', async () => {
    lookedUp.length = 0;
    const result = await postWebhook(
      post('http://public.test/hook', { allowPrivateTargets: false, timeoutMs: 300 }),
    );
    expect(lookedUp).toEqual(['public.test']);
    // 192.0.2.1 (TEST-NET-1) is not blocked, so the connection is attempted: it fails (refused/unreachable)
    // or times out, depending on the network; it is never a refused target, and the error does not name
    // the address the name resolved to.
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('refused');
    if (!result.ok) expect(result.error).not.toContain('192.0.2.1');
  });
});

describe('postWebhook (schemes)', () => {
  it.each(['ftp://example.com/hook', 'file:///etc/passwd', 'not a url'])('refuses %s', async (url) => {
    const result = await postWebhook(post(url));
    expect(result).toMatchObject({ ok: false, refused: true });
  });
});
