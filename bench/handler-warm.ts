import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_CREDENTIALS } from '../local/services';
import { assertIsolated, buildLambdaBundle, lambdaFunctions } from './bundle-build';
import { lambdaLikeEnvironment } from './bundle-init';
import { runNodeScript } from './node-script';
import { repoRoot, type StackInfo } from './runtime';
import { round, summarizeLatencies } from './stats';

/**
 * get_driver's handler on its own (bench/drivers.ts): the function's bundle, built as a deploy builds it,
 * imported in a fresh node process with the environment CDK gives it and invoked there warm with the event API
 * Gateway sends it, against a raw GetItem of the same item from the same process; both on DynamoDB Local
 * itself, with no local gateway, Lambda runtime or signing endpoint in between. What this measures is what the
 * function adds to its one read on AWS: validation, the envelope, logging, metrics.
 */

const FUNCTION_NAME = 'drivers/get';
const RESULT_MARK = 'BENCH_RESULT ';
const TIMEOUT_MS = 300_000;

/**
 * Run by `node --input-type=module -e`: imports the bundle (its module init), warms both paths up, then runs
 * them one request at a time, alternating which goes first, and prints the latencies on a line of its own
 * (the handler's own log lines go to stdout too, as on Lambda).
 */
const MEASURE_WARM = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const input = JSON.parse(process.env.BENCH_INPUT);
const { handler } = await import(process.env.BENCH_BUNDLE_URL);
const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
let invocation = 0;
const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
const paths = {
  handler: async () => {
    invocation++;
    const event = {
      ...input.event,
      requestContext: { ...input.event.requestContext, requestId: 'bench-request-' + invocation },
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
    const id = JSON.parse(response?.body ?? '{}')?.data?.driver?.id;
    if (response?.statusCode !== 200 || id !== input.driverId)
      throw new Error('the handler answered ' + response?.statusCode + ': ' + String(response?.body).slice(0, 300));
  },
  raw: async () => {
    const { Item } = await raw.send(new GetCommand({ TableName: input.table, Key: input.key, ConsistentRead: true }));
    if (Item?.driver_id !== input.driverId) throw new Error('GetItem returned ' + JSON.stringify(Item?.driver_id));
  },
};
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

/** The REST proxy event API Gateway sends the function for the driver, with the authorizer's context. */
function getDriverEvent(accountId: string, dcId: string, driverId: string) {
  const path = `/dcs/${encodeURIComponent(dcId)}/drivers/${encodeURIComponent(driverId)}`;
  return {
    resource: '/dcs/{dc_id}/drivers/{driver_id}',
    path,
    httpMethod: 'GET',
    headers: { Accept: 'application/json', Host: 'bench.execute-api.us-east-1.amazonaws.com' },
    multiValueHeaders: {
      Accept: ['application/json'],
      Host: ['bench.execute-api.us-east-1.amazonaws.com'],
    },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { dc_id: dcId, driver_id: driverId },
    stageVariables: null,
    requestContext: {
      resourcePath: '/dcs/{dc_id}/drivers/{driver_id}',
      httpMethod: 'GET',
      path: `/v1${path}`,
      stage: 'v1',
      accountId: '123456789012',
      apiId: 'bench',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: '192.0.2.1', userAgent: 'bench' },
      authorizer: { account_id: accountId, dc_ids: JSON.stringify([dcId]), principalId: accountId },
    },
    body: null,
    isBase64Encoded: false,
  };
}

export interface HandlerWarmResult {
  handler_ms: ReturnType<typeof summarizeLatencies>;
  raw_get_item_ms: ReturnType<typeof summarizeLatencies>;
  runs: number;
  warmup: number;
  bundle_kb: number;
}

/** Builds the function's bundle and measures it warm against a raw GetItem, `runs` requests each. */
export async function measureHandlerWarm(options: {
  stack: StackInfo;
  accountId: string;
  dcId: string;
  driverId: string;
  key: { pk: string; sk: string };
  runs: number;
  warmup: number;
  abort: AbortSignal;
}): Promise<HandlerWarmResult> {
  const fn = lambdaFunctions().find((f) => f.name === FUNCTION_NAME);
  if (!fn) throw new Error(`no function ${FUNCTION_NAME}`);
  const dir = mkdtempSync(join(tmpdir(), 'delivery-routes-bench-handler-'));
  try {
    assertIsolated(dir);
    const bundle = await buildLambdaBundle(fn.entry, join(dir, 'bundle'), fn.xraySdk);
    const { stdout, stderr, code } = await runNodeScript(MEASURE_WARM, {
      cwd: repoRoot,
      env: {
        ...lambdaLikeEnvironment(fn),
        TABLE_NAME: options.stack.table_name,
        AWS_REGION: options.stack.region,
        AWS_DEFAULT_REGION: options.stack.region,
        AWS_ENDPOINT_URL_DYNAMODB: options.stack.emulator_endpoints.dynamodb,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        BENCH_BUNDLE_URL: pathToFileURL(bundle.file).href,
        BENCH_INPUT: JSON.stringify({
          event: getDriverEvent(options.accountId, options.dcId, options.driverId),
          driverId: options.driverId,
          table: options.stack.table_name,
          key: options.key,
          runs: options.runs,
          warmup: options.warmup,
        }),
      },
      signal: options.abort,
      timeoutMs: TIMEOUT_MS,
    });
    const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
    if (code !== 0 || !line)
      throw new Error(`the in-process handler run failed (exit ${code}): ${stderr.trim().slice(-800)}`);
    const times = JSON.parse(line.slice(RESULT_MARK.length)) as { handler: number[]; raw: number[] };
    return {
      handler_ms: summarizeLatencies(times.handler),
      raw_get_item_ms: summarizeLatencies(times.raw),
      runs: options.runs,
      warmup: options.warmup,
      bundle_kb: round(bundle.bytes / 1024, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
