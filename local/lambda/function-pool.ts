import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionSpec } from '../cloud/model';
import { ExecutionEnvironment, type InvocationOutcome } from './execution-environment';
import {
  type FunctionErrorBody,
  INIT_PHASE_TIMEOUT_MS,
  MAX_SYNC_RESPONSE_BYTES,
  responseTooLargeError,
  THROTTLED_MESSAGE,
  timeoutError,
} from './limits';
import {
  endLine,
  initReportLine,
  initStartLine,
  type ReportFacts,
  reportLine,
  startLine,
  timedOutLine,
} from './platform-log';
import {
  lambdaEnvironment,
  newLogStreamName,
  nodeFlags,
  unsampledTraceHeader,
} from './process-configuration';
import type { FunctionStats, InitOutcome, InvokeResult, LambdaRuntimeOptions, LogRecord } from './runtime';

const BOOTSTRAP_PATH = fileURLToPath(new URL('./bootstrap.mjs', import.meta.url));
const DEFAULT_MAX_INSTANCES = 16;

/** A cold start's outcome: an initialised environment, or the invocation's failure. */
type ColdStart =
  | { ok: true; environment: ExecutionEnvironment; initDurationMs: number; deadline?: number }
  | { ok: false; result: InvokeResult };

/** One function's environments, its concurrency and its counters. */
export class FunctionPool {
  private readonly environments = new Set<ExecutionEnvironment>();
  private readonly idle: ExecutionEnvironment[] = [];
  /** Environments being started that are not in `environments` yet. */
  private starting = 0;
  private readonly waitingForInstance: (() => void)[] = [];
  private readonly waitingForConcurrency: (() => void)[] = [];
  /** Admitted invocations not finished yet: what reserved concurrency limits. */
  private inFlight = 0;
  private busy = 0;
  private coldStarts = 0;
  private invocations = 0;
  private readonly maxInstances: number;
  private readonly flags: string[];

  constructor(
    private readonly fn: FunctionSpec,
    private readonly taskRoot: string,
    private readonly options: LambdaRuntimeOptions,
    private readonly state: { stopped: boolean; inits: Semaphore },
  ) {
    this.maxInstances = options.maxInstancesPerFunction ?? DEFAULT_MAX_INSTANCES;
    this.flags = nodeFlags(fn.memorySize, fn.environment.NODE_OPTIONS);
  }

  stats(): FunctionStats {
    return {
      instances: this.environments.size + this.starting,
      busy: this.busy,
      coldStarts: this.coldStarts,
      invocations: this.invocations,
    };
  }

  /** RequestResponse: throttled beyond the reserved concurrency, as Lambda does. */
  invokeSync(eventJson: string, requestId: string, callerDeadline?: number): Promise<InvokeResult> {
    const reserved = this.fn.reservedConcurrency;
    if (reserved !== undefined && this.inFlight >= reserved)
      return Promise.resolve({
        kind: 'invokeError',
        errorType: 'TooManyRequestsException',
        errorMessage: THROTTLED_MESSAGE,
      });
    const run = this.admitted(() => this.run(eventJson, requestId, true));
    return callerDeadline === undefined ? run : untilDeadline(run, callerDeadline, requestId);
  }

  /** Event: accepted at once; Lambda's queue holds it while the reserved concurrency is used up. */
  invokeAsync(eventJson: string, requestId: string): Promise<InvokeResult> {
    const background = async () => {
      const reserved = this.fn.reservedConcurrency;
      while (reserved !== undefined && this.inFlight >= reserved) {
        await new Promise<void>((resolve) => this.waitingForConcurrency.push(resolve));
        if (this.state.stopped) return;
      }
      await this.admitted(() => this.run(eventJson, requestId, false));
    };
    background().catch((error: unknown) => {
      if (!this.state.stopped)
        this.log('platform', `Event invocation ${requestId} failed: ${String(error)}`, requestId);
    });
    return Promise.resolve({ kind: 'accepted', requestId });
  }

  async provision(): Promise<InitOutcome> {
    this.starting++;
    const release = await this.state.inits.acquire();
    const environment = this.spawn();
    this.starting--;
    const init = await environment.init(INIT_PHASE_TIMEOUT_MS, randomUUID()).finally(release);
    if (!init.ok) {
      this.log('platform', initReportLine(init.durationMs, 'init', init.status, init.error?.errorType));
      environment.kill();
      await environment.closed;
      return {
        ok: false,
        errorType: init.error?.errorType ?? 'Sandbox.Timedout',
        errorMessage: init.error?.errorMessage ?? `init did not finish within ${INIT_PHASE_TIMEOUT_MS} ms`,
      };
    }
    this.log('platform', `INIT_REPORT Init Duration: ${init.durationMs.toFixed(2)} ms\tPhase: init`);
    this.idle.push(environment);
    this.waitingForInstance.shift()?.();
    return { ok: true, initDurationMs: init.durationMs };
  }

  async stop(): Promise<void> {
    for (const environment of this.environments) environment.kill();
    for (const wake of this.waitingForInstance.splice(0)) wake();
    for (const wake of this.waitingForConcurrency.splice(0)) wake();
    await Promise.all([...this.environments].map((environment) => environment.closed));
  }

  private async admitted(run: () => Promise<InvokeResult>): Promise<InvokeResult> {
    this.inFlight++;
    this.invocations++;
    try {
      return await run();
    } finally {
      this.inFlight--;
      this.waitingForConcurrency.shift()?.();
    }
  }

  private async run(eventJson: string, requestId: string, synchronous: boolean): Promise<InvokeResult> {
    let environment = await this.takeEnvironment();
    this.busy++;
    try {
      let initDurationMs: number | undefined;
      let deadline: number | undefined;
      if (!environment) {
        this.coldStarts++;
        const cold = await this.coldStart(requestId);
        if (!cold.ok) return cold.result;
        ({ environment, initDurationMs, deadline } = cold);
      }
      return await this.invokeOn(environment, {
        eventJson,
        requestId,
        synchronous,
        initDurationMs,
        deadline,
      });
    } finally {
      this.busy--;
      if (environment?.alive && !this.state.stopped) {
        this.idle.push(environment);
        this.waitingForInstance.shift()?.();
      }
    }
  }

  /** An idle environment, or none when a new one may be started (waits while the instances are all busy). */
  private async takeEnvironment(): Promise<ExecutionEnvironment | undefined> {
    for (;;) {
      if (this.state.stopped) throw new Error('the local Lambda runtime is stopped');
      const idle = this.idle.pop();
      if (idle?.alive) return idle;
      if (idle) continue;
      if (this.environments.size + this.starting < this.maxInstances) {
        this.starting++;
        return undefined;
      }
      await new Promise<void>((resolve) => this.waitingForInstance.push(resolve));
    }
  }

  /**
   * A new environment for `requestId`. Init gets Lambda's 10 s; when it fails or takes longer, Lambda runs it
   * again at the invocation within the function's timeout, which then counts from the second start.
   */
  private async coldStart(requestId: string): Promise<ColdStart> {
    const release = await this.state.inits.acquire();
    let environment = this.spawn();
    this.starting--;
    const first = await environment.init(INIT_PHASE_TIMEOUT_MS, requestId).finally(release);
    if (first.ok) return { ok: true, environment, initDurationMs: first.durationMs };

    environment.kill();
    await environment.closed;
    if (this.state.stopped) throw new Error('the local Lambda runtime is stopped');
    this.log('platform', initReportLine(first.durationMs, 'init', first.status, first.error?.errorType));
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    const deadline = Date.now() + timeoutMs;
    const releaseRetry = await this.state.inits.acquire();
    environment = this.spawn();
    const retry = await environment.init(timeoutMs, requestId).finally(releaseRetry);
    if (retry.ok) return { ok: true, environment, initDurationMs: retry.durationMs, deadline };

    environment.kill();
    await environment.closed;
    const error: FunctionErrorBody =
      retry.status === 'timeout' || !retry.error
        ? timeoutError(requestId, this.fn.timeoutSeconds)
        : retry.error;
    this.log('platform', initReportLine(retry.durationMs, 'invoke', retry.status, error.errorType));
    this.log('platform', startLine(requestId), requestId);
    if (retry.status === 'timeout')
      this.log('platform', timedOutLine(requestId, this.fn.timeoutSeconds), requestId);
    this.logEnd({
      requestId,
      durationMs: retry.durationMs,
      memorySizeMb: this.fn.memorySize,
      maxMemoryUsedMb: 0,
      status: retry.status,
      errorType: error.errorType,
    });
    return {
      ok: false,
      result: {
        kind: 'functionError',
        errorType: error.errorType,
        errorMessage: error.errorMessage,
        requestId,
        durationMs: retry.durationMs,
        coldStart: true,
      },
    };
  }

  private spawn(): ExecutionEnvironment {
    this.log('platform', initStartLine(this.fn.runtime));
    const environment = new ExecutionEnvironment({
      bootstrapPath: BOOTSTRAP_PATH,
      taskRoot: this.taskRoot,
      env: lambdaEnvironment({
        fn: this.fn,
        taskRoot: this.taskRoot,
        runtimeDir: dirname(BOOTSTRAP_PATH),
        credentials: this.options.credentialsFor(this.fn),
        logStreamName: newLogStreamName(),
        localEnvironment: this.options.localEnvironment,
        apiUrl: this.options.apiUrl?.(),
      }),
      nodeFlags: this.flags,
      memorySizeMb: this.fn.memorySize,
      onLine: (stream, line, requestId) => this.log(stream, line, requestId),
    });
    this.environments.add(environment);
    void environment.closed.then(() => {
      this.environments.delete(environment);
      const at = this.idle.indexOf(environment);
      if (at !== -1) this.idle.splice(at, 1);
      this.waitingForInstance.shift()?.();
    });
    return environment;
  }

  private async invokeOn(
    environment: ExecutionEnvironment,
    invocation: {
      eventJson: string;
      requestId: string;
      synchronous: boolean;
      initDurationMs?: number;
      deadline?: number;
    },
  ): Promise<InvokeResult> {
    const { requestId, initDurationMs } = invocation;
    const coldStart = initDurationMs !== undefined;
    this.log('platform', startLine(requestId), requestId);
    const outcome = await environment.invoke({
      requestId,
      eventJson: invocation.eventJson,
      deadline: invocation.deadline ?? Date.now() + this.fn.timeoutSeconds * 1000,
      timeoutSeconds: this.fn.timeoutSeconds,
      invokedFunctionArn: this.fn.arn,
      traceHeader: unsampledTraceHeader(),
    });
    const checked = invocation.synchronous ? this.limitResponse(environment, outcome) : outcome;
    if (checked.kind === 'error' && checked.status === 'timeout')
      this.log('platform', timedOutLine(requestId, this.fn.timeoutSeconds), requestId);
    const facts = {
      requestId,
      durationMs: checked.durationMs,
      memorySizeMb: this.fn.memorySize,
      maxMemoryUsedMb: checked.maxMemoryUsedMb,
      initDurationMs,
    };
    if (checked.kind === 'response') {
      this.logEnd(facts);
      return {
        kind: 'success',
        payload: JSON.parse(checked.payloadJson),
        durationMs: checked.durationMs,
        coldStart,
        requestId,
      };
    }
    // Lambda's REPORT carries a status when the platform ended the invocation, not for a handler's error.
    const ended = !environment.alive;
    this.logEnd(ended ? { ...facts, status: checked.status, errorType: checked.error.errorType } : facts);
    return {
      kind: 'functionError',
      errorType: checked.error.errorType,
      errorMessage: checked.error.errorMessage,
      requestId,
      durationMs: checked.durationMs,
      coldStart,
    };
  }

  /** A response over Lambda's limit fails the invocation, and the runtime that sent it exits. */
  private limitResponse(environment: ExecutionEnvironment, outcome: InvocationOutcome): InvocationOutcome {
    if (outcome.kind !== 'response' || Buffer.byteLength(outcome.payloadJson) <= MAX_SYNC_RESPONSE_BYTES)
      return outcome;
    environment.kill();
    const { durationMs, maxMemoryUsedMb } = outcome;
    return { kind: 'error', error: responseTooLargeError(), status: 'error', durationMs, maxMemoryUsedMb };
  }

  private logEnd(facts: ReportFacts): void {
    this.log('platform', endLine(facts.requestId), facts.requestId);
    this.log('platform', reportLine(facts), facts.requestId);
  }

  private log(stream: LogRecord['stream'], line: string, requestId?: string): void {
    if (this.options.onLog) this.options.onLog({ functionName: this.fn.name, requestId, stream, line });
    else process.stdout.write(`[${this.fn.name}] ${line}\n`);
  }
}

/** At most `slots` holders at once; the others wait in line. */
export class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.free = Math.max(1, slots);
  }

  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/** The invocation's result, or `callerTimeout` when the caller's deadline comes first. */
function untilDeadline(
  run: Promise<InvokeResult>,
  deadline: number,
  requestId: string,
): Promise<InvokeResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => resolve({ kind: 'callerTimeout', requestId }),
      Math.max(0, deadline - Date.now()),
    );
    run.then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
