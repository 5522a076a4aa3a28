import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import type { FunctionSpec } from '../../local/cloud/model';
import { buildBundles } from '../../local/lambda/bundles';
import {
  type InvokeResult,
  type LambdaRuntime,
  type LambdaRuntimeOptions,
  type LogRecord,
  startLambdaRuntime,
} from '../../local/lambda/runtime';
import { fixtureFunction } from './lambda-fixtures';

/**
 * The local Lambda runtime of test/e2e/lambda-runtime.test.ts: fixture functions (test/fixtures/lambda/) and
 * one real service handler, built once for the file and run by `runtime` (set from the file's beforeAll on).
 */
export const BEHAVIOURS = 'test/fixtures/lambda/behaviours.ts';
export const CREDENTIALS = {
  accessKeyId: 'ASIATESTKEY',
  secretAccessKey: 'test-secret',
  sessionToken: 'test-token',
};
export const LOCAL_ENVIRONMENT = {
  AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
  POWERTOOLS_METRICS_DISABLED: 'true',
};
/** Set here, so present in this process: it must not reach any function. */
export const LEAK_PROBE = 'LAMBDA_RUNTIME_TEST_LEAK_PROBE';

const fixture = (name: string, entry: string, overrides: Partial<FunctionSpec> = {}) =>
  fixtureFunction(name, entry, {
    stackPath: 'LambdaRuntimeTest',
    environment: { NODE_OPTIONS: '--enable-source-maps', FIXTURE_SETTING: 'from the template' },
    ...overrides,
  });

export const FUNCTIONS = {
  behaviours: fixture('lrt-behaviours', BEHAVIOURS),
  state: fixture('lrt-state', BEHAVIOURS),
  reserved: fixture('lrt-reserved', BEHAVIOURS, { reservedConcurrency: 1 }),
  shortTimeout: fixture('lrt-short-timeout', BEHAVIOURS, { timeoutSeconds: 1 }),
  // Filling 200 MB takes well under a second alone; the timeout leaves room for a loaded machine, so the
  // memory limit, not the timeout, ends the invocation.
  memory: fixture('lrt-memory', BEHAVIOURS, { timeoutSeconds: 20 }),
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

export let outDir: string;
export let bundles: Map<string, string>;
export let runtime: LambdaRuntime;
export const logs: LogRecord[] = [];
const runtimes: LambdaRuntime[] = [];

export function start(overrides: Partial<LambdaRuntimeOptions> = {}): LambdaRuntime {
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

/** Builds the fixture functions' bundles and starts `runtime` (call at the top of the file). */
export function useLambdaRuntime(): void {
  beforeAll(async () => {
    logs.length = 0;
    outDir = mkdtempSync(join(tmpdir(), 'lambda-runtime-test-'));
    bundles = await buildBundles(Object.values(FUNCTIONS), outDir);
    process.env[LEAK_PROBE] = 'leaked';
    runtime = start();
  });

  afterAll(async () => {
    delete process.env[LEAK_PROBE];
    await Promise.all(runtimes.splice(0).map((started) => started.stop()));
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });
}

export function succeeded(result: InvokeResult): Extract<InvokeResult, { kind: 'success' }> {
  if (result.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result;
}

export function failed(result: InvokeResult): Extract<InvokeResult, { kind: 'functionError' }> {
  if (result.kind !== 'functionError')
    throw new Error(`expected a function error, got ${JSON.stringify(result)}`);
  return result;
}

export function linesOf(requestId: string, stream?: LogRecord['stream']): string[] {
  return logs
    .filter((record) => record.requestId === requestId && (!stream || record.stream === stream))
    .map((record) => record.line);
}

export async function pidOf(functionName: string, lambda = runtime): Promise<number> {
  return (succeeded(await lambda.invoke(functionName, { action: 'count' })).payload as { pid: number }).pid;
}

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An event whose JSON is exactly `bytes` long. */
export function eventOfSize(bytes: number, character = 'x'): { action: string; pad: string } {
  const overhead = Buffer.byteLength(JSON.stringify({ action: 'echo', pad: '' }));
  const count = (bytes - overhead) / Buffer.byteLength(character);
  if (!Number.isInteger(count)) throw new Error(`no event of ${bytes} bytes made of '${character}'`);
  return { action: 'echo', pad: character.repeat(count) };
}
