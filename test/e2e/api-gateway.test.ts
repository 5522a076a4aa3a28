import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../local/api-gateway/api-keys';
import { type ApiGateway, startApiGateway } from '../../local/api-gateway/server';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type RestApiSpec } from '../../local/cloud/model';
import type { LambdaRuntime } from '../../local/lambda/runtime';
import {
  ENVELOPE,
  FUNCTIONS,
  GATEWAY_TEST_API,
  meteredApi,
  method,
  USAGE_KEYS,
} from '../support/gateway-test-api';
import { startFixtureLambdas } from '../support/lambda-fixtures';

/**
 * The local API Gateway, configured as a REST API's template declares it, in front of fixture functions run
 * by the local Lambda runtime (test/fixtures/lambda/gateway.ts): routing, the REQUEST authorizer (identity
 * source, cache, policy, context), API Gateway's own limits and errors, throttling and compression.
 */

let scratch: string;
let lambda: LambdaRuntime;
let gateway: ApiGateway;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  lambda = await startFixtureLambdas(FUNCTIONS, scratch);
  gateway = await startApiGateway({
    api: GATEWAY_TEST_API,
    lambda,
    accountId: LOCAL_ACCOUNT_ID,
    region: LOCAL_REGION,
    integrationTimeoutMs: 3000,
  });
});

afterAll(async () => {
  await gateway?.close();
  await lambda?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function request(path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.url}${path}`, init);
  const buffer = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: buffer.toString('utf8'), buffer };
}

/** A GET of `path` exactly as written (no URL normalization on the way); resolves with the body. */
function rawGet(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet(`${gateway.url}/`, { path }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    }).on('error', reject);
  });
}

const invocations = (functionName: string) => lambda.stats(functionName).invocations;

describe('routing', () => {
  it('passes the request to the function as a REST proxy event', async () => {
    const response = await request('/public/echo?x=1&x=2', { headers: { 'X-Custom': 'a b' } });
    expect(response.status).toBe(200);
    const event = JSON.parse(response.text);
    expect(event).toMatchObject({
      resource: '/public/{action}',
      path: '/public/echo',
      httpMethod: 'GET',
      pathParameters: { action: 'echo' },
      queryStringParameters: { x: '2' },
      multiValueQueryStringParameters: { x: ['1', '2'] },
      requestContext: {
        stage: 'v1',
        apiId: 'gwtest',
        resourcePath: '/public/{action}',
        accountId: LOCAL_ACCOUNT_ID,
      },
    });
    expect(event.headers['X-Custom']).toBe('a b');
  });

  // As live captures of REST proxy events show (test/fixtures/aws/README.md): the path and the path
  // parameters as the client wrote them, `%2F` inside a segment included; the query decoded as a form.
  it('passes the path and path parameters still percent-encoded, and the query decoded', async () => {
    const echoOf = async (path: string) => JSON.parse((await request(path)).text);
    const path = '/echo/R%20100%25%2B%2F%C3%A9+x';
    expect(await echoOf(`${path}?literalPlus=a+b&encodedPlus=a%2Bb&s=%E6%9D%B1&e=&r=1&r=2`)).toMatchObject({
      resource: '/echo/{value}',
      path,
      pathParameters: { value: 'R%20100%25%2B%2F%C3%A9+x' },
      queryStringParameters: { literalPlus: 'a b', encodedPlus: 'a+b', s: '東', e: '', r: '2' },
      multiValueQueryStringParameters: { r: ['1', '2'] },
      requestContext: { path: `/v1${path}`, resourcePath: '/echo/{value}' },
    });
    // Neither resolved as dot segments nor re-encoded: the path is the one the client sent (fetch would
    // resolve them before sending, so these go out as written).
    expect(JSON.parse(await rawGet('/echo/%2E%2e')).pathParameters).toEqual({ value: '%2E%2e' });
    expect(JSON.parse(await rawGet('/echo/..')).path).toBe('/echo/..');
    // An escape of a plain letter stays an escape: the function sees action "%65cho", not "echo".
    expect(await echoOf('/public/%65cho')).toEqual({ unknown: '%65cho' });
  });

  it('prefers a literal path segment to a parameter', async () => {
    expect(JSON.parse((await request('/public/literal')).text)).toEqual({ unknown: undefined });
  });

  it('answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN, without invoking anything', async () => {
    const before = invocations('gw-integration');
    for (const [path, method] of [
      ['/nowhere', 'GET'],
      ['/public/echo', 'DELETE'],
    ] as const) {
      const response = await request(path, { method });
      expect(response.status).toBe(404);
      expect(response.text).toBe(ENVELOPE(1007, 'no such endpoint'));
    }
    expect(invocations('gw-integration')).toBe(before);
  });
});

describe('the REQUEST authorizer', () => {
  it('answers 401 without calling the authorizer when the identity source is missing or empty', async () => {
    const before = invocations('gw-authorizer');
    expect((await request('/private/echo')).status).toBe(401);
    expect((await request('/private/echo', { headers: { Authorization: '' } })).status).toBe(401);
    expect(invocations('gw-authorizer')).toBe(before);
  });

  it('matches the identity source header whatever its case', async () => {
    const response = await request('/private/echo', {
      headers: { AUTHORIZATION: 'Bearer upper-case-header' },
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text).requestContext.authorizer).toEqual({
      account_id: 'acc-1',
      dcs: 2,
      admin: false,
      identity: 'Bearer upper-case-header',
      principalId: 'caller-1',
      integrationLatency: expect.any(Number),
    });
  });

  it('caches a result by the identity source for the TTL: the same key is not authorized twice', async () => {
    const before = invocations('gw-authorizer');
    for (let i = 0; i < 3; i++)
      expect((await request('/private/echo', { headers: { Authorization: 'Bearer cached' } })).status).toBe(
        200,
      );
    expect(invocations('gw-authorizer')).toBe(before + 1);
  });

  it('evaluates a cached policy against each method: one that allows only the first method denies the next', async () => {
    const headers = { Authorization: 'Bearer narrow', 'x-answer': 'narrow' };
    expect((await request('/private/echo', { headers })).status).toBe(200);
    const other = await request('/private/other', { headers });
    expect(other.status).toBe(403);
    expect(other.text).toBe(ENVELOPE(1006, 'invalid request'));
  });

  it.each([
    ['throws Unauthorized', 'refuse', 401, ENVELOPE(1001, 'unauthorized')],
    ['returns a Deny policy', 'deny', 403, ENVELOPE(1006, 'invalid request')],
    ['fails', 'fail', 500, ENVELOPE(1000, 'internal error')],
    ['returns a context value that is an object', 'object-context', 500, ENVELOPE(1000, 'internal error')],
  ])('answers as API Gateway does when the authorizer %s', async (_, answer, status, body) => {
    const response = await request('/private/echo', {
      headers: { Authorization: `Bearer ${answer}`, 'x-answer': answer },
    });
    expect(response.status).toBe(status);
    expect(response.text).toBe(body);
  });
});

describe('limits and integration errors', () => {
  it('refuses a body over 10 MB with REQUEST_TOO_LARGE before any function runs', async () => {
    const before = invocations('gw-integration');
    const response = await request('/public/echo', {
      method: 'POST',
      body: 'x'.repeat(10 * 1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(invocations('gw-integration')).toBe(before);
  });

  it('answers 500 when Lambda refuses the invocation: an event over 6 MB with a body under 10 MB', async () => {
    const response = await request('/public/echo', { method: 'POST', body: 'x'.repeat(7 * 1024 * 1024) });
    expect(response.status).toBe(500);
    expect(response.text).toBe(ENVELOPE(1000, 'internal error'));
  });

  it('answers 502 when the function throws, returns a malformed result or a response over 6 MB', async () => {
    for (const path of ['/public/throw', '/public/malformed', `/public/big?bytes=${6 * 1024 * 1024 + 200}`]) {
      const response = await request(path);
      expect(response.status, path).toBe(502);
      expect(response.text).toBe(ENVELOPE(1000, 'internal error'));
    }
  });

  it('answers 502 when the function times out (its own 1 s timeout)', async () => {
    const response = await request('/slow/sleep?ms=2000');
    expect(response.status).toBe(502);
  });

  it('answers 504 when the integration timeout passes first', async () => {
    const response = await request('/public/sleep?ms=5000');
    expect(response.status).toBe(504);
    expect(response.text).toBe(ENVELOPE(1000, 'internal error'));
  });
});

describe('stage settings', () => {
  it('throttles a method by its own method setting, with the THROTTLED response', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request('/throttled/echo')).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('compresses answers of at least minimumCompressionSize for clients that accept gzip', async () => {
    const big = await request('/public/big?bytes=5000', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(big.headers.get('content-encoding')).toBe('gzip');
    const small = await request('/public/big?bytes=100', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(small.text).toBe('x'.repeat(100));
  });
});

describe('API keys and usage plans', () => {
  const { alpha: ALPHA, beta: BETA, off: OFF, late: LATE } = USAGE_KEYS;

  let store: ApiKeyStore;
  let byAuthorizer: ApiGateway;
  let byHeader: ApiGateway;

  beforeAll(async () => {
    store = new ApiKeyStore();
    const options = { lambda, accountId: LOCAL_ACCOUNT_ID, region: LOCAL_REGION, apiKeys: store };
    byAuthorizer = await startApiGateway({ ...options, api: meteredApi('AUTHORIZER') });
    byHeader = await startApiGateway({ ...options, api: meteredApi('HEADER') });
  });

  afterAll(async () => {
    await byAuthorizer?.close();
    await byHeader?.close();
  });

  /** A request whose authorizer names `usageKey` (cached by the Authorization header, as API Gateway does). */
  const metered = (usageKey: string | undefined, path = '/metered/echo', gateway = byAuthorizer) =>
    fetch(`${gateway.url}${path}`, {
      headers: {
        Authorization: `Bearer caller-of-${usageKey ?? 'none'}`,
        ...(usageKey ? { 'x-usage-key': usageKey } : {}),
      },
    });

  it('refuses with INVALID_API_KEY (403) a request whose usage key is missing, unknown or disabled', async () => {
    for (const usageKey of [undefined, 'unknownKey00000000000000000', OFF]) {
      const response = await metered(usageKey);
      expect(response.status, String(usageKey)).toBe(403);
      // No INVALID_API_KEY response on this API: its DEFAULT_4XX body, with the type's own status.
      expect(await response.text()).toBe(ENVELOPE(1006, 'invalid request'));
    }
  });

  it('throttles each key by its own bucket of the plan, and passes the key id to the function', async () => {
    const alpha = [];
    for (let i = 0; i < 3; i++) alpha.push(await metered(ALPHA));
    expect(alpha.map((response) => response.status)).toEqual([200, 200, 429]);
    expect(JSON.parse(await (alpha[0] as Response).text()).requestContext.identity).toMatchObject({
      apiKey: ALPHA,
      apiKeyId: 'k-alpha',
    });
    // Another key of the same plan is not held back by the first one's requests.
    expect((await metered(BETA)).status).toBe(200);
    // Methods that do not require a key do not draw on the plan.
    expect((await fetch(`${byAuthorizer.url}/public/echo`)).status).toBe(200);
  });

  it('lets a key created at run time through once it joins the plan', async () => {
    const key = store.createApiKey({ name: 'late', value: LATE, enabled: true });
    expect((await metered(LATE)).status).toBe(403);
    store.addUsagePlanKey('plan01', key.id);
    // The authorizer's result for this caller is cached, its usage key with it: the plan is read anew.
    expect((await metered(LATE)).status).toBe(200);
    expect(() => store.addUsagePlanKey('plan01', key.id)).toThrow(/already in Usage Plan/);
    expect(() => store.addUsagePlanKey('no-such-plan', key.id)).toThrow(/Invalid Usage Plan ID/);
  });

  describe("a plan's per-method throttle", () => {
    // One token each, refilled every 100 s: no bucket refills while the test runs.
    const SLOW = 0.01;
    const [ONE, TWO, THREE] = [
      'oneKey0000000000000000001',
      'twoKey0000000000000000002',
      'threeKey00000000000003',
    ];
    let limited: ApiGateway;

    beforeAll(async () => {
      const metered = meteredApi('AUTHORIZER');
      const plan = metered.usagePlans[0] as RestApiSpec['usagePlans'][number];
      const api: RestApiSpec = {
        ...metered,
        id: 'gwlimited',
        methods: [
          ...metered.methods,
          { ...method('POST', '/metered/{action}', 'CUSTOM'), apiKeyRequired: true },
        ],
        stages: [
          {
            stageName: 'v1',
            methodSettings: [
              { resourcePath: '/*', httpMethod: '*', throttlingRateLimit: 1000, throttlingBurstLimit: 1000 },
              // The stage's ceiling on the limited method, for every key together.
              {
                resourcePath: '/~1metered~1{action}',
                httpMethod: 'POST',
                throttlingRateLimit: SLOW,
                throttlingBurstLimit: 2,
              },
            ],
            tracingEnabled: false,
          },
        ],
        usagePlans: [
          {
            ...plan,
            id: 'plan02',
            throttle: { rateLimit: SLOW, burstLimit: 2 },
            methodThrottles: [
              { stage: 'v1', path: '/metered/{action}', httpMethod: 'POST', rateLimit: SLOW, burstLimit: 1 },
            ],
            keys: [ONE, TWO, THREE].map((value, index) => ({ id: `k-${index}`, value, enabled: true })),
          },
        ],
      };
      limited = await startApiGateway({
        api,
        lambda,
        accountId: LOCAL_ACCOUNT_ID,
        region: LOCAL_REGION,
        apiKeys: new ApiKeyStore(),
      });
    });

    afterAll(() => limited?.close());

    const call = (usageKey: string, httpMethod: 'GET' | 'POST') =>
      fetch(`${limited.url}/metered/echo`, {
        method: httpMethod,
        headers: { Authorization: `Bearer caller-of-${usageKey}`, 'x-usage-key': usageKey },
      }).then((response) => response.status);

    it("holds each key to the method's own bucket, and to the key's bucket of the plan besides", async () => {
      expect(await call(ONE, 'POST')).toBe(200);
      // The method's bucket of this key is empty; refused there, the request takes nothing from the plan's.
      expect(await call(ONE, 'POST')).toBe(429);
      expect(await call(ONE, 'GET')).toBe(200);
      // The plan's bucket (burst 2) gave one token to each method.
      expect(await call(ONE, 'GET')).toBe(429);
    });

    it("applies the stage's ceiling after the keys' own limits, to every key together", async () => {
      // Key ONE's refusal above took nothing from the stage's bucket (burst 2): ONE and TWO got a token each.
      expect(await call(TWO, 'POST')).toBe(200);
      // THREE's own buckets are full, but the stage's ceiling on the method is spent.
      expect(await call(THREE, 'POST')).toBe(429);
      expect(await call(THREE, 'GET')).toBe(200);
    });
  });

  it('takes the key from X-API-Key when the key source is HEADER, never from the authorizer', async () => {
    const keyed = (headers: Record<string, string>) => fetch(`${byHeader.url}/keyed/echo`, { headers });
    expect((await keyed({ 'X-API-Key': BETA })).status).toBe(200);
    expect((await keyed({})).status).toBe(403);
    expect((await metered(ALPHA, '/metered/echo', byHeader)).status).toBe(403);
    // On an AUTHORIZER-source API the header means nothing: a method without an authorizer has no key.
    expect((await fetch(`${byAuthorizer.url}/keyed/echo`, { headers: { 'X-API-Key': BETA } })).status).toBe(
      403,
    );
  });
});
