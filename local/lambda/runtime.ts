import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { type FunctionSpec, LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../cloud/model';
import type { LogStream } from './execution-environment';
import { FunctionPool, Semaphore } from './function-pool';
import {
  functionNotFoundMessage,
  MAX_ASYNC_REQUEST_BYTES,
  MAX_SYNC_REQUEST_BYTES,
  NODEJS_RUNTIME,
  requestTooLargeMessage,
} from './limits';
import type { Credentials } from './process-configuration';

/**
 * Runs the functions as Lambda runs them: each invocation in an execution environment of its function (a
 * child process, see execution-environment.ts), idle environments reused, new ones started for concurrent
 * invocations (cold starts, in the log as on CloudWatch), with the function's timeout, memory, reserved
 * concurrency and Lambda's payload limits.
 */

export interface LogRecord {
  functionName: string;
  requestId?: string;
  stream: LogStream | 'platform';
  line: string;
}

export interface LambdaRuntimeOptions {
  functions: readonly FunctionSpec[];
  /** Bundle directory by entry, from buildBundles. */
  bundles: Map<string, string>;
  /** The credentials of the function's execution role, given to each new environment. */
  credentialsFor(fn: FunctionSpec): Credentials;
  /** Endpoint and local-only variables the local runtime adds, over the template's. */
  localEnvironment: Record<string, string>;
  /**
   * Where the local API is served, once it is: the value of API_URL for the functions whose template sets it
   * (on AWS the stage's URL), read when an environment starts.
   */
  apiUrl?: () => string | undefined;
  /** Every log line; without it, lines go to stdout prefixed with the function's name. */
  onLog?: (record: LogRecord) => void;
  /** Environments per function at most (AWS would scale further, so invocations beyond wait). Default 16. */
  maxInstancesPerFunction?: number;
  /**
   * Inits running at once, across every function (default: the machine's cores). On AWS each environment
   * inits on hardware of its own; here they share the cores, and a burst of concurrent cold starts would make
   * every init slow enough to pass Lambda's 10 s init limit. A cold start waits for a slot, which counts
   * against no timeout but its caller's own (API Gateway's 29 s).
   */
  maxConcurrentInits?: number;
}

export interface InvokeOptions {
  invocationType?: 'RequestResponse' | 'Event';
  requestId?: string;
  /** The caller's own deadline (epoch ms), e.g. API Gateway's 29 s integration timeout. */
  deadline?: number;
}

export type InvokeResult =
  | { kind: 'success'; payload: unknown; durationMs: number; coldStart: boolean; requestId: string }
  | {
      kind: 'functionError';
      errorType: string;
      errorMessage: string;
      requestId: string;
      durationMs: number;
      coldStart: boolean;
    }
  | {
      kind: 'invokeError';
      errorType: 'RequestEntityTooLargeException' | 'ResourceNotFoundException' | 'TooManyRequestsException';
      errorMessage: string;
    }
  /** The caller's deadline passed first (the gateway answers 504); the invocation runs on. */
  | { kind: 'callerTimeout'; requestId: string }
  /** An Event invocation, queued (Lambda answers 202); it runs in the background. */
  | { kind: 'accepted'; requestId: string };

export type InitOutcome =
  | { ok: true; initDurationMs: number }
  | { ok: false; errorType: string; errorMessage: string };

export interface FunctionStats {
  /** Environments alive, initialising or not. */
  instances: number;
  /** Environments working on an invocation (cold starts included). */
  busy: number;
  coldStarts: number;
  invocations: number;
}

export interface LambdaRuntime {
  invoke(functionName: string, event: unknown, options?: InvokeOptions): Promise<InvokeResult>;
  /**
   * Starts one environment of the function and runs its init only, as provisioned concurrency does; it then
   * serves the next invocation warm. Resolves with the init's outcome.
   */
  provision(functionName: string): Promise<InitOutcome>;
  /** Every environment is gone when it resolves. */
  stop(): Promise<void>;
  stats(functionName: string): FunctionStats;
}

export function startLambdaRuntime(options: LambdaRuntimeOptions): LambdaRuntime {
  const state = {
    stopped: false,
    inits: new Semaphore(options.maxConcurrentInits ?? availableParallelism()),
  };
  const pools = new Map<string, FunctionPool>();
  for (const fn of options.functions) {
    const taskRoot = options.bundles.get(fn.entry);
    if (!taskRoot) throw new Error(`startLambdaRuntime: no bundle for ${fn.name} (${fn.entry})`);
    if (!NODEJS_RUNTIME.test(fn.runtime))
      throw new Error(`startLambdaRuntime: ${fn.name} runs ${fn.runtime}`);
    const pool = new FunctionPool(fn, taskRoot, options, state);
    pools.set(fn.name, pool);
    pools.set(fn.arn, pool);
  }

  return {
    async invoke(functionName, event, invokeOptions = {}) {
      if (state.stopped) throw new Error('the local Lambda runtime is stopped');
      const pool = pools.get(functionName);
      if (!pool)
        return {
          kind: 'invokeError',
          errorType: 'ResourceNotFoundException',
          errorMessage: functionNotFoundMessage(
            functionName.startsWith('arn:')
              ? functionName
              : `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
          ),
        };
      const invocationType = invokeOptions.invocationType ?? 'RequestResponse';
      // Lambda hands the runtime the request's JSON; an absent payload reaches the handler as {}.
      const eventJson = event === undefined ? '{}' : JSON.stringify(event);
      const bytes = Buffer.byteLength(eventJson);
      if (bytes > (invocationType === 'Event' ? MAX_ASYNC_REQUEST_BYTES : MAX_SYNC_REQUEST_BYTES))
        return {
          kind: 'invokeError',
          errorType: 'RequestEntityTooLargeException',
          errorMessage: requestTooLargeMessage(invocationType, bytes),
        };
      const requestId = invokeOptions.requestId ?? randomUUID();
      return invocationType === 'Event'
        ? pool.invokeAsync(eventJson, requestId)
        : pool.invokeSync(eventJson, requestId, invokeOptions.deadline);
    },

    async provision(functionName) {
      const pool = pools.get(functionName);
      if (!pool) throw new Error(`no function ${functionName}`);
      return pool.provision();
    },

    async stop() {
      state.stopped = true;
      await Promise.all([...new Set(pools.values())].map((pool) => pool.stop()));
    },

    stats(functionName) {
      const pool = pools.get(functionName);
      if (!pool) throw new Error(`no function ${functionName}`);
      return pool.stats();
    },
  };
}
