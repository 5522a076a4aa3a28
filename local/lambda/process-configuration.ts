import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import type { FunctionSpec } from '../cloud/model';
import { LOCAL_REGION } from '../cloud/model';

/**
 * How the nodejs runtime starts the process of an execution environment: its environment variables and
 * node's flags, as Lambda sets them (Lambda developer guide, "Defined runtime environment variables"; the
 * runtime's /var/runtime/bootstrap), with local paths where Lambda's are /var/task and /var/runtime.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

export interface EnvironmentInputs {
  fn: FunctionSpec;
  /** The function's code (Lambda's /var/task). */
  taskRoot: string;
  /** The local runtime's code (Lambda's /var/runtime). */
  runtimeDir: string;
  credentials: Credentials;
  logStreamName: string;
  /** Endpoint and local-only variables the local runtime adds, over everything else. */
  localEnvironment: Record<string, string>;
  /** Where the local API is served (undefined before it listens). */
  apiUrl?: string;
}

/** Exactly the environment of the function's process: nothing of this process leaks in. */
export function lambdaEnvironment(inputs: EnvironmentInputs): Record<string, string> {
  const { fn, taskRoot, runtimeDir, credentials } = inputs;
  const region = regionOf(fn);
  const nodeMajor = fn.runtime.replace(/^nodejs(\d+)\.x$/, '$1');
  return {
    // Unreserved: the template's variables may replace them.
    LANG: 'en_US.UTF-8',
    // Lambda's PATH, with the local node's directory standing for /var/lang/bin.
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin/:/bin:/opt/bin`,
    NODE_PATH: [
      `/opt/nodejs/node${nodeMajor}/node_modules`,
      '/opt/nodejs/node_modules',
      `${runtimeDir}/node_modules`,
      runtimeDir,
      taskRoot,
    ].join(':'),
    ...fn.environment,
    // Reserved: Lambda sets them whatever the template says.
    _HANDLER: fn.handler,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: logGroupName(fn),
    AWS_LAMBDA_LOG_STREAM_NAME: inputs.logStreamName,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: credentials.sessionToken,
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: runtimeDir,
    TZ: ':UTC',
    // Lambda's X-Ray settings (set whatever the tracing mode); no daemon listens locally, and each
    // invocation's trace header says "not sampled", so nothing is sent.
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
    _AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1',
    _AWS_XRAY_DAEMON_PORT: '2000',
    ...inputs.localEnvironment,
    ...localApiUrl(fn, inputs.apiUrl),
  };
}

/**
 * API_URL where the template sets it (to the stage's URL on AWS, which the local names resolve to a host
 * nobody serves): the URL the local API is served at instead, as the endpoint variables stand for AWS's.
 * A function without it in its template gets none, as on AWS.
 */
function localApiUrl(fn: FunctionSpec, apiUrl: string | undefined): Record<string, string> {
  if (fn.environment[RESOURCE_ENV.apiUrl] === undefined) return {};
  if (apiUrl === undefined)
    throw new Error(`${fn.name} links to the API (API_URL), which is not served yet: start the API first`);
  return { [RESOURCE_ENV.apiUrl]: apiUrl };
}

/**
 * node's flags as the runtime's bootstrap passes them: a tenth of the memory for the young generation (in two
 * semi-spaces), the rest for the old one. On the command line they win over the same V8 flags in the
 * function's NODE_OPTIONS, which node reads first (node's CLI documentation); whether the nodejs22.x bootstrap
 * leaves them out when NODE_OPTIONS sets its own is not documented. So the smaller of the two applies here:
 * a function never gets more heap locally than it may get on AWS.
 */
export function nodeFlags(memorySizeMb: number, nodeOptions = ''): string[] {
  const newSpace = Math.floor(memorySizeMb / 10);
  const own = (flag: string) =>
    Number(new RegExp(`--${flag}=(\\d+)`).exec(nodeOptions)?.[1] ?? Number.POSITIVE_INFINITY);
  const heapFlag = (flag: string, megabytes: number) =>
    own(flag) < megabytes ? [] : [`--${flag}=${megabytes}`];
  return [
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    ...heapFlag('max-semi-space-size', Math.floor(newSpace / 2)),
    ...heapFlag('max-old-space-size', memorySizeMb - newSpace),
  ];
}

export function logGroupName(fn: FunctionSpec): string {
  return fn.logGroupName ?? `/aws/lambda/${fn.name}`;
}

/** A new environment's log stream: `2025/01/31/[$LATEST]<32 hex digits>`. */
export function newLogStreamName(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/** The Region of the function's ARN (`arn:aws:lambda:<region>:…`). */
export function regionOf(fn: FunctionSpec): string {
  return fn.arn.split(':')[3] || LOCAL_REGION;
}

/** A trace header as Lambda passes each invocation (_X_AMZN_TRACE_ID), not sampled. */
export function unsampledTraceHeader(now = Date.now()): string {
  const epochSeconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${epochSeconds}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
}
