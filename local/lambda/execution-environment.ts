import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { exitError, type FunctionErrorBody, timeoutError } from './limits';

/**
 * One execution environment: a node process running bootstrap.mjs over the function's bundle, with exactly
 * the function's environment and node flags. It initialises once, then runs one invocation at a time until it
 * is killed (timeout, out of memory, stop) or its process ends.
 */

export type LogStream = 'stdout' | 'stderr';

export interface ExecutionEnvironmentOptions {
  bootstrapPath: string;
  taskRoot: string;
  env: Record<string, string>;
  nodeFlags: string[];
  memorySizeMb: number;
  /** Every whole line the process writes, with the request id of the invocation that wrote it. */
  onLine(stream: LogStream, line: string, requestId: string | undefined): void;
}

export type InitOutcome =
  | { ok: true; durationMs: number }
  | { ok: false; durationMs: number; status: 'error' | 'timeout'; error?: FunctionErrorBody };

export interface InvocationRequest {
  requestId: string;
  /** The event's JSON, as Lambda hands it to the runtime. */
  eventJson: string;
  /** When the function's timeout ends the invocation (epoch ms). */
  deadline: number;
  timeoutSeconds: number;
  invokedFunctionArn: string;
  traceHeader: string;
}

export type InvocationOutcome =
  | { kind: 'response'; payloadJson: string; durationMs: number; maxMemoryUsedMb: number }
  | {
      kind: 'error';
      error: FunctionErrorBody;
      durationMs: number;
      maxMemoryUsedMb: number;
      status: 'error' | 'timeout';
    };

/** What the bootstrap sends. */
type RuntimeMessage =
  | { type: 'ready'; maxRssKiB: number }
  | { type: 'initError'; error: FunctionErrorBody }
  | { type: 'response'; requestId: string; payload: string; wrote: LogStream[]; maxRssKiB: number }
  | { type: 'error'; requestId: string; error: FunctionErrorBody; wrote: LogStream[]; maxRssKiB: number }
  | { type: 'fatal'; requestId?: string; error: FunctionErrorBody };

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How often a busy environment's resident memory is checked against its memory size. */
const MEMORY_CHECK_INTERVAL_MS = 50;
/** V8's last words before it aborts a process whose heap is full. */
const V8_HEAP_OUT_OF_MEMORY = 'JavaScript heap out of memory';

interface PendingInvocation {
  request: InvocationRequest;
  startedAt: number;
  /** The bootstrap's answer, once it came. */
  answer?: Extract<RuntimeMessage, { type: 'response' | 'error' }>;
  /** END markers seen: the invocation's output is all read once every stream it wrote to has its own. */
  ended: Set<LogStream>;
  timer: NodeJS.Timeout;
  resolve(outcome: InvocationOutcome): void;
}

export class ExecutionEnvironment {
  private readonly child: ChildProcess;
  private readonly marker = `\u001fLAMBDA-LOCAL-${randomBytes(8).toString('hex')}:`;
  private readonly spawnedAt = performance.now();
  private readonly requestIdOf: Record<LogStream, string | undefined> = {
    stdout: undefined,
    stderr: undefined,
  };
  private readonly partialLine: Record<LogStream, string> = { stdout: '', stderr: '' };
  private readonly ready: Promise<InitOutcome>;
  private pending: PendingInvocation | undefined;
  private fatal: FunctionErrorBody | undefined;
  private killed = false;
  private timedOut = false;
  private outOfMemory = false;
  private peakRssKiB = 0;
  private memoryTimer: NodeJS.Timeout | undefined;
  private statusFd: number | undefined;
  /** /proc/<pid>/status is about 1.5 KB; VmRSS is in its first half. */
  private readonly statusBuffer = Buffer.alloc(4096);
  private exit: Exit | undefined;
  private initRequestId = 'undefined';
  /** Resolves when the process has ended and all its output has been read. */
  readonly closed: Promise<void>;

  constructor(private readonly options: ExecutionEnvironmentOptions) {
    this.child = fork(options.bootstrapPath, [], {
      cwd: options.taskRoot,
      env: options.env,
      // Never the parent's flags (tsx's loader, vitest's): only what the runtime gives node.
      execArgv: options.nodeFlags,
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.readLines('stdout', this.child.stdout as Readable);
    this.readLines('stderr', this.child.stderr as Readable);
    this.closed = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        this.onClose({ code, signal });
        resolve();
      });
      this.child.on('error', () => {
        // Spawning failed: no 'close' follows. (A send to a process that just died fails too; its 'close'
        // ends the invocation.)
        if (this.child.pid === undefined) {
          this.onClose({ code: null, signal: null });
          resolve();
        }
      });
    });
    this.ready = new Promise((resolve) => {
      this.onInit = resolve;
    });
    this.child.on('message', (message: RuntimeMessage) => this.onMessage(message));
    this.watchMemory(true);
  }

  /** Not ended, and not on its way out. */
  get alive(): boolean {
    return this.exit === undefined && !this.killed && !this.outOfMemory;
  }

  /**
   * The Init phase, ended after `timeoutMs` (the environment is then killed). `requestId` is the invocation
   * that waits for it, which Lambda names in an exit's error message.
   */
  async init(timeoutMs: number, requestId: string): Promise<InitOutcome> {
    this.initRequestId = requestId;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<InitOutcome>((resolve) => {
      timer = setTimeout(() => {
        this.kill();
        resolve({ ok: false, durationMs: performance.now() - this.spawnedAt, status: 'timeout' });
      }, timeoutMs);
    });
    const outcome = await Promise.race([this.ready, timeout]);
    clearTimeout(timer);
    if (outcome.ok) this.watchMemory(false);
    return outcome;
  }

  /** Runs one invocation; the function's timeout, a crash or running out of memory end it with an error. */
  invoke(request: InvocationRequest): Promise<InvocationOutcome> {
    if (this.pending) throw new Error('an execution environment runs one invocation at a time');
    return new Promise((resolve) => {
      this.pending = {
        request,
        startedAt: performance.now(),
        ended: new Set(),
        timer: setTimeout(() => this.onTimeout(), Math.max(0, request.deadline - Date.now())),
        resolve,
      };
      this.watchMemory(true);
      this.child.send({
        type: 'invoke',
        requestId: request.requestId,
        event: request.eventJson,
        deadline: request.deadline,
        invokedFunctionArn: request.invokedFunctionArn,
        traceId: request.traceHeader,
        marker: this.marker,
      });
    });
  }

  /** Ends the process at once (SIGKILL), as Lambda ends an environment. */
  kill(): void {
    this.killed = true;
    if (this.exit === undefined) this.child.kill('SIGKILL');
  }

  private onInit: (outcome: InitOutcome) => void = () => {};

  private onMessage(message: RuntimeMessage): void {
    switch (message.type) {
      case 'ready':
        // Init that went past the memory size has been killed on Lambda: this one ends as it would.
        if (this.overMemory(message.maxRssKiB)) return;
        this.onInit({ ok: true, durationMs: performance.now() - this.spawnedAt });
        return;
      case 'initError':
        this.onInit({
          ok: false,
          durationMs: performance.now() - this.spawnedAt,
          status: 'error',
          error: message.error,
        });
        return;
      case 'fatal':
        // The process exits next; the invocation ends with this error when it has.
        this.fatal = message.error;
        return;
      default:
        if (this.pending?.request.requestId !== message.requestId) return;
        this.pending.answer = message;
        this.completeIfAllRead();
    }
  }

  private completeIfAllRead(): void {
    const pending = this.pending;
    if (!pending?.answer?.wrote.every((stream) => pending.ended.has(stream))) return;
    const { answer } = pending;
    // The process's peak, which polling may have missed: past the memory size, Lambda would have killed it.
    if (this.overMemory(answer.maxRssKiB)) return;
    const common = {
      durationMs: performance.now() - pending.startedAt,
      maxMemoryUsedMb: this.maxMemoryUsedMb(),
    };
    this.finish(
      answer.type === 'response'
        ? { kind: 'response', payloadJson: answer.payload, ...common }
        : { kind: 'error', error: answer.error, status: 'error', ...common },
    );
  }

  private finish(outcome: InvocationOutcome): void {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = undefined;
    this.watchMemory(false);
    pending.resolve(outcome);
  }

  private onTimeout(): void {
    this.timedOut = true;
    this.kill();
  }

  private onClose(exit: Exit): void {
    this.exit = exit;
    this.watchMemory(false);
    this.closeStatusFile();
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partialLine[stream]) this.emitLine(stream, this.partialLine[stream]);
      this.partialLine[stream] = '';
    }
    const outOfMemory = this.outOfMemory;
    this.onInit({
      ok: false,
      durationMs: performance.now() - this.spawnedAt,
      status: 'error',
      error: this.fatal ?? exitError(this.initRequestId, exit, outOfMemory),
    });
    const pending = this.pending;
    if (!pending) return;
    const { requestId, timeoutSeconds } = pending.request;
    const error = this.timedOut
      ? timeoutError(requestId, timeoutSeconds)
      : (this.fatal ?? exitError(requestId, exit, outOfMemory));
    this.finish({
      kind: 'error',
      error,
      status: this.timedOut ? 'timeout' : 'error',
      durationMs: performance.now() - pending.startedAt,
      maxMemoryUsedMb: outOfMemory ? this.options.memorySizeMb : this.maxMemoryUsedMb(),
    });
  }

  /** Records a resident memory figure; past the memory size the process is killed as out of memory. */
  private overMemory(rssKiB: number): boolean {
    this.peakRssKiB = Math.max(this.peakRssKiB, rssKiB);
    if (rssKiB <= this.options.memorySizeMb * 1024) return false;
    if (this.alive) {
      this.outOfMemory = true;
      this.kill();
    }
    return true;
  }

  private maxMemoryUsedMb(): number {
    return Math.ceil(this.peakRssKiB / 1024);
  }

  /** Polls the process's resident memory while it works; past the memory size it is killed, as on Lambda. */
  private watchMemory(on: boolean): void {
    clearInterval(this.memoryTimer);
    this.memoryTimer = undefined;
    if (!on || this.child.pid === undefined || this.exit) return;
    this.memoryTimer = setInterval(() => this.overMemory(this.residentKiB()), MEMORY_CHECK_INTERVAL_MS);
    this.memoryTimer.unref();
  }

  /**
   * VmRSS of the process, 0 once it is gone. Its /proc status file stays open and is read in place (one
   * pread): twenty busy environments polled every 50 ms cost the runtime little. The descriptor is the
   * process's own, so a pid reused after it ended can never be read by mistake.
   */
  private residentKiB(): number {
    try {
      this.statusFd ??= openSync(`/proc/${this.child.pid}/status`, 'r');
      const length = readSync(this.statusFd, this.statusBuffer, 0, this.statusBuffer.length, 0);
      return Number(/^VmRSS:\s+(\d+)/m.exec(this.statusBuffer.toString('latin1', 0, length))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  private closeStatusFile(): void {
    if (this.statusFd === undefined) return;
    closeSync(this.statusFd);
    this.statusFd = undefined;
  }

  private readLines(stream: LogStream, readable: Readable): void {
    readable.setEncoding('utf8');
    readable.on('data', (chunk: string) => {
      const text = this.partialLine[stream] + chunk;
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        this.onLine(stream, text.slice(start, end));
        start = end + 1;
      }
      this.partialLine[stream] = text.slice(start);
    });
  }

  /** A line as written: output, or the bootstrap's START/END marker (possibly after a partial line). */
  private onLine(stream: LogStream, line: string): void {
    const at = line.indexOf(this.marker);
    if (at === -1) {
      this.emitLine(stream, line);
      return;
    }
    if (at > 0) this.emitLine(stream, line.slice(0, at));
    const [what, requestId] = line.slice(at + this.marker.length).split(' ');
    if (what === 'START') {
      this.requestIdOf[stream] = requestId;
      return;
    }
    this.requestIdOf[stream] = undefined;
    const pending = this.pending;
    if (pending && pending.request.requestId === requestId) {
      pending.ended.add(stream);
      this.completeIfAllRead();
    }
  }

  private emitLine(stream: LogStream, line: string): void {
    if (stream === 'stderr' && line.includes(V8_HEAP_OUT_OF_MEMORY)) this.outOfMemory = true;
    this.options.onLine(stream, line, this.requestIdOf[stream]);
  }
}
