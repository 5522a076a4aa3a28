import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `npm start` running as a child process, as its listening lines and stack.json describe it. */
export interface StartedRuntime {
  child: ChildProcess;
  output: () => string;
  apiUrl: string;
  apiKey: string;
  stack: { dynamodb_endpoint: string; table_name: string; demo: { dc_id: string; driver_id: string } };
}

/** A first start (nothing cached) takes 60-70 s on a crowded 2-core machine (load 9); 3x that and more. */
export const START_DEADLINE_MS = 240_000;
/** A test that starts the runtime and calls it. */
export const STARTING_TEST_TIMEOUT_MS = START_DEADLINE_MS + 30_000;

const children: ChildProcess[] = [];

/**
 * `npm start`'s entry point as a child process on `stateDir`, leading a process group of its own (so that
 * killRuntimeGroup takes every process it started with it, as a crash would).
 */
export function spawnRuntime(stateDir: string, env: Record<string, string>): ChildProcess {
  // One process, as `npm start` runs it: through tsx's CLI, SIGINT would reach a second process that tsx
  // SIGKILLs when it does not acknowledge the signal within 30 ms (a busy machine), leaving stack.json behind.
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'bin/local.ts'], {
    env: { ...process.env, PORT: '0', LOCAL_STATE_DIR: stateDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return child;
}

/** Runs `npm start`'s entry point until it ends by itself (a start it refuses): its exit code and stderr. */
export async function runUntilExit(
  stateDir: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawnRuntime(stateDir, env);
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** Starts `npm start`'s entry point and waits for its listening line. */
export async function startRuntime(stateDir: string, env: Record<string, string>): Promise<StartedRuntime> {
  const child = spawnRuntime(stateDir, env);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + START_DEADLINE_MS;
  while (!/Demo API key: \S+/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const apiUrl = output.match(/Route service listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string;
  const apiKey = output.match(/Demo API key: (\S+)/)?.[1] as string;
  const stack = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8'));
  return { child, output: () => output, apiUrl, apiKey, stack };
}

/** Ctrl-C, and waits until the runtime has stopped. */
export async function stopRuntime(runtime: StartedRuntime): Promise<void> {
  const exited = new Promise((resolve) => runtime.child.once('exit', resolve));
  runtime.child.kill('SIGINT');
  await exited;
}

/** SIGKILL to the runtime's whole process group at once: no exit code of any process runs. */
export async function killRuntimeGroup(runtime: StartedRuntime): Promise<void> {
  const exited = new Promise((resolve) => runtime.child.once('exit', resolve));
  process.kill(-(runtime.child.pid as number), 'SIGKILL');
  await exited;
}

/** Kills what the tests started and left running. */
export function killStartedRuntimes(): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
