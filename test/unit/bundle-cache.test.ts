import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDefine } from '../../lib/bundling';
import { snapshotCacheEntry } from '../../local/build-cache';
import { cachedBundles } from '../../local/lambda/bundles';
import { fixtureFunction } from '../support/lambda-fixtures';

/** Fixture entries of their own, removed afterwards, and a cache of their own. */
const suffix = randomBytes(4).toString('hex');
const EDITED = `test/fixtures/lambda/cache-probe-${suffix}.ts`;
const KEPT = `test/fixtures/lambda/cache-kept-${suffix}.ts`;
const source = (answer: string) => `export const handler = async () => '${answer}';\n`;
writeFileSync(EDITED, source('first'));
writeFileSync(KEPT, source('kept'));
/** A function that reads the service's build-time constants, as the import function does. */
const DEFINE_ENTRY = `test/fixtures/lambda/cache-define-probe-${suffix}.ts`;
writeFileSync(
  DEFINE_ENTRY,
  "import { reservedIdProblem } from '../../../functions/models/path-ids';\n" +
    "export const handler = async () => reservedIdProblem('route_id', 'import-status');\n",
);
const cacheDir = mkdtempSync(join(tmpdir(), 'bundle-cache-test-'));
/** Where a test run's snapshot of its bundles goes: beside the cache, as the global setup's. */
const snapshotRoot = mkdtempSync(join(tmpdir(), 'bundle-cache-snapshot-'));
afterAll(() => {
  rmSync(snapshotRoot, { recursive: true, force: true });
  rmSync(EDITED, { force: true });
  rmSync(KEPT, { force: true });
  rmSync(DEFINE_ENTRY, { force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

const functions = [
  fixtureFunction('cache-probe', EDITED, { logicalId: 'CacheProbe', stackPath: 'BundleCacheTest' }),
  fixtureFunction('cache-kept', KEPT, { logicalId: 'CacheKept', stackPath: 'BundleCacheTest' }),
];

describe('cached bundles', () => {
  const bundles = async () => {
    const progress: string[] = [];
    const dirs = await cachedBundles(functions, {
      cacheDir,
      onProgress: (built, total) => progress.push(`${built}/${total}`),
    });
    return { edited: dirs.get(EDITED) as string, kept: dirs.get(KEPT) as string, progress };
  };
  const built = (dir: string) => statSync(join(dir, 'index.mjs')).mtimeMs;
  const code = (dir: string) => readFileSync(join(dir, 'index.mjs'), 'utf8');

  it('reuses each bundle while no input of it changed, and rebuilds only those whose input did', async () => {
    const first = await bundles();
    expect(first.progress).toEqual(['0/2', '1/2', '2/2']);
    expect(code(first.edited)).toContain('first');
    expect(code(first.kept)).toContain('kept');
    const builtAt = { edited: built(first.edited), kept: built(first.kept) };
    // A test run's snapshot, at the same depth (the relative paths of its source maps stay right).
    const snapshot = snapshotCacheEntry(first.edited, snapshotRoot);
    expect(snapshot.split('/').length).toBe(first.edited.split('/').length);

    const again = await bundles();
    expect(again.progress).toEqual([]);
    expect(again).toMatchObject({ edited: first.edited, kept: first.kept });
    expect(built(again.edited)).toBe(builtAt.edited);

    writeFileSync(EDITED, source('second'));
    const rebuilt = await bundles();
    expect(rebuilt.progress).toEqual(['0/1', '1/1']);
    expect(code(rebuilt.edited)).toContain('second');
    expect(code(rebuilt.edited)).not.toContain('first');
    // The rebuild replaced the cache entry; the snapshot taken before keeps what it was.
    expect(code(snapshot)).toContain('first');
    expect(rebuilt.kept).toBe(first.kept);
    expect(built(rebuilt.kept)).toBe(builtAt.kept);
  });

  it('builds and reuses a function with the service’s build-time constants, which reach its code', async () => {
    const withConstants = fixtureFunction('cache-define-probe', DEFINE_ENTRY, {
      logicalId: 'CacheDefineProbe',
      stackPath: 'BundleCacheTest',
      define: bundleDefine({ xraySdk: false }),
    });
    const first = (await cachedBundles([withConstants], { cacheDir })).get(DEFINE_ENTRY) as string;
    expect((await cachedBundles([withConstants], { cacheDir })).get(DEFINE_ENTRY)).toBe(first);
    const { handler } = (await import(join(first, 'index.mjs'))) as { handler: () => Promise<unknown> };
    expect(await handler()).toMatch(/^must not be 'import-status'/);
  });
});
