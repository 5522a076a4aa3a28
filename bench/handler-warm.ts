import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS } from '../local/services';
import { assertIsolated, buildLambdaBundle, lambdaFunctions } from './bundle-build';
import { lambdaLikeEnvironment } from './bundle-init';
import { RESULT_MARK, runNodeScript, scriptResult } from './node-script';
import { repoRoot, type StackInfo } from './runtime';
import { round, summarizeLatencies } from './stats';

/**
 * A function's handler on its own, warm (get_driver, driver_location, webhook_delivery): the function's bundle,
 * built as a deploy builds it, imported in a fresh node process with the environment CDK gives it and invoked
 * there with the event Lambda hands it, against the raw work it must do (the DynamoDB calls, the POST) from the
 * same process; both on DynamoDB Local itself, with no local gateway, Lambda runtime or signing endpoint in
 * between. What this measures is what the function adds to its work on AWS: validation, parsing, the envelope,
 * logging, metrics. Each comparison is a module under bench/warm/ (exporting `warmPaths`, bundled for that
 * process) that builds the two paths: the handler's invocation with its event, checked, and the raw work.
 */

const TIMEOUT_MS = 600_000;

/**
 * Run by `node --input-type=module -e`: imports the bundle (its module init), then the comparison's module,
 * warms both paths up, then runs them one at a time, alternating which goes first, and prints the latencies
 * on a line of its own (the handler's own log lines go to stdout too, as on Lambda).
 */
const MEASURE_WARM = `
const input = JSON.parse(process.env.BENCH_INPUT);
const { handler } = await import(process.env.BENCH_BUNDLE_URL);
const { warmPaths } = await import(process.env.BENCH_PATHS_URL);
const paths = await warmPaths(handler, input.paths);
for (let i = 0; i < input.warmup; i++) {
  await paths.handler();
  await paths.raw();
}
const times = { handler: [], raw: [] };
for (let i = 0; i < input.runs; i++) {
  for (const name of i % 2 === 0 ? ['handler', 'raw'] : ['raw', 'handler']) {
    const started = performance.now();
    await paths[name]();
    times[name].push(performance.now() - started);
  }
}
process.stdout.write('\\n${RESULT_MARK}' + JSON.stringify(times) + '\\n');
process.exit(0);
`;

export interface HandlerWarmResult {
  handler_ms: ReturnType<typeof summarizeLatencies>;
  raw_ms: ReturnType<typeof summarizeLatencies>;
  /** p50 of the handler over p50 of the raw work. */
  ratio: number;
  runs: number;
  warmup: number;
  bundle_kb: number;
}

/**
 * Builds the function's bundle and the comparison's module (`bench/warm/<comparison>.ts`) and measures the
 * handler warm against the raw work, `runs` of each. The process gets the function's Lambda-like environment,
 * the table, DynamoDB Local itself as its DynamoDB endpoint and the operator's credentials, and `env` over them.
 */
export async function measureHandlerWarm(options: {
  functionName: string;
  comparison: string;
  stack: StackInfo;
  input: unknown;
  env?: Record<string, string>;
  runs: number;
  warmup: number;
  abort: AbortSignal;
}): Promise<HandlerWarmResult> {
  const fn = lambdaFunctions().find((f) => f.name === options.functionName);
  if (!fn) throw new Error(`no function ${options.functionName}`);
  const dir = mkdtempSync(join(tmpdir(), 'delivery-routes-bench-handler-'));
  try {
    assertIsolated(dir);
    const [bundle, paths] = await Promise.all([
      buildLambdaBundle(fn.entry, join(dir, 'bundle'), fn.xraySdk),
      buildLambdaBundle(join(repoRoot, 'bench/warm', `${options.comparison}.ts`), join(dir, 'paths'), false),
    ]);
    const run = await runNodeScript(MEASURE_WARM, {
      cwd: dir,
      env: {
        ...lambdaLikeEnvironment(fn),
        TABLE_NAME: options.stack.table_name,
        AWS_REGION: options.stack.region,
        AWS_DEFAULT_REGION: options.stack.region,
        AWS_ENDPOINT_URL_DYNAMODB: options.stack.emulator_endpoints.dynamodb,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        ...options.env,
        BENCH_BUNDLE_URL: pathToFileURL(bundle.file).href,
        BENCH_PATHS_URL: pathToFileURL(paths.file).href,
        BENCH_INPUT: JSON.stringify({ paths: options.input, runs: options.runs, warmup: options.warmup }),
      },
      signal: options.abort,
      timeoutMs: TIMEOUT_MS,
    });
    const times = scriptResult<{ handler: number[]; raw: number[] }>(run, 'the in-process handler run');
    const handler = summarizeLatencies(times.handler);
    const raw = summarizeLatencies(times.raw);
    return {
      handler_ms: handler,
      raw_ms: raw,
      ratio: handler.p50 / raw.p50,
      runs: options.runs,
      warmup: options.warmup,
      bundle_kb: round(bundle.bytes / 1024, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The REST proxy event API Gateway sends a function (`/v1` stage, a documentation address as the caller's),
 * with the authorizer's context for an API key's request.
 */
export function restProxyEvent(request: {
  method: string;
  resource: string;
  path: string;
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  authorizer?: Record<string, string>;
  body?: string;
}): APIGatewayProxyEvent {
  const headers = {
    Accept: 'application/json',
    Host: 'bench.execute-api.us-east-1.amazonaws.com',
    ...request.headers,
  };
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    requestContext: {
      resourcePath: request.resource,
      httpMethod: request.method,
      path: `/v1${request.path}`,
      stage: 'v1',
      accountId: '123456789012',
      apiId: 'bench',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: '192.0.2.1', userAgent: 'bench' },
      ...(request.authorizer ? { authorizer: request.authorizer } : {}),
    },
    body: request.body ?? null,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent;
}
