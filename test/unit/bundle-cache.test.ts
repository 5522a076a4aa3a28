import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedBundles } from '../../local/lambda/bundles';
import { fixtureFunction } from '../support/lambda-fixtures';

/** A fixture entry of its own (the cache is keyed by entries), removed afterwards. */
const ENTRY = `test/fixtures/lambda/cache-probe-${randomBytes(4).toString('hex')}.ts`;
const source = (answer: string) => `export const handler = async () => '${answer}';\n`;
writeFileSync(ENTRY, source('first'));
let cacheDir: string | undefined;
afterAll(() => {
  rmSync(ENTRY, { force: true });
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
});

const probe = fixtureFunction('cache-probe', ENTRY, {
  logicalId: 'CacheProbe',
  stackPath: 'BundleCacheTest',
});

describe('cached bundles', () => {
  const bundleOf = async () => (await cachedBundles([probe])).get(ENTRY) as string;

  it('reuses a build while no input changed, and rebuilds when one did', async () => {
    const first = await bundleOf();
    cacheDir = dirname(first);
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
});
