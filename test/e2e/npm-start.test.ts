import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_LOCAL_CACHE_DIR, snapshotCacheEntry } from '../../local/build-cache';
import { call, expectError } from '../support/http';
import {
  killStartedRuntimes,
  runUntilExit,
  STARTING_TEST_TIMEOUT_MS,
  type StartedRuntime,
  startRuntime,
  stopRuntime,
} from '../support/npm-start';

const stateDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
/** Bundles the first start finds missing from its cache. */
const UNBUILT = 3;
/**
 * The first start's cache: no synthesis, and the bundles the run's global setup built (the same cachedBundles,
 * test/support/global-setup.ts) but for UNBUILT of them. Building every bundle from nothing is that setup's
 * work in a fresh clone; here a first start synthesizes the app and builds what its cache lacks.
 */
const cacheDir = mkdtempSync(join(tmpdir(), 'npm-start-cache-'));
const bundleKeys = [...new Set(inject('bundles').map(([, bundle]) => basename(dirname(bundle))))].sort();
for (const key of bundleKeys.slice(UNBUILT))
  snapshotCacheEntry(join(DEFAULT_LOCAL_CACHE_DIR, 'bundles', key), cacheDir);
const BUILDING = /^building Lambda bundles: (\d+)\/(\d+)/gm;

function portAnswers(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => resolve(!!socket.destroy()));
    socket.once('error', () => resolve(false));
  });
}

afterAll(() => {
  killStartedRuntimes();
  for (const dir of [cacheDir, stateDir]) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});

describe('npm start', () => {
  const fixedKey = `drs_${randomBytes(24).toString('base64url')}`;
  let first: StartedRuntime;
  /** A route upload link the first run handed out, for the second run to take. */
  let uploadUrl: string;

  it(
    'serves the seeded demo account with the key it prints (LOCAL_DEMO_API_KEY) and writes stack.json',
    async () => {
      first = await startRuntime(stateDir, { LOCAL_DEMO_API_KEY: fixedKey, LOCAL_CACHE_DIR: cacheDir });
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
      // The SSRF guard is off by default locally: webhooks may target receivers on 127.0.0.1.
      const loopback = await call(first.apiUrl, 'POST', '/webhooks', {
        key: first.apiKey,
        body: { webhook_url: 'http://127.0.0.1:9/hooks', events: ['ROUTE_CREATED'], dc_ids: ['dc-1'] },
      });
      expect(loopback.status, loopback.text).toBe(200);
      const upload = await call(first.apiUrl, 'POST', '/dcs/dc-1/invoiced-routes/uploads', {
        key: first.apiKey,
      });
      expect(upload.status, upload.text).toBe(202);
      uploadUrl = (upload.body.data as { upload_url: string }).upload_url;
    },
    STARTING_TEST_TIMEOUT_MS,
  );

  it('prints its progress while a first start synthesizes the app and builds the bundles its cache lacks (n of N), before it listens', () => {
    const output = first.output();
    const progress = [...output.matchAll(BUILDING)].map(([, built, total]) => [Number(built), Number(total)]);
    const total = progress[0]?.[1] as number;
    expect(total).toBe(UNBUILT);
    expect(progress[0]).toEqual([0, total]);
    expect(progress.at(-1)).toEqual([total, total]);
    for (const [index, [built, lineTotal]] of progress.entries()) {
      expect(lineTotal).toBe(total);
      if (index > 0) expect(built).toBeGreaterThan(progress[index - 1]?.[0] as number);
    }
    expect(output).toMatch(
      new RegExp(`^building Lambda bundles: ${total}/${total}, done in \\d+\\.\\d s$`, 'm'),
    );
    const order = ['synthesizing the CDK app', 'building Lambda bundles: 0/', 'Route service listening on'];
    const at = order.map((text) => output.indexOf(text));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('stops every child process on Ctrl-C and removes stack.json', async () => {
    await stopRuntime(first);
    expect(await portAnswers(first.stack.dynamodb_endpoint)).toBe(false);
    expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
  });

  let second: StartedRuntime;

  it(
    'keeps data across restarts, and a restart without a fixed key prints a new key and revokes the old one',
    async () => {
      second = await startRuntime(stateDir, {
        LOCAL_DEMO_API_KEY: '',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
        LOCAL_CACHE_DIR: cacheDir,
      });
      expect(second.apiKey).not.toBe(fixedKey);
      const kept = await call(second.apiUrl, 'GET', '/dcs/dc-1/drivers/kept', { key: second.apiKey });
      expect(kept.body.data).toMatchObject({ driver: { id: 'kept', name: 'Kept' } });
      expectError(await call(second.apiUrl, 'GET', '/dcs', { key: fixedKey }), 401, 1001);
    },
    STARTING_TEST_TIMEOUT_MS,
  );

  it('keeps the sessions that signed links before the restart: a link handed out then still works', async () => {
    const body = JSON.stringify({ route: { id: 'kept-link', name: 'Kept link' } });
    const stored = await fetch(uploadUrl, { method: 'PUT', body });
    expect(stored.status, await stored.text()).toBe(200);
  });

  it('reuses the synthesized app and the bundles of the first start: nothing to build', () => {
    expect(second.output()).not.toContain('synthesizing the CDK app');
    expect(second.output()).not.toContain('building Lambda bundles');
  });

  it('turns the SSRF guard on with WEBHOOK_ALLOW_PRIVATE_TARGETS=false: a webhook to 127.0.0.1 is refused', async () => {
    try {
      const loopback = await call(second.apiUrl, 'POST', '/webhooks', {
        key: second.apiKey,
        body: { webhook_url: 'http://127.0.0.1:10/hooks', events: ['ROUTE_CREATED'], dc_ids: ['dc-1'] },
      });
      expect(expectError(loopback, 400, 4001)).toMatch(/^webhook_url has a blocked address as its host/);
    } finally {
      await stopRuntime(second);
    }
  });

  it('ends at once with one line naming PORT when the port is taken, and starts nothing', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const taken = (holder.address() as AddressInfo).port;
      const { code, stderr } = await runUntilExit(stateDir, {
        PORT: String(taken),
        LOCAL_CACHE_DIR: cacheDir,
      });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        `PORT ${taken} is in use (another npm start?): stop what holds it, or start with PORT set to a free port (PORT=0 takes any)`,
      ]);
      expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('refuses to start with a LOCAL_CONSUMER_CONCURRENCY that is not a whole number of at least 1', async () => {
    const { code, stderr } = await runUntilExit(stateDir, { LOCAL_CONSUMER_CONCURRENCY: '0' });
    expect(code).toBe(1);
    expect(stderr).toContain("LOCAL_CONSUMER_CONCURRENCY must be a whole number of at least 1, not '0'");
    expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
  });

  it('refuses to start with a WEBHOOK_ALLOW_PRIVATE_TARGETS other than true or false', async () => {
    const { code, stderr } = await runUntilExit(stateDir, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'no' });
    expect(code).toBe(1);
    expect(stderr).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false, not 'no'");
  });
});
