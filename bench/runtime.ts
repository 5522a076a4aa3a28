import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The fields of `<LOCAL_STATE_DIR>/stack.json` the bench uses. */
export interface StackInfo {
  api_url: string;
  region: string;
  /** The local AWS endpoint (IAM and limits checked), with the operator's credentials. */
  dynamodb_endpoint: string;
  table_name: string;
  demo: { account_id: string; dc_id: string; driver_id: string };
  /** The SQS emulator and the queues (by QueueName), for scenarios that look at what is left in them. */
  sqs_endpoint?: string;
  queue_urls?: Record<string, string>;
  dlq_urls?: Record<string, string>;
  /** DynamoDB Local and fauxqs themselves: the raw baselines talk to them directly. */
  emulator_endpoints: { dynamodb: string; aws: string };
  /** What a local operator's process needs to use the service's resources with its code (the KMS key's ARN). */
  operator_environment?: Record<string, string>;
}

/**
 * CDK context the bench deploys the app with, as `cdk deploy -c` would take it: the stage's and the demo
 * account's throttling out of the way of load that is the point of the measurement, and a short webhook retry schedule (seconds instead
 * of the deployed schedule's minutes to hours), so webhook_delivery's induced failures are retried while it waits.
 */
export const BENCH_CONTEXT: Readonly<Record<string, string>> = {
  throttlingRateLimit: '100000',
  throttlingBurstLimit: '100000',
  accountThrottlingRateLimit: '100000',
  accountThrottlingBurstLimit: '100000',
  webhookRetryDelaysSeconds: '1,2,5',
};

export interface LocalRuntime {
  stack: StackInfo;
  /** The demo account's API key (generated here, passed as LOCAL_DEMO_API_KEY). */
  apiKey: string;
  startupMs: number;
  /** The runtime's stdout and stderr (one access-log line per request). */
  logFile: string;
  /** SIGTERM, then makes sure nothing of the runtime's process group (DynamoDB Local's JVM included) is left. */
  stop(): Promise<void>;
}

export type Demo = ReturnType<typeof demoOf>;

/** What every scenario starts from: the runtime's stack and API key, and the ids of the demo account it seeded. */
export function demoOf(runtime: LocalRuntime) {
  const { stack, apiKey } = runtime;
  const { account_id: accountId, dc_id: dcId, driver_id: driverId } = stack.demo;
  return { stack, apiKey, accountId, dcId, driverId };
}

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const READY_LINE = 'Route service listening on';
/** A quiet start takes about 30 s; a busy two-core machine can take several times that. */
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * Starts `tsx bin/local.ts --in-memory` (PORT=0, a temporary LOCAL_STATE_DIR, a random demo key) in its own
 * process group and waits for stack.json and the listening line. Its output goes to a file, not a pipe, so
 * the runtime never waits on the bench's event loop to drain its access log.
 */
export async function startLocalRuntime(
  log: (message: string) => void,
  abort?: AbortSignal,
  /** Variables of its own, over the bench's (e.g. LOCAL_CACHE_DIR). */
  env: Record<string, string> = {},
): Promise<LocalRuntime> {
  const stateDir = mkdtempSync(join(tmpdir(), 'drs-bench-'));
  const logFile = join(stateDir, 'runtime.log');
  const stackFile = join(stateDir, 'stack.json');
  const apiKey = `drs_${randomBytes(32).toString('base64url')}`;
  const logFd = openSync(logFile, 'a');
  const started = performance.now();
  let child: ChildProcess;
  try {
    const context = Object.entries(BENCH_CONTEXT).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    child = spawn(join(repoRoot, 'node_modules/.bin/tsx'), ['bin/local.ts', '--in-memory', ...context], {
      cwd: repoRoot,
      env: {
        // Every invocation's REPORT line: the scenarios read functions' durations from them.
        LOCAL_PLATFORM_LOG: 'all',
        ...process.env,
        PORT: '0',
        LOCAL_STATE_DIR: stateDir,
        LOCAL_DEMO_API_KEY: apiKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...env,
      },
      // Own process group: the runtime's node process and the JVM it spawns can be found and killed together.
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
  } finally {
    closeSync(logFd);
  }
  const pgid = child.pid;
  if (pgid === undefined) throw new Error('could not start the local runtime (no pid)');

  // Last resort when the bench dies without running its cleanup.
  const killGroupOnExit = () => signalGroup(pgid, 'SIGKILL');
  process.once('exit', killGroupOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log('stopping the local runtime');
      // The whole group, as Ctrl-C in a terminal would: the runtime shuts down its services itself, and the
      // JVM gets the signal directly even if tsx's wrapper gives up on a busy runtime and SIGKILLs it.
      signalGroup(pgid, 'SIGTERM');
      await waitForExit(child, STOP_TIMEOUT_MS);
      if (!(await groupGone(pgid, STOP_TIMEOUT_MS))) {
        log(`runtime processes alive after SIGTERM: ${livingMembers(pgid).join(', ')}; sending SIGKILL`);
        signalGroup(pgid, 'SIGKILL');
        if (!(await groupGone(pgid, 5000)))
          throw new Error(`could not stop runtime processes ${livingMembers(pgid).join(', ')}`);
      }
      process.off('exit', killGroupOnExit);
      rmSync(stateDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const stack = await waitUntilReady(child, stackFile, logFile, abort);
    const startupMs = performance.now() - started;
    log(
      `runtime ready in ${(startupMs / 1000).toFixed(1)} s at ${stack.api_url} ` +
        `(DynamoDB Local ${stack.dynamodb_endpoint}; ${livingMembers(pgid).length} processes in its group)`,
    );
    return { stack, apiKey, startupMs, logFile, stop };
  } catch (error) {
    log(`runtime output (tail):\n${tail(logFile, 3000)}`);
    await stop();
    throw error;
  }
}

async function waitUntilReady(
  child: ChildProcess,
  stackFile: string,
  logFile: string,
  abort: AbortSignal | undefined,
): Promise<StackInfo> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    abort?.throwIfAborted();
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the local runtime exited early (${child.exitCode ?? child.signalCode})`);
    if (Date.now() > deadline)
      throw new Error(`the local runtime was not ready within ${START_TIMEOUT_MS} ms`);
    const stack = readStack(stackFile);
    if (stack && readFileSync(logFile, 'utf8').includes(READY_LINE)) return stack;
    await sleep(100);
  }
}

/** Undefined until stack.json exists and is complete. */
function readStack(stackFile: string): StackInfo | undefined {
  if (!existsSync(stackFile)) return undefined;
  let parsed: Partial<StackInfo>;
  try {
    parsed = JSON.parse(readFileSync(stackFile, 'utf8')) as Partial<StackInfo>;
  } catch {
    return undefined; // still being written
  }
  const { api_url, dynamodb_endpoint, table_name, region, demo, emulator_endpoints } = parsed;
  if (
    !api_url ||
    !dynamodb_endpoint ||
    !table_name ||
    !region ||
    !demo?.account_id ||
    !demo.dc_id ||
    !emulator_endpoints?.dynamodb
  )
    throw new Error(`stack.json lacks a field the bench needs: ${JSON.stringify(parsed)}`);
  return parsed as StackInfo;
}

function tail(file: string, chars: number): string {
  try {
    return readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '(no output)';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** Pids of the group's processes that are not zombies (Linux /proc; elsewhere: whether the group answers). */
function livingMembers(pgid: number): number[] {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses, so parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
  }
  return members;
}

async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (livingMembers(pgid).length > 0) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
