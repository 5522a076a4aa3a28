import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import { type FunctionSpec, LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import { buildBundles } from '../../local/lambda/bundles';
import {
  MAX_ASYNC_REQUEST_BYTES,
  MAX_SYNC_REQUEST_BYTES,
  MAX_SYNC_RESPONSE_BYTES,
} from '../../local/lambda/limits';
import {
  type InvokeResult,
  type LambdaRuntime,
  type LambdaRuntimeOptions,
  type LogRecord,
  startLambdaRuntime,
} from '../../local/lambda/runtime';
import { fixtureFunction } from '../support/lambda-fixtures';

/**
 * The local Lambda runtime runs each function as Lambda does: from its production bundle, in execution
 * environments of its own (child processes, reused while warm), with exactly its environment, its timeout,
 * memory and reserved concurrency, and Lambda's payload limits. Fixture handlers (test/fixtures/lambda/)
 * show each behaviour from outside; one real service handler answers an API Gateway event.
 */

const BEHAVIOURS = 'test/fixtures/lambda/behaviours.ts';
const CREDENTIALS = {
  accessKeyId: 'ASIATESTKEY',
  secretAccessKey: 'test-secret',
  sessionToken: 'test-token',
};
const LOCAL_ENVIRONMENT = { AWS_ENDPOINT_URL: 'http://127.0.0.1:1', POWERTOOLS_METRICS_DISABLED: 'true' };
/** Set here, so present in this process: it must not reach any function. */
const LEAK_PROBE = 'LAMBDA_RUNTIME_TEST_LEAK_PROBE';

const fixture = (name: string, entry: string, overrides: Partial<FunctionSpec> = {}) =>
  fixtureFunction(name, entry, {
    stackPath: 'LambdaRuntimeTest',
    environment: { NODE_OPTIONS: '--enable-source-maps', FIXTURE_SETTING: 'from the template' },
    ...overrides,
  });

const FUNCTIONS = {
  behaviours: fixture('lrt-behaviours', BEHAVIOURS),
  state: fixture('lrt-state', BEHAVIOURS),
  reserved: fixture('lrt-reserved', BEHAVIOURS, { reservedConcurrency: 1 }),
  shortTimeout: fixture('lrt-short-timeout', BEHAVIOURS, { timeoutSeconds: 1 }),
  memory: fixture('lrt-memory', BEHAVIOURS),
  limits: fixture('lrt-limits', BEHAVIOURS, { memorySize: 512 }),
  ownHeap: fixture('lrt-own-heap', BEHAVIOURS, {
    memorySize: 1024,
    environment: { NODE_OPTIONS: '--max-old-space-size=64 --max-semi-space-size=2' },
  }),
  largerOwnHeap: fixture('lrt-larger-own-heap', BEHAVIOURS, {
    environment: { NODE_OPTIONS: '--max-old-space-size=4096' },
  }),
  crashes: fixture('lrt-crashes', BEHAVIOURS),
  logs: fixture('lrt-logs', BEHAVIOURS),
  packages: fixture('lrt-packages', 'test/fixtures/lambda/runtime-packages.ts', {
    bundledFiles: ['swagger-ui-dist/package.json'],
  }),
  missingPackage: fixture('lrt-missing-package', 'test/fixtures/lambda/missing-package.ts'),
  openapi: fixture('lrt-openapi', 'functions/api/docs/openapi/handler.ts', {
    memorySize: 1024,
    timeoutSeconds: 10,
    // What ServiceFunction sets on every function.
    environment: {
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    },
  }),
} satisfies Record<string, FunctionSpec>;

let outDir: string;
let bundles: Map<string, string>;
let runtime: LambdaRuntime;
const logs: LogRecord[] = [];
const runtimes: LambdaRuntime[] = [];

function start(overrides: Partial<LambdaRuntimeOptions> = {}): LambdaRuntime {
  const started = startLambdaRuntime({
    functions: Object.values(FUNCTIONS),
    bundles,
    credentialsFor: () => CREDENTIALS,
    localEnvironment: LOCAL_ENVIRONMENT,
    onLog: (record) => logs.push(record),
    ...overrides,
  });
  runtimes.push(started);
  return started;
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'lambda-runtime-test-'));
  bundles = await buildBundles(Object.values(FUNCTIONS), outDir);
  process.env[LEAK_PROBE] = 'leaked';
  runtime = start();
});

afterAll(async () => {
  delete process.env[LEAK_PROBE];
  await Promise.all(runtimes.map((started) => started.stop()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

function succeeded(result: InvokeResult): Extract<InvokeResult, { kind: 'success' }> {
  if (result.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result;
}

function failed(result: InvokeResult): Extract<InvokeResult, { kind: 'functionError' }> {
  if (result.kind !== 'functionError')
    throw new Error(`expected a function error, got ${JSON.stringify(result)}`);
  return result;
}

function linesOf(requestId: string, stream?: LogRecord['stream']): string[] {
  return logs
    .filter((record) => record.requestId === requestId && (!stream || record.stream === stream))
    .map((record) => record.line);
}

async function pidOf(functionName: string, lambda = runtime): Promise<number> {
  return (succeeded(await lambda.invoke(functionName, { action: 'count' })).payload as { pid: number }).pid;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An event whose JSON is exactly `bytes` long. */
function eventOfSize(bytes: number, character = 'x'): { action: string; pad: string } {
  const overhead = Buffer.byteLength(JSON.stringify({ action: 'echo', pad: '' }));
  const count = (bytes - overhead) / Buffer.byteLength(character);
  if (!Number.isInteger(count)) throw new Error(`no event of ${bytes} bytes made of '${character}'`);
  return { action: 'echo', pad: character.repeat(count) };
}

describe('bundles as Lambda lays them out', () => {
  it('gives a function its bundled SDK client and the files its asset ships, and nothing else of the repository', async () => {
    const result = succeeded(await runtime.invoke(FUNCTIONS.packages.name, { require: 'csv-parse' }));
    // csv-parse is in the repository's node_modules, but neither bundled nor shipped.
    expect(result.payload).toEqual({
      sdkRegion: LOCAL_REGION,
      shipped: 'swagger-ui-dist',
      required: 'MODULE_NOT_FOUND',
    });
  });

  it('fails the cold start of a bundle that requires a package it does not carry, as Lambda does', async () => {
    const result = failed(await runtime.invoke(FUNCTIONS.missingPackage.name, {}));
    expect(result.errorType).toBe('Runtime.ImportModuleError');
    expect(result.errorMessage).toMatch(/^Error: Cannot find module 'csv-parse'/);
    expect(result.coldStart).toBe(true);
    // Init is tried again at the invocation, then the environment is gone.
    const initReports = logs.filter(
      (record) =>
        record.functionName === FUNCTIONS.missingPackage.name && record.line.startsWith('INIT_REPORT'),
    );
    expect(initReports.map((record) => record.line)).toEqual([
      expect.stringMatching(/Phase: init\tStatus: error\tError Type: Runtime.ImportModuleError$/),
      expect.stringMatching(/Phase: invoke\tStatus: error\tError Type: Runtime.ImportModuleError$/),
    ]);
    expect(runtime.stats(FUNCTIONS.missingPackage.name).instances).toBe(0);
  });

  it('refuses an output directory inside the repository', async () => {
    const inside = fileURLToPath(new URL('../../node_modules/.cache/lambda-bundles', import.meta.url));
    await expect(buildBundles([FUNCTIONS.behaviours], inside)).rejects.toThrow(/inside the repository/);
  });
});

describe('an execution environment', () => {
  it("has exactly the function's variables, Lambda's and the local runtime's", async () => {
    const fn = FUNCTIONS.behaviours;
    const { payload } = succeeded(await runtime.invoke(fn.name, { action: 'environment' }));
    const { env, execArgv, cwd, sourceMaps, heapLimitMb, timezoneOffset } = payload as {
      env: Record<string, string>;
      execArgv: string[];
      cwd: string;
      sourceMaps: boolean;
      heapLimitMb: number;
      timezoneOffset: number;
    };
    const taskRoot = bundles.get(fn.entry);
    expect(Object.keys(env).sort()).toEqual(
      [
        ...Object.keys(fn.environment),
        ...Object.keys(LOCAL_ENVIRONMENT),
        ...[
          'LANG',
          'PATH',
          'NODE_PATH',
          'TZ',
          '_HANDLER',
          '_X_AMZN_TRACE_ID',
          'LAMBDA_TASK_ROOT',
          'LAMBDA_RUNTIME_DIR',
        ],
        ...['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_EXECUTION_ENV', 'AWS_LAMBDA_INITIALIZATION_TYPE'],
        ...['AWS_LAMBDA_FUNCTION_NAME', 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE', 'AWS_LAMBDA_FUNCTION_VERSION'],
        ...['AWS_LAMBDA_LOG_GROUP_NAME', 'AWS_LAMBDA_LOG_STREAM_NAME'],
        ...['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'],
        ...[
          'AWS_XRAY_CONTEXT_MISSING',
          'AWS_XRAY_DAEMON_ADDRESS',
          '_AWS_XRAY_DAEMON_ADDRESS',
          '_AWS_XRAY_DAEMON_PORT',
        ],
      ].sort(),
    );
    expect(env[LEAK_PROBE]).toBeUndefined();
    expect(env).toMatchObject({
      ...fn.environment,
      ...LOCAL_ENVIRONMENT,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      _HANDLER: 'index.handler',
      LAMBDA_TASK_ROOT: taskRoot,
      AWS_REGION: LOCAL_REGION,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
    expect(env.AWS_LAMBDA_LOG_STREAM_NAME).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(timezoneOffset).toBe(0);
    expect(cwd).toBe(taskRoot);
    // node's flags as the runtime's bootstrap sets them for 128 MB, and the template's NODE_OPTIONS applied.
    expect(execArgv).toEqual([
      '--expose-gc',
      '--max-http-header-size',
      '81920',
      '--max-semi-space-size=6',
      '--max-old-space-size=116',
    ]);
    expect(sourceMaps).toBe(true);
    expect(heapLimitMb).toBeLessThan(160);
  });

  it('gives a function the smaller of its own NODE_OPTIONS heap and the one its memory size allows', async () => {
    const heapOf = async (fn: FunctionSpec) => {
      const { payload } = succeeded(await runtime.invoke(fn.name, { action: 'environment' }));
      return payload as { execArgv: string[]; heapLimitMb: number };
    };
    const own = await heapOf(FUNCTIONS.ownHeap);
    expect(own.execArgv).toEqual(['--expose-gc', '--max-http-header-size', '81920']);
    expect(own.heapLimitMb).toBeLessThan(80);
    const larger = await heapOf(FUNCTIONS.largerOwnHeap);
    expect(larger.execArgv).toContain('--max-old-space-size=116');
    expect(larger.heapLimitMb).toBeLessThan(160);
  });

  it("gives the handler Lambda's context, counting down to the function's timeout", async () => {
    const fn = FUNCTIONS.behaviours;
    const requestId = 'b1c3e5a0-0000-4000-8000-000000000001';
    const { payload } = succeeded(await runtime.invoke(fn.name, { action: 'context' }, { requestId }));
    expect(payload).toMatchObject({
      awsRequestId: requestId,
      functionName: fn.name,
      functionVersion: '$LATEST',
      invokedFunctionArn: fn.arn,
      memoryLimitInMB: '128',
      logGroupName: `/aws/lambda/${fn.name}`,
      callbackWaitsForEmptyEventLoop: true,
      traceId: expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0$/),
    });
    const { remainingMs } = payload as { remainingMs: number };
    expect(remainingMs).toBeGreaterThan(2000);
    expect(remainingMs).toBeLessThanOrEqual(3000);
  });

  it('keeps module state across warm invocations, never across environments', async () => {
    const fn = FUNCTIONS.state;
    const first = succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    const second = succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    expect([first.coldStart, second.coldStart]).toEqual([true, false]);
    const [a, b] = [first.payload, second.payload] as { invocations: number; pid: number }[];
    expect(b?.pid).toBe(a?.pid);
    expect([a?.invocations, b?.invocations]).toEqual([1, 2]);

    // While the first environment is busy, the next invocation gets a new one, with fresh module state.
    const [busy, other] = await Promise.all([
      runtime.invoke(fn.name, { action: 'sleep', ms: 500 }),
      runtime.invoke(fn.name, { action: 'count' }),
    ]);
    const fresh = succeeded(other);
    expect(fresh.coldStart).toBe(true);
    expect(fresh.payload).toMatchObject({ invocations: 1 });
    expect((fresh.payload as { pid: number }).pid).not.toBe(a?.pid);
    expect((succeeded(busy).payload as { pid: number }).pid).toBe(a?.pid);
    expect(runtime.stats(fn.name)).toEqual({ instances: 2, busy: 0, coldStarts: 2, invocations: 4 });
  });

  it('starts environments for concurrent invocations up to the instance limit, then waits for one', async () => {
    const lambda = start({ maxInstancesPerFunction: 2 });
    const fn = FUNCTIONS.behaviours;
    const began = Date.now();
    const running = [1, 2, 3].map(() => lambda.invoke(fn.name, { action: 'sleep', ms: 600 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lambda.stats(fn.name)).toMatchObject({ instances: 2, busy: 2 });
    const results = (await Promise.all(running)).map(succeeded);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1200);
    expect(new Set(results.map((result) => (result.payload as { pid: number }).pid)).size).toBe(2);
    expect(lambda.stats(fn.name)).toEqual({ instances: 2, busy: 0, coldStarts: 2, invocations: 3 });
  });

  it('throttles beyond the reserved concurrency', async () => {
    const fn = FUNCTIONS.reserved;
    const running = runtime.invoke(fn.name, { action: 'sleep', ms: 500 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await runtime.invoke(fn.name, { action: 'count' })).toEqual({
      kind: 'invokeError',
      errorType: 'TooManyRequestsException',
      errorMessage: 'Rate Exceeded.',
    });
    succeeded(await running);
    succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    expect(runtime.stats(fn.name)).toMatchObject({ instances: 1, invocations: 2 });
  });
});

describe('limits', () => {
  it("ends an invocation at the function's timeout and discards its environment", async () => {
    const fn = FUNCTIONS.shortTimeout;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'sleep', ms: 5000 }));
    expect(result).toMatchObject({
      errorType: 'Sandbox.Timedout',
      errorMessage: `RequestId: ${result.requestId} Error: Task timed out after 1.00 seconds`,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(990);
    expect(result.durationMs).toBeLessThan(2000);
    expect(linesOf(result.requestId, 'platform')).toEqual([
      `START RequestId: ${result.requestId} Version: $LATEST`,
      expect.stringMatching(new RegExp(`Z ${result.requestId} Task timed out after 1.00 seconds$`)),
      `END RequestId: ${result.requestId}`,
      expect.stringMatching(/\tStatus: timeout\tError Type: Sandbox.Timedout$/),
    ]);
    expect(processExists(pid)).toBe(false);
    const next = succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    expect(next.coldStart).toBe(true);
  });

  it('answers the caller at its own deadline while the function runs on to completion in its environment', async () => {
    const fn = FUNCTIONS.behaviours;
    const pid = await pidOf(fn.name);
    const result = await runtime.invoke(
      fn.name,
      { action: 'sleep', ms: 400 },
      { deadline: Date.now() + 100 },
    );
    expect(result.kind).toBe('callerTimeout');
    expect(runtime.stats(fn.name).busy).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(runtime.stats(fn.name).busy).toBe(0);
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('kills an environment whose memory goes past the memory size, off or on the V8 heap', async () => {
    const fn = FUNCTIONS.memory;
    for (const action of ['buffers', 'heap']) {
      const pid = await pidOf(fn.name);
      const result = failed(await runtime.invoke(fn.name, { action, megabytes: 200 }));
      expect(result.errorType).toBe('Runtime.OutOfMemory');
      expect(result.errorMessage).toMatch(
        new RegExp(`^RequestId: ${result.requestId} Error: Runtime exited with error: signal: `),
      );
      expect(processExists(pid)).toBe(false);
      expect(succeeded(await runtime.invoke(fn.name, { action: 'count' })).coldStart).toBe(true);
    }
    // Within the memory size, the same work succeeds.
    succeeded(await runtime.invoke(fn.name, { action: 'buffers', megabytes: 20 }));
  });

  it('takes a synchronous request of up to 6 MB of JSON, counted in bytes', async () => {
    const fn = FUNCTIONS.limits;
    const before = runtime.stats(fn.name).invocations;
    const atLimit = eventOfSize(MAX_SYNC_REQUEST_BYTES);
    expect(succeeded(await runtime.invoke(fn.name, atLimit)).payload).toEqual(atLimit);

    expect(await runtime.invoke(fn.name, eventOfSize(MAX_SYNC_REQUEST_BYTES + 1))).toEqual({
      kind: 'invokeError',
      errorType: 'RequestEntityTooLargeException',
      errorMessage: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    });
    // Two bytes a character: fewer characters than the limit, more bytes.
    const multibyte = await runtime.invoke(fn.name, eventOfSize(MAX_SYNC_REQUEST_BYTES + 2, 'é'));
    expect(multibyte.kind).toBe('invokeError');
    expect(runtime.stats(fn.name).invocations).toBe(before + 1);
  });

  it('returns a response of up to 6291556 bytes; a larger one fails the invocation and its environment', async () => {
    const fn = FUNCTIONS.limits;
    const quotes = 2;
    const atLimit = succeeded(
      await runtime.invoke(fn.name, { action: 'respond', bytes: MAX_SYNC_RESPONSE_BYTES - quotes }),
    );
    expect((atLimit.payload as string).length).toBe(MAX_SYNC_RESPONSE_BYTES - quotes);

    const pid = await pidOf(fn.name);
    const tooLarge = failed(
      await runtime.invoke(fn.name, { action: 'respond', bytes: MAX_SYNC_RESPONSE_BYTES - quotes + 1 }),
    );
    expect(tooLarge).toMatchObject({
      errorType: 'Function.ResponseSizeTooLarge',
      errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processExists(pid)).toBe(false);
  });

  it('accepts an Event invocation of up to 1 MB at once and runs it in the background', async () => {
    const fn = FUNCTIONS.limits;
    const event = eventOfSize(300 * 1024);
    const accepted = await runtime.invoke(fn.name, event, { invocationType: 'Event' });
    if (accepted.kind !== 'accepted') throw new Error(JSON.stringify(accepted));
    await expect
      .poll(() => linesOf(accepted.requestId, 'platform').some((line) => line.startsWith('REPORT')), {
        timeout: 5000,
      })
      .toBe(true);

    expect(
      await runtime.invoke(fn.name, eventOfSize(MAX_ASYNC_REQUEST_BYTES + 1), { invocationType: 'Event' }),
    ).toEqual({
      kind: 'invokeError',
      errorType: 'RequestEntityTooLargeException',
      errorMessage: '1048577 byte payload is too large for the Event invocation type (limit 1048576 bytes)',
    });
  });

  it('answers ResourceNotFoundException for a function that does not exist', async () => {
    expect(await runtime.invoke('no-such-function', {})).toEqual({
      kind: 'invokeError',
      errorType: 'ResourceNotFoundException',
      errorMessage: `Function not found: arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:no-such-function`,
    });
  });
});

describe('errors as the nodejs runtime reports them', () => {
  it("reports a handler's error with its name and logs it; the environment stays", async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'throw' }));
    expect(result).toMatchObject({ errorType: 'TypeError', errorMessage: 'bad input', coldStart: false });
    const [errorLine] = linesOf(result.requestId, 'stdout');
    expect(errorLine).toMatch(
      new RegExp(
        `^\\S+Z\\t${result.requestId}\\tERROR\\tInvoke Error \\t\\{"errorType":"TypeError","errorMessage":"bad input","stack":\\["TypeError: bad input",`,
      ),
    );
    // The source map maps the bundle's frames back to the fixture's source.
    expect(errorLine).toContain('test/fixtures/lambda/behaviours.ts');
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('fails the invocation and ends the environment on a rejection nothing handles', async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'stray rejection' }));
    expect(result).toMatchObject({
      errorType: 'Runtime.UnhandledPromiseRejection',
      errorMessage: 'Error: nobody awaits this',
    });
    expect(linesOf(result.requestId, 'stdout')[0]).toMatch(
      /\tERROR\tUnhandled Promise Rejection \t\{"errorType":"Runtime.UnhandledPromiseRejection"/,
    );
    expect(processExists(pid)).toBe(false);
    expect(succeeded(await runtime.invoke(fn.name, { action: 'count' })).coldStart).toBe(true);
  });

  it('ends an async handler whose promise can never settle as the runtime does, keeping the environment', async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'never settles' }));
    expect(result.errorType).toBe('Runtime.NodeJsExit');
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('fails a response that JSON cannot represent', async () => {
    const result = failed(await runtime.invoke(FUNCTIONS.crashes.name, { action: 'unserializable' }));
    expect(result).toMatchObject({ errorType: 'Error', errorMessage: 'Unable to stringify response body' });
  });
});

describe('logs', () => {
  it('delivers every line whole, tagged with its function and request, with the platform lines around it', async () => {
    const fn = FUNCTIONS.logs;
    const cold = succeeded(await runtime.invoke(fn.name, { action: 'log' }));
    expect(linesOf(cold.requestId, 'stdout')).toEqual([
      expect.stringMatching(
        new RegExp(`^\\S+Z\\t${cold.requestId}\\tINFO\\tconsole line \\{ multi: 'line\\\\nobject' \\}$`),
      ),
      // The runtime's console keeps one call on one line: newlines become carriage returns.
      expect.stringMatching(/\tWARN\tfirst\rsecond$/),
      'a partial line, finished',
      'no newline at the end',
    ]);
    expect(linesOf(cold.requestId, 'stderr')).toEqual(['to stderr']);
    const platform = linesOf(cold.requestId, 'platform');
    expect(platform[0]).toBe(`START RequestId: ${cold.requestId} Version: $LATEST`);
    expect(platform[1]).toBe(`END RequestId: ${cold.requestId}`);
    expect(platform[2]).toMatch(
      new RegExp(
        `^REPORT RequestId: ${cold.requestId}\\tDuration: [\\d.]+ ms\\tBilled Duration: \\d+ ms\\tMemory Size: 128 MB\\tMax Memory Used: \\d+ MB\\tInit Duration: [\\d.]+ ms$`,
      ),
    );
    // The cold start shows before its invocation; a warm invocation reports no init.
    const initStart = logs.findIndex(
      (record) => record.functionName === fn.name && record.line.startsWith('INIT_START'),
    );
    expect(initStart).toBeLessThan(logs.findIndex((record) => record.line === platform[0]));
    const warm = succeeded(await runtime.invoke(fn.name, { action: 'log' }));
    expect(linesOf(warm.requestId, 'platform')[2]).not.toContain('Init Duration');
    expect(logs.every((record) => record.functionName)).toBe(true);
  });

  it("never mixes two environments' lines", async () => {
    const fn = FUNCTIONS.logs;
    const lines = (tag: string) => Array.from({ length: 400 }, (_, i) => `${tag}-${i}-${'.'.repeat(200)}`);
    const [a, b] = (
      await Promise.all([
        runtime.invoke(fn.name, { action: 'log', lines: lines('A') }),
        runtime.invoke(fn.name, { action: 'log', lines: lines('B') }),
      ])
    ).map(succeeded);
    for (const [result, tag] of [
      [a, 'A'],
      [b, 'B'],
    ] as const)
      expect(linesOf(result?.requestId ?? '', 'stdout').filter((line) => /^[AB]-/.test(line))).toEqual(
        lines(tag),
      );
  });
});

describe('a service handler', () => {
  it('answers an API Gateway proxy event from its production bundle', async () => {
    const event = {
      resource: '/openapi.json',
      path: '/openapi.json',
      httpMethod: 'GET',
      headers: { Accept: 'application/json' },
      multiValueHeaders: { Accept: ['application/json'] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        accountId: LOCAL_ACCOUNT_ID,
        apiId: 'localapi',
        httpMethod: 'GET',
        path: '/v1/openapi.json',
        protocol: 'HTTP/1.1',
        requestId: 'gateway-request',
        requestTimeEpoch: Date.now(),
        resourcePath: '/openapi.json',
        stage: 'v1',
      },
    } as unknown as APIGatewayProxyEvent;
    const result = succeeded(await runtime.invoke(FUNCTIONS.openapi.name, event));
    const response = result.payload as { statusCode: number; headers: Record<string, string>; body: string };
    expect(response.statusCode).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(response.body)).toMatchObject({ openapi: '3.1.0' });
  });
});

describe('stopping', () => {
  it('ends every environment when stopped', async () => {
    const lambda = start({ functions: [FUNCTIONS.state] });
    const results = await Promise.all(
      [1, 2].map(() => lambda.invoke(FUNCTIONS.state.name, { action: 'sleep', ms: 200 })),
    );
    const pids = results.map((result) => (succeeded(result).payload as { pid: number }).pid);
    expect(new Set(pids).size).toBe(2);
    await lambda.stop();
    expect(pids.filter(processExists)).toEqual([]);
    expect(lambda.stats(FUNCTIONS.state.name).instances).toBe(0);
  });

  it('ends every environment when the process that runs them dies', async () => {
    const script = `
      import { startLambdaRuntime } from ${JSON.stringify(fileURLToPath(new URL('../../local/lambda/runtime.ts', import.meta.url)))};
      const lambda = startLambdaRuntime({
        functions: [${JSON.stringify(FUNCTIONS.state)}],
        bundles: new Map(${JSON.stringify([...bundles])}),
        credentialsFor: () => (${JSON.stringify(CREDENTIALS)}),
        localEnvironment: {},
        onLog: () => {},
      });
      const result = await lambda.invoke(${JSON.stringify(FUNCTIONS.state.name)}, { action: 'count' });
      console.log(JSON.stringify(result.payload.pid));
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before reporting`)));
    });
    expect(processExists(pid)).toBe(true);
    parent.kill('SIGKILL');
    await expect.poll(() => processExists(pid), { timeout: 5000 }).toBe(false);
  });
});
