import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import type * as z from '../../functions/shared/zod';
import { createTestAccount } from '../support/accounts';
import { call, callRaw } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute } from '../support/routes';

/*
 * Every endpoint of the endpoint list, driven over HTTP through the local runtime with generated bad input:
 * wrong types, huge and empty strings, text SQS cannot carry, numbers DynamoDB cannot store, times far off,
 * bad path and query parameters, deep and large JSON. Whatever comes in, no answer is a 5xx, every 4xx
 * is the error envelope with a small message, and every answer is one the OpenAPI document gives. Values are built from each endpoint's own zod schemas (right
 * shape, bad leaves) or are junk of any shape, with a fixed seed and a fixed number of runs per endpoint,
 * plus hand-picked values every endpoint gets. A new endpoint is covered by being in the list.
 */

/** Generated requests per endpoint; with the hand-picked ones, the file takes well under a minute. */
const RUNS_PER_ENDPOINT = 12;
const SEED = 20_261_123;
/** Requests in flight at once (the local runtime keeps at most 3 environments per function). */
const CONCURRENCY = 4;

let api: TestApi;
let key: string;
let driverToken: string;

/** Values that exist, so that some requests get past "not found" to the code behind it. */
const KNOWN: Record<string, string> = {
  dc_id: 'dc-1',
  route_id: 'fz-route',
  driver_id: 'fz-driver',
  waypoint_id: 'fz-route-wp-0',
  txid: 'imp_0000000000000000',
  download_request_txid: 'dl_0000000000000000',
  id: 'wh_0000000000000000',
  date: '2026-11-23',
  file: 'swagger-ui.css',
};

beforeAll(async () => {
  api = await startTestApi('input-fuzz');
  ({ key } = await createTestAccount('Fuzz', [{ dcId: 'dc-1' }]));
  const driver = await call(api.url, 'POST', '/dcs/dc-1/drivers', {
    key,
    body: { driver_id: 'fz-driver', driver_name: 'Fuzz', login_token: strongToken('fz-driver-token-0001') },
  });
  expect(driver.status, driver.text).toBe(200);
  driverToken = strongToken('fz-driver-token-0001');
  const webhook = await call(api.url, 'POST', '/webhooks', {
    key,
    body: { webhook_url: 'https://example.com/hooks', events: ['ROUTE_CREATED'], dc_ids: ['dc-1'] },
  });
  expect(webhook.status, webhook.text).toBe(200);
  KNOWN.id = (webhook.body.data.webhook as { id: string }).id;
  // A started route of the driver: attempts, cash records and the finish reach their writes.
  await importRoute(api.url, key, 'dc-1', exampleRoute('fz-route', { driverId: 'fz-driver' }));
  const started = await call(api.url, 'POST', '/driver/routes/fz-route/start', {
    key: driverToken,
    body: { timestamp: Date.now() - 60_000 },
  });
  expect(started.status, started.text).toBe(200);
}, 120_000);

afterAll(() => api?.close());

// ---------------------------------------------------------------------------------------------------
// Bad values
// ---------------------------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const noncharacter = fc.oneof(
  fc.integer({ min: 0xfdd0, max: 0xfdef }).map((cp) => String.fromCodePoint(cp)),
  fc
    .integer({ min: 0, max: 16 })
    .chain((plane) =>
      fc
        .constantFrom(plane * 0x10000 + 0xfffe, plane * 0x10000 + 0xffff)
        .map((cp) => String.fromCodePoint(cp)),
    ),
);
const control = fc.integer({ min: 0, max: 0x9f }).filter((cp) => cp < 0x20 || cp >= 0x7f);
const character = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: noncharacter },
  { weight: 1, arbitrary: control.map((cp) => String.fromCodePoint(cp)) },
  { weight: 1, arbitrary: fc.constantFrom('/', '%', '?', '#', '+', ' ', '"', '\\', '😀', '\u2028') },
);

/** Strings that break things: hand-picked ones, generated ones of any character, and long ones. */
const NASTY_STRINGS = [
  '',
  ' ',
  ' padded ',
  'x'.repeat(2100),
  'é'.repeat(300),
  '😀'.repeat(128),
  '😀'.repeat(97),
  '"'.repeat(200),
  '\uFFFF',
  '\uFFFE',
  '\uD800',
  'a\uDC00b',
  '\uFDD0',
  '\u{10FFFF}',
  '\u{1FFFE}',
  'a\u0000b',
  'tab\there',
  'line\nbreak',
  '\u2028',
  '\u007F',
  '\u0085',
  '/',
  '../..',
  '%',
  '%00',
  'a?b#c',
  'R 2026-11-23',
  '__proto__',
  'constructor',
  'null',
  '-1',
  '1e309',
  '1e-200',
  '0x10',
  'imp_',
  'dl_✓',
];
const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 4, arbitrary: fc.string({ unit: character, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: character, minLength: 100, maxLength: 3000 }) },
  { weight: 1, arbitrary: fc.nat({ max: 5000 }).map((length) => 'a'.repeat(length)) },
);

const NASTY_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  1e-131,
  -1e-200,
  5e-324,
  1e-130,
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  1e15,
  8.64e15 + 1,
  946_684_799_999,
  4_102_444_800_001,
  1_700_000_000,
  Date.now() + 86_400_000,
];
const nastyNumber = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
);

/** A value of a wrong type, or junk of any shape. */
const junk = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [[[[]]]], { '': null }),
  nastyNumber,
  nastyString,
  fc.jsonValue({ maxDepth: 3 }),
);

const nastyValue = fc.oneof(nastyString, nastyNumber, junk);

// ---------------------------------------------------------------------------------------------------
// Values shaped by an endpoint's schema, with bad leaves
// ---------------------------------------------------------------------------------------------------

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/**
 * A value in the shape the schema describes (objects with its keys, arrays of its elements) whose leaves are
 * mostly wrong: strings that break text rules, numbers out of range, other types. Sometimes a leaf is left out
 * or right (an enum's value), so that the values reach past the first check.
 */
function shaped(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  if (depth > 8) return junk;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const entries = Object.entries(shape).map(([name, field]) => [name, shaped(field, depth + 1)] as const);
      return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
    }
    case 'array':
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(shaped(def.element, depth + 1), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.array(fc.constant(1), { minLength: 1000, maxLength: 1001 }) },
        { weight: 1, arbitrary: junk },
      );
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return fc.oneof(shaped(def.innerType, depth), fc.constant(undefined), fc.constant(null));
    case 'pipe':
      return shaped(def.in, depth);
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map((option) => shaped(option, depth)));
    case 'enum':
      return fc.oneof(fc.constantFrom(...Object.values(def.entries as Record<string, string>)), nastyValue);
    case 'literal':
      return fc.oneof(fc.constantFrom(...(def.values as unknown[])), nastyValue);
    case 'string':
      return fc.oneof({ weight: 5, arbitrary: nastyString }, { weight: 1, arbitrary: junk });
    case 'number':
      return fc.oneof({ weight: 5, arbitrary: nastyNumber }, { weight: 1, arbitrary: junk });
    case 'boolean':
      return fc.oneof(fc.boolean(), junk);
    default:
      return nastyValue;
  }
}

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

/**
 * A path segment as a client would send it: percent-encoded UTF-8; a lone surrogate, which has none, as
 * the three bytes a careless encoder writes (WTF-8).
 */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return Array.from(value, (char) => {
      try {
        return encodeURIComponent(char);
      } catch {
        const unit = char.charCodeAt(0);
        const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
        return bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
      }
    }).join('');
  }
}

interface FuzzRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  /** A value sent as JSON, or raw text (malformed or huge bodies). */
  body: { json: unknown } | { raw: string } | undefined;
  auth: 'valid' | 'garbage';
}

const paramNames = (endpoint: EndpointDefinition) =>
  [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

const queryNames = (endpoint: EndpointDefinition) =>
  Object.keys((endpoint.request.query as z.ZodMiniObject | undefined)?.shape ?? {});

function requestFor(endpoint: EndpointDefinition): fc.Arbitrary<FuzzRequest> {
  const param = (name: string) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(KNOWN[name] ?? 'x') },
      { weight: 3, arbitrary: nastyString },
    );
  const queryValue = fc.oneof(
    nastyString,
    nastyNumber.map(String),
    fc.constantFrom('0', '1', '1000', '1001', '1.5', '-1', ' 5 ', '1e3', 'Infinity'),
  );
  const body: fc.Arbitrary<FuzzRequest['body']> = endpoint.request.body
    ? fc.oneof(
        { weight: 6, arbitrary: shaped(endpoint.request.body).map((json) => ({ json })) },
        { weight: 2, arbitrary: junk.map((json) => ({ json })) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom('{"a":', '[', 'nul', '\uFEFF{}', '{"a":1}{"b":2}')
            .map((raw) => ({ raw })),
        },
      )
    : fc.constantFrom(undefined, { json: { unexpected: 'x'.repeat(100) } });
  return fc.record({
    params: fc.record(
      Object.fromEntries(paramNames(endpoint).map((name) => [name, param(name)])),
    ) as fc.Arbitrary<Record<string, string>>,
    query: fc.dictionary(fc.constantFrom(...queryNames(endpoint), 'other'), queryValue, { maxKeys: 3 }),
    body,
    auth: fc.constantFrom('valid', 'valid', 'valid', 'garbage'),
  }) as fc.Arbitrary<FuzzRequest>;
}

/** A value of the schema's shape whose every string is 200,000 characters (a message must not echo it). */
function everyStringHuge(schema: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(def.shape as Record<string, unknown>).map(([name, field]) => [
          name,
          everyStringHuge(field),
        ]),
      );
    case 'array':
      return [everyStringHuge(def.element)];
    case 'optional':
    case 'nullable':
    case 'default':
      return everyStringHuge(def.innerType);
    case 'pipe':
      return everyStringHuge(def.in);
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return 'E'.repeat(200_000);
  }
}

/** Hand-picked requests every endpoint gets: the parameters and bodies that once broke something. */
function handPicked(endpoint: EndpointDefinition): FuzzRequest[] {
  const known = Object.fromEntries(paramNames(endpoint).map((name) => [name, KNOWN[name] ?? 'x']));
  const withParam = (value: string) =>
    paramNames(endpoint).map((name) => ({ ...known, [name]: value }) as Record<string, string>);
  const base = { params: known, query: {}, body: undefined, auth: 'valid' as const };
  const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  const wide = `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
  return [
    ...['x'.repeat(2100), '\uFFFF', '😀'.repeat(128), 'a b', '%', '\u0007'].flatMap((value) =>
      withParam(value).map((params) => ({ ...base, params })),
    ),
    ...queryNames(endpoint).map((name) => ({ ...base, query: { [name]: 'x'.repeat(3000) } })),
    {
      ...base,
      query: {
        next_token: Buffer.from(JSON.stringify({ pk: 'x', sk: 'y'.repeat(2000) })).toString('base64url'),
      },
    },
    ...(endpoint.request.body
      ? [
          { ...base, body: { raw: deep } },
          { ...base, body: { raw: wide } },
          { ...base, body: { json: everyStringHuge(endpoint.request.body) } },
        ]
      : []),
  ];
}

async function send(endpoint: EndpointDefinition, request: FuzzRequest) {
  let path = endpoint.path;
  for (const [name, value] of Object.entries(request.params))
    path = path.replace(`{${name}}`, encodeSegment(value));
  const query = new URLSearchParams(request.query).toString();
  const token = endpoint.auth === 'driverToken' ? driverToken : key;
  const headers: Record<string, string> = {
    Authorization: request.auth === 'valid' ? `Bearer ${token}` : 'Bearer garbage-token-0000',
  };
  let body: string | undefined;
  if (request.body) {
    body = 'raw' in request.body ? request.body.raw : JSON.stringify(request.body.json);
    headers['Content-Type'] = 'application/json';
  }
  for (let attempt = 0; ; attempt++) {
    // Every answer, a 2xx to junk included, must also be one the OpenAPI document gives for the operation.
    const { status, text } = await callRaw(api.url, endpoint.method, `${path}${query ? `?${query}` : ''}`, {
      headers,
      body: endpoint.method === 'GET' ? undefined : body,
    });
    // Throttled methods (imports, exports, webhook tests) answer 429 under a burst: wait as clients must.
    if (status === 429 && attempt < 60) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 500)));
      continue;
    }
    return { status, text };
  }
}

/** Fails unless the answer is below 500, and a 4xx is the error envelope with a small message. */
function checkAnswer(
  endpoint: EndpointDefinition,
  request: FuzzRequest,
  answer: { status: number; text: string },
) {
  const what = () =>
    `${endpoint.method} ${endpoint.path} ${JSON.stringify(request).slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) throw new Error(`5xx: ${what()}`);
  if (answer.status < 400) return;
  let envelope: { status?: unknown; data?: { code?: unknown; message?: unknown } };
  try {
    envelope = JSON.parse(answer.text);
  } catch {
    throw new Error(`not JSON: ${what()}`);
  }
  const { code, message } = envelope.data ?? {};
  if (envelope.status !== 'error' || typeof code !== 'number' || typeof message !== 'string')
    throw new Error(`not the error envelope: ${what()}`);
  if (message.length > 1000) throw new Error(`a message of ${message.length} characters: ${what()}`);
}

async function fuzz(endpoint: EndpointDefinition, index: number): Promise<void> {
  for (const request of handPicked(endpoint)) checkAnswer(endpoint, request, await send(endpoint, request));
  const result = await fc.check(
    fc.asyncProperty(requestFor(endpoint), async (request) => {
      checkAnswer(endpoint, request, await send(endpoint, request));
    }),
    { numRuns: RUNS_PER_ENDPOINT, seed: SEED + index, endOnFailure: true },
  );
  // The first failing request as checkAnswer described it (fast-check's report repeats the whole value).
  if (result.failed) throw new Error(String((result.errorInstance as Error | undefined)?.message));
}

describe('every endpoint, driven with bad input over HTTP', () => {
  it('answers no 5xx, and every 4xx is the error envelope with a small message', async () => {
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < endpoints.length) {
        const index = next++;
        const endpoint = endpoints[index] as EndpointDefinition;
        try {
          await fuzz(endpoint, index);
        } catch (error) {
          failures.push(`${endpoint.operationId}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures).toEqual([]);
  }, 600_000);
});
