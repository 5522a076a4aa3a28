import { pathToFileURL } from 'node:url';
import { allChannels } from '../functions/models/channels';
import type { ResourceAccess } from '../functions/shared/access';
import { RESOURCE_ENV } from '../functions/shared/resources';
import { nodeFlags } from '../local/lambda/process-configuration';
import type { LambdaFunction } from './bundle-build';
import { runNodeScript } from './node-script';
import { repoRoot } from './runtime';

/** A bundle's module init (bench/bundles.ts): imported in a fresh node process with a Lambda-like environment. */

const IMPORT_TIMEOUT_MS = 30_000;

const queueUrl = (queue: string) => `https://sqs.us-east-1.amazonaws.com/123456789012/bench-${queue}`;

/** Every resource variable any function can get: for a second try when a function fails without them. */
export const EVERY_RESOURCE: ResourceAccess = {
  table: 'readWrite',
  bucket: 'read',
  sendTo: [...allChannels],
  sendToDeadLetter: [...allChannels],
};

/**
 * What a function sees at import on Lambda, with dummy values: the resource variables CDK sets for its
 * `access` (ServiceFunction.bindAccess: TABLE_NAME with a table grant, BUCKET_NAME with a bucket grant or
 * links to sign, LINK_SIGNER_ROLE_ARN with the latter, the URL variable of each queue it sends to or dead-letters into), NODE_OPTIONS and POWERTOOLS_SERVICE_NAME
 * as ServiceFunction sets them, and the runtime's own variables (AWS_EXECUTION_ENV among them: the tracer is
 * loaded where the bundle carries it, as on Lambda with active tracing). LAMBDA_TASK_ROOT is left unset: it would
 * put the X-Ray SDK into its Lambda mode, which writes under /tmp.
 */
export function lambdaLikeEnvironment(
  fn: Pick<LambdaFunction, 'name' | 'access' | 'nodeOptions' | 'memorySize'>,
): Record<string, string> {
  const { table, bucket, signLinks, sendTo = [], sendToDeadLetter = [] } = fn.access;
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    ...(fn.nodeOptions ? { NODE_OPTIONS: fn.nodeOptions } : {}),
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCHBUNDLES',
    AWS_SECRET_ACCESS_KEY: 'bench-bundles-not-a-secret',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: `bench-${fn.name.replaceAll('/', '-')}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'delivery-route-service',
    ...(table ? { [RESOURCE_ENV.table]: 'bench-table' } : {}),
    ...(bucket || signLinks ? { [RESOURCE_ENV.bucket]: 'bench-bucket' } : {}),
    ...(signLinks
      ? { [RESOURCE_ENV.linkSignerRoleArn]: 'arn:aws:iam::123456789012:role/bench-link-signer' }
      : {}),
    ...Object.fromEntries(sendTo.map((channel) => [channel.urlEnv, queueUrl(channel.name)])),
    ...Object.fromEntries(
      sendToDeadLetter.map((channel) => [channel.deadLetterUrlEnv, queueUrl(`${channel.name}-dlq`)]),
    ),
  };
}

/**
 * node's flags as Lambda's bootstrap starts every function with them (`--expose-gc`, the header size, heap
 * sizes from its memory; captured from nodejs runtimes' /var/runtime/bootstrap, and what the local runtime
 * passes, local/lambda/process-configuration.ts). They are part of every cold start: V8 flags other than
 * node's defaults cost about 25 ms of a module init here (node's built-in modules then compile without
 * their embedded code cache), the floor's as much as any function's.
 */
export function lambdaNodeArgs(fn: Pick<LambdaFunction, 'memorySize' | 'nodeOptions'>): string[] {
  return nodeFlags(fn.memorySize, fn.nodeOptions);
}

/**
 * Run by `node --input-type=module -e`: imports the bundle, prints how long that took (wall time, and the
 * process's CPU time, which other load on the machine inflates much less), checks the export.
 */
const MEASURE_IMPORT = `
const cpuBefore = process.cpuUsage();
const started = performance.now();
const module = await import(process.env.BENCH_BUNDLE_URL);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
if (typeof module.handler !== 'function') {
  process.stderr.write('the bundle exports no handler function\\n');
  process.exit(3);
}
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');
process.exit(0);
`;

export interface InitRun {
  ms: number;
  cpuMs: number;
}

/** How long `await import(bundle)` takes in a fresh `node` process. */
export async function measureInit(
  file: string,
  env: Record<string, string>,
  nodeArgs: readonly string[],
  abort: AbortSignal,
): Promise<InitRun> {
  const { code, stdout, stderr } = await runNodeScript(MEASURE_IMPORT, {
    cwd: repoRoot,
    nodeArgs,
    env: { ...env, BENCH_BUNDLE_URL: pathToFileURL(file).href },
    signal: abort,
    timeoutMs: IMPORT_TIMEOUT_MS,
  });
  const run = code === 0 ? (JSON.parse(stdout) as Partial<InitRun>) : {};
  if (typeof run.ms !== 'number' || typeof run.cpuMs !== 'number')
    throw new Error(`importing the bundle failed (exit ${code}): ${stderr.trim().slice(-800) || stdout}`);
  return { ms: run.ms, cpuMs: run.cpuMs };
}
