import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, expectError } from '../support/http';

interface Started {
  child: ChildProcess;
  output: () => string;
  apiUrl: string;
  apiKey: string;
  stack: { dynamodb_endpoint: string; table_name: string; demo: { dc_id: string; driver_id: string } };
}

const children: ChildProcess[] = [];
const START_DEADLINE_MS = 120_000;
/** A test that starts the runtime and calls it. */
const STARTING_TEST_TIMEOUT_MS = START_DEADLINE_MS + 30_000;
const stateDir = mkdtempSync(join(tmpdir(), 'npm-start-'));

/** `npm start`'s entry point as a child process (killed after the tests if still running). */
function spawnRuntime(env: Record<string, string>): ChildProcess {
  const child = spawn('node_modules/.bin/tsx', ['bin/local.ts'], {
    env: { ...process.env, PORT: '0', LOCAL_STATE_DIR: stateDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** Starts `npm start`'s entry point and waits for its listening line. */
async function startRuntime(env: Record<string, string>): Promise<Started> {
  const child = spawnRuntime(env);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  // A first start builds every bundle (about 25 s on a busy 2-core machine); 3x that and more.
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

async function stop(runtime: Started): Promise<void> {
  const exited = new Promise((resolve) => runtime.child.once('exit', resolve));
  runtime.child.kill('SIGINT');
  await exited;
}

function portAnswers(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => resolve(!!socket.destroy()));
    socket.once('error', () => resolve(false));
  });
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('npm start', () => {
  const fixedKey = `drs_${randomBytes(24).toString('base64url')}`;
  let first: Started;

  it(
    'serves the seeded demo account with the key it prints (LOCAL_DEMO_API_KEY) and writes stack.json',
    async () => {
      first = await startRuntime({ LOCAL_DEMO_API_KEY: fixedKey });
      expect(first.apiKey).toBe(fixedKey);
      expect(first.stack).toMatchObject({
        table_name: expect.any(String),
        demo: { dc_id: 'dc-1', driver_id: 'driver-1' },
      });
      const dcs = await call(first.apiUrl, 'GET', '/dcs', { key: first.apiKey });
      expect(dcs.body).toEqual({
        status: 'success',
        data: { dcs: [{ id: 'dc-1', name: 'Demo DC', time_zone: 'America/Chicago' }] },
      });
      const drivers = await call(first.apiUrl, 'GET', '/dcs/dc-1/drivers', { key: first.apiKey });
      expect(drivers.body.data).toMatchObject({ drivers: [{ id: 'driver-1' }] });
      const created = await call(first.apiUrl, 'POST', '/dcs/dc-1/drivers', {
        key: first.apiKey,
        body: { driver_id: 'kept', driver_name: 'Kept' },
      });
      expect(created.status).toBe(200);
    },
    STARTING_TEST_TIMEOUT_MS,
  );

  it('stops every child process on Ctrl-C and removes stack.json', async () => {
    await stop(first);
    expect(await portAnswers(first.stack.dynamodb_endpoint)).toBe(false);
    expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
  });

  it(
    'keeps data across restarts, and a restart without a fixed key prints a new key and revokes the old one',
    async () => {
      const second = await startRuntime({ LOCAL_DEMO_API_KEY: '' });
      try {
        expect(second.apiKey).not.toBe(fixedKey);
        const kept = await call(second.apiUrl, 'GET', '/dcs/dc-1/drivers/kept', { key: second.apiKey });
        expect(kept.body.data).toMatchObject({ driver: { id: 'kept', name: 'Kept' } });
        expectError(await call(second.apiUrl, 'GET', '/dcs', { key: fixedKey }), 401, 1001);
      } finally {
        await stop(second);
      }
    },
    STARTING_TEST_TIMEOUT_MS,
  );

  it('refuses to start with a LOCAL_CONSUMER_CONCURRENCY that is not a whole number of at least 1', async () => {
    const child = spawnRuntime({ LOCAL_CONSUMER_CONCURRENCY: '0' });
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("LOCAL_CONSUMER_CONCURRENCY must be a whole number of at least 1, not '0'");
    expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
  });
});
