import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type BuiltBundle, buildLambdaBundle, packageOf } from '../../bench/bundles';
import { runNodeScript } from '../../bench/node-script';
import { repoRoot } from '../../bench/runtime';
import { LAMBDA_BUNDLE } from '../../lib/bundling';
import { localHandlerEnvironment } from '../../local/environment';
import { createLocalResources } from '../../local/stack';

/**
 * The production bundles (lib/bundling.ts, as CDK builds them) load and run: a few representative
 * functions are bundled, imported in a fresh Node process each (with source maps on, as on Lambda) and
 * invoked with a real event against the test run's DynamoDB Local. The bundles sit under the repository's
 * node_modules so their `@aws-sdk/*` imports resolve to the repository's SDK, as to the runtime's on Lambda.
 */

const FUNCTIONS = {
  authorizer: 'auth/api-key-authorizer',
  getDriver: 'drivers/get',
  openapi: 'docs/openapi',
  fanOut: 'workers/fan-out-events',
} as const;

let dir: string;
let env: Record<string, string>;
const bundles = {} as Record<keyof typeof FUNCTIONS, BuiltBundle>;

beforeAll(async () => {
  const cache = join(repoRoot, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'bundles-test-'));
  const endpoints = { dynamodb: inject('dynamodbEndpoint'), aws: inject('awsEndpoint') };
  const resources = createLocalResources(endpoints, `t-bundles-${randomBytes(3).toString('hex')}`);
  resources.catch(() => {}); // awaited below, after the builds: not an unhandled rejection meanwhile
  // Every build settles before a failure is thrown, so none writes into the directory after afterAll.
  const builds = await Promise.allSettled(
    Object.entries(FUNCTIONS).map(async ([key, handler]) => {
      bundles[key as keyof typeof FUNCTIONS] = await buildLambdaBundle(handler, join(dir, handler));
    }),
  );
  for (const build of builds) if (build.status === 'rejected') throw build.reason;
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...localHandlerEnvironment(endpoints, await resources),
  };
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const OUTCOME = '@@bundle-outcome@@';

/** Imports the bundle in a fresh `node` and calls its handler once with `event` (log lines go to stdout too). */
const INVOKE = `
const module = await import(process.env.BUNDLE_URL);
const context = {
  awsRequestId: 'bundle-test-request', functionName: 'bundle-test', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bundle-test', memoryLimitInMB: '1024',
  logGroupName: '/aws/lambda/bundle-test', logStreamName: 'test', callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 10_000, done() {}, fail() {}, succeed() {},
};
let outcome;
try {
  outcome = { result: await module.handler(JSON.parse(process.env.EVENT_JSON), context) };
} catch (error) {
  outcome = { error: { message: String(error?.message ?? error), stack: String(error?.stack) } };
}
process.stdout.write('\\n${OUTCOME}' + JSON.stringify(outcome) + '\\n');
process.exit(0);
`;

type Outcome = { result: unknown; error?: undefined } | { error: { message: string; stack: string } };

async function invoke(bundle: BuiltBundle, event: unknown): Promise<Outcome> {
  const { code, stdout, stderr } = await runNodeScript(INVOKE, {
    cwd: repoRoot,
    env: { ...env, BUNDLE_URL: pathToFileURL(bundle.file).href, EVENT_JSON: JSON.stringify(event) },
    timeoutMs: 20_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith(OUTCOME));
  if (code !== 0 || !line)
    throw new Error(`the bundle did not load or run (exit ${code}):\n${stderr}${stdout}`);
  return JSON.parse(line.slice(OUTCOME.length)) as Outcome;
}

function resultOf(outcome: Outcome): unknown {
  if (outcome.error) throw new Error(`the handler threw: ${outcome.error.stack}`);
  return outcome.result;
}

function apiEvent(overrides: Record<string, unknown>) {
  return {
    resource: '/',
    path: '/',
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'bundle-test-request', stage: 'prod', authorizer: null },
    ...overrides,
  };
}

function sqsRecord(messageId: string, body: string) {
  return {
    messageId,
    receiptHandle: `${messageId}-receipt`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: 'AIDATEST',
      ApproximateFirstReceiveTimestamp: '1700000000001',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:events',
    awsRegion: 'us-east-1',
  };
}

describe.each(Object.entries(FUNCTIONS))('the %s bundle (%s)', (key, handler) => {
  const bundle = () => bundles[key as keyof typeof FUNCTIONS];

  it('is one minified ESM file, index.mjs, with its handler exported and nothing else emitted', () => {
    const { file, metafile } = bundle();
    expect(file.endsWith(`/${handler}/${LAMBDA_BUNDLE.outputFile}`)).toBe(true);
    expect(LAMBDA_BUNDLE.outputFile).toMatch(/\.mjs$/);
    expect(Object.keys(metafile.outputs).map((path) => path.split('/').pop())).toEqual(
      expect.arrayContaining(['index.mjs', 'index.mjs.map']),
    );
    expect(Object.keys(metafile.outputs)).toHaveLength(2);
    const code = readFileSync(file, 'utf8');
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    expect(code).not.toMatch(/\bmodule\.exports\s*=/);
    // esbuild names every source file in a comment unless it minifies.
    expect(code).not.toContain('// functions/');
  });

  it('has a source map beside it that points at the TypeScript sources without embedding them', () => {
    const { file, mapFile, entryKey } = bundle();
    expect(existsSync(mapFile)).toBe(true);
    expect(readFileSync(file, 'utf8').trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources.some((source) => source.endsWith(entryKey))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();
  });

  it('contains no AWS SDK code: the SDK is imported from the runtime', () => {
    const { metafile, outputKey } = bundle();
    const bundledSdk = Object.keys(metafile.outputs[outputKey]?.inputs ?? {}).filter((path) =>
      packageOf(path)?.startsWith('@aws-sdk/'),
    );
    expect(bundledSdk).toEqual([]);
    for (const imported of metafile.outputs[outputKey]?.imports ?? [])
      if (imported.path.startsWith('@aws-sdk/')) expect(imported.external).toBe(true);
  });
});

describe('the bundles, imported and invoked in a fresh Node process', () => {
  it('the SDK-using bundles import it at run time (so the external check above is not vacuous)', () => {
    for (const key of ['authorizer', 'getDriver', 'fanOut'] as const) {
      const imports = bundles[key].metafile.outputs[bundles[key].outputKey]?.imports ?? [];
      expect(imports.some((i) => i.external && i.path.startsWith('@aws-sdk/'))).toBe(true);
    }
  });

  it('docs/openapi answers 200 with the OpenAPI document', async () => {
    const result = resultOf(
      await invoke(bundles.openapi, apiEvent({ resource: '/openapi.json', path: '/openapi.json' })),
    ) as { statusCode: number; headers: Record<string, string>; body: string };
    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe('application/json');
    const document = JSON.parse(result.body) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toContain('/dcs/{dc_id}/drivers/{driver_id}');
  });

  it('the authorizer refuses an unknown key after looking it up in the table, with a source-mapped stack', async () => {
    const event = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:123456789012:api-id/prod/GET/dcs',
      headers: { Authorization: `Bearer drs_${randomBytes(32).toString('base64url')}` },
    };
    const outcome = await invoke(bundles.authorizer, event);
    expect(outcome.error?.message).toBe('Unauthorized');
    // --enable-source-maps: the frame names the TypeScript source, not index.mjs.
    expect(outcome.error?.stack).toMatch(/functions\/handlers\/auth\/api-key-authorizer\.ts:\d+:\d+/);
  });

  it('drivers/get reads the table and answers 404 for a driver that does not exist, 403 for a foreign DC', async () => {
    const authorizer = { account_id: 'acct-bundles', dc_ids: JSON.stringify(['dc-1']) };
    const get = (dcId: string) =>
      invoke(
        bundles.getDriver,
        apiEvent({
          resource: '/dcs/{dc_id}/drivers/{driver_id}',
          path: `/dcs/${dcId}/drivers/nobody`,
          pathParameters: { dc_id: dcId, driver_id: 'nobody' },
          requestContext: { requestId: 'bundle-test-request', stage: 'prod', authorizer },
        }),
      ).then((outcome) => resultOf(outcome) as { statusCode: number; body: string });

    const missing = await get('dc-1');
    expect({ status: missing.statusCode, body: JSON.parse(missing.body) }).toMatchObject({
      status: 404,
      body: { status: 'error', data: { code: 1003 } },
    });
    const foreign = await get('dc-2');
    expect({ status: foreign.statusCode, body: JSON.parse(foreign.body) }).toMatchObject({
      status: 403,
      body: { status: 'error', data: { code: 1002 } },
    });
  });

  it('workers/fan-out-events answers a partial batch response: only the malformed record is retried', async () => {
    const event = { Records: [sqsRecord('not-json', 'this is not JSON'), sqsRecord('no-events', '[]')] };
    expect(resultOf(await invoke(bundles.fanOut, event))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'not-json' }],
    });
  });
});
