import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FunctionSpec, LOCAL_REGION } from '../../local/cloud/model';
import { buildBundles } from '../../local/lambda/bundles';
import {
  bundles,
  CREDENTIALS,
  FUNCTIONS,
  failed,
  LEAK_PROBE,
  LOCAL_ENVIRONMENT,
  logs,
  processExists,
  runtime,
  start,
  succeeded,
  useLambdaRuntime,
} from '../support/lambda-runtime';

/**
 * The local Lambda runtime runs each function as Lambda does: from its production bundle, in execution
 * environments of its own (child processes, reused while warm), with exactly its environment, its timeout,
 * memory and reserved concurrency. Fixture handlers (test/fixtures/lambda/) show each behaviour from outside.
 * Lambda's payload limits, errors and logs: lambda-runtime-limits.test.ts.
 */
useLambdaRuntime();

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

  it('imports node:http as an ES module without loading undici; required, its WebSocket is there', async () => {
    const { payload } = succeeded(
      await runtime.invoke(FUNCTIONS.behaviours.name, { action: 'import node:http' }),
    );
    expect(payload).toEqual({
      importedRequest: 'function',
      importedWebSocket: 'undefined',
      undiciAfterImport: false,
      requiredWebSocket: 'function',
    });
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
