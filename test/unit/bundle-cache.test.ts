import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDefine } from '../../lib/bundling';
import { cachedBundles } from '../../local/lambda/bundles';
import { fixtureFunction } from '../support/lambda-fixtures';

/** Fixture entries of their own (the cache is keyed by entries), removed afterwards. */
const ENTRY = `test/fixtures/lambda/cache-probe-${randomBytes(4).toString('hex')}.ts`;
const source = (answer: string) => `export const handler = async () => '${answer}';\n`;
writeFileSync(ENTRY, source('first'));
/** A function that reads the service's build-time constants, as the import function does. */
const DEFINE_ENTRY = `test/fixtures/lambda/cache-define-probe-${randomBytes(4).toString('hex')}.ts`;
writeFileSync(
  DEFINE_ENTRY,
  "import { reservedIdProblem } from '../../../functions/models/path-ids';\n" +
    "export const handler = async () => reservedIdProblem('route_id', 'import-status');\n",
);
const cacheDirs: string[] = [];
afterAll(() => {
  rmSync(ENTRY, { force: true });
  rmSync(DEFINE_ENTRY, { force: true });
  for (const dir of cacheDirs) rmSync(dir, { recursive: true, force: true });
});

const probe = fixtureFunction('cache-probe', ENTRY, {
  logicalId: 'CacheProbe',
  stackPath: 'BundleCacheTest',
});

describe('cached bundles', () => {
  const bundleOf = async () => (await cachedBundles([probe])).get(ENTRY) as string;

  it('reuses a build while no input changed, and rebuilds when one did', async () => {
    const first = await bundleOf();
    cacheDirs.push(dirname(first));
    const built = statSync(join(first, 'index.mjs')).mtimeMs;
    expect(readFileSync(join(first, 'index.mjs'), 'utf8')).toContain('first');

    const again = await bundleOf();
    expect(again).toBe(first);
    expect(statSync(join(again, 'index.mjs')).mtimeMs).toBe(built);

    writeFileSync(ENTRY, source('second'));
    const rebuilt = await bundleOf();
    const code = readFileSync(join(rebuilt, 'index.mjs'), 'utf8');
    expect(code).toContain('second');
    expect(code).not.toContain('first');
  });

  it('builds and reuses a function with the service’s build-time constants, which reach its code', async () => {
    const withConstants = fixtureFunction('cache-define-probe', DEFINE_ENTRY, {
      logicalId: 'CacheDefineProbe',
      stackPath: 'BundleCacheTest',
      define: bundleDefine({ xraySdk: false }),
    });
    const first = (await cachedBundles([withConstants])).get(DEFINE_ENTRY) as string;
    cacheDirs.push(dirname(first));
    expect((await cachedBundles([withConstants])).get(DEFINE_ENTRY)).toBe(first);
    const { handler } = (await import(join(first, 'index.mjs'))) as { handler: () => Promise<unknown> };
    expect(await handler()).toMatch(/^must not be 'import-status'/);
  });
});
