import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../../local/cloud/model';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import { cachedBundles } from '../../local/lambda/bundles';

/** A fixture entry of its own (the cache is keyed by entries), removed afterwards. */
const ENTRY = `test/fixtures/lambda/cache-probe-${randomBytes(4).toString('hex')}.ts`;
const source = (answer: string) => `export const handler = async () => '${answer}';\n`;
writeFileSync(ENTRY, source('first'));
let cacheDir: string | undefined;
afterAll(() => {
  rmSync(ENTRY, { force: true });
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
});

const probe: FunctionSpec = {
  logicalId: 'CacheProbe',
  stackPath: 'BundleCacheTest',
  name: 'cache-probe',
  arn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:cache-probe`,
  entry: ENTRY,
  bundledFiles: [],
  handler: 'index.handler',
  runtime: 'nodejs22.x',
  architectures: ['arm64'],
  memorySize: 128,
  timeoutSeconds: 3,
  environment: {},
  roleArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/cache-probe`,
};

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
