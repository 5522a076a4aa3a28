import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_CREDENTIALS } from '../local/services';
import { assertIsolated, buildLambdaBundle, lambdaFunctions } from './bundle-build';
import { lambdaLikeEnvironment } from './bundle-init';
import { RESULT_MARK, runNodeScript, scriptResult } from './node-script';
import type { DayPing } from './ping-day';
import { repoRoot, type StackInfo } from './runtime';
import { round, summarizeLatencies } from './stats';

/**
 * The ping handler on its own (driver_location's detection part, bench/detection.ts), as get_driver measures
 * its handler (bench/handler-warm.ts): the `POST /driver/location` function's bundle, built as a deploy builds
 * it, imported in a fresh node process with the environment CDK gives it and invoked there warm with the event
 * API Gateway sends it, on DynamoDB Local itself. Two drivers' days, pinged alternately: one on a started route
 * of a DC whose detection is on, one on a like route of a DC whose detection is off; so what differs between
 * the two is detection alone, on the same process, machine and moment.
 */

const FUNCTION_NAME = 'driver-app/location';
const TIMEOUT_MS = 600_000;

/** Run by `node --input-type=module -e`: the pings of both drivers, alternately, each timed. */
const MEASURE_PINGS = `
import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(process.env.BENCH_INPUT_FILE, 'utf8'));
const { handler } = await import(process.env.BENCH_BUNDLE_URL);
const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
let invocation = 0;
async function ping(driver, point) {
  invocation++;
  const body = JSON.stringify({
    timestamp: point.timestamp,
    location: { latitude: point.latitude, longitude: point.longitude },
  });
  const event = {
    resource: '/driver/location',
    path: '/driver/location',
    httpMethod: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      Authorization: 'Bearer ' + driver.token,
      Host: 'bench.execute-api.us-east-1.amazonaws.com',
    },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      resourcePath: '/driver/location',
      httpMethod: 'POST',
      path: '/v1/driver/location',
      stage: 'v1',
      accountId: '123456789012',
      apiId: 'bench',
      requestId: 'bench-request-' + invocation,
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: '192.0.2.1', userAgent: 'bench' },
    },
    body,
    isBase64Encoded: false,
  };
  const context = {
    awsRequestId: 'bench-invocation-' + invocation,
    functionName,
    functionVersion: '$LATEST',
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:' + functionName,
    logGroupName: '/aws/lambda/' + functionName,
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 29000,
  };
  const response = await handler(event, context);
  if (response?.statusCode !== 200)
    throw new Error('the handler answered ' + response?.statusCode + ': ' + String(response?.body).slice(0, 300));
}
const times = { on: [], off: [] };
const count = Math.min(input.on.pings.length, input.off.pings.length);
for (let i = 0; i < count; i++) {
  for (const name of i % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
    const started = performance.now();
    await ping(input[name], input[name].pings[i]);
    if (i >= input.warmup) times[name].push(performance.now() - started);
  }
}
process.stdout.write('\\n${RESULT_MARK}' + JSON.stringify(times) + '\\n');
process.exit(0);
`;

export interface PingingDriver {
  token: string;
  pings: DayPing[];
}

export interface LocationHandlerResult {
  on_ms: ReturnType<typeof summarizeLatencies> & { mean: number };
  off_ms: ReturnType<typeof summarizeLatencies> & { mean: number };
  pings_per_driver: number;
  warmup_pings: number;
  bundle_kb: number;
}

const withMean = (values: number[]) => ({
  ...summarizeLatencies(values),
  mean: round(values.reduce((total, value) => total + value, 0) / Math.max(1, values.length)),
});

/** Builds the ping function's bundle and sends both drivers' days through it, alternately, in one process. */
export async function measureLocationHandler(options: {
  stack: StackInfo;
  on: PingingDriver;
  off: PingingDriver;
  warmup: number;
  abort: AbortSignal;
}): Promise<LocationHandlerResult> {
  const fn = lambdaFunctions().find((f) => f.name === FUNCTION_NAME);
  if (!fn) throw new Error(`no function ${FUNCTION_NAME}`);
  const dir = mkdtempSync(join(tmpdir(), 'delivery-routes-bench-location-'));
  try {
    assertIsolated(dir);
    const bundle = await buildLambdaBundle(fn.entry, join(dir, 'bundle'), fn.xraySdk);
    const inputFile = join(dir, 'input.json');
    writeFileSync(inputFile, JSON.stringify({ on: options.on, off: options.off, warmup: options.warmup }));
    const run = await runNodeScript(MEASURE_PINGS, {
      cwd: repoRoot,
      env: {
        ...lambdaLikeEnvironment(fn),
        TABLE_NAME: options.stack.table_name,
        API_URL: 'https://bench.execute-api.us-east-1.amazonaws.com/v1',
        AWS_REGION: options.stack.region,
        AWS_DEFAULT_REGION: options.stack.region,
        AWS_ENDPOINT_URL_DYNAMODB: options.stack.emulator_endpoints.dynamodb,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        // The handler logs a line per request, as on Lambda: kept out of the result's way.
        POWERTOOLS_LOG_LEVEL: 'WARN',
        BENCH_BUNDLE_URL: pathToFileURL(bundle.file).href,
        BENCH_INPUT_FILE: inputFile,
      },
      signal: options.abort,
      timeoutMs: TIMEOUT_MS,
    });
    const times = scriptResult<{ on: number[]; off: number[] }>(run, 'the in-process ping run');
    return {
      on_ms: withMean(times.on),
      off_ms: withMean(times.off),
      pings_per_driver: Math.min(options.on.pings.length, options.off.pings.length),
      warmup_pings: options.warmup,
      bundle_kb: round(bundle.bytes / 1024, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
