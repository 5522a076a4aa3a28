import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { getDocsAsset } from '../../functions/endpoints/docs';
import { LAMBDA_BUNDLE } from '../../lib/bundling';
import { ServiceFunction } from '../../lib/constructs/service-function';

/**
 * Real bundling, as `cdk synth` does it, of the one function that ships files beside its bundle: the asset
 * must hold the ESM bundle, its source map and every declared file under node_modules/.
 */
describe('bundling a function with bundledFiles', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
  const stack = new Stack(app, 'BundlingTest');
  new ServiceFunction(stack, 'DocsAssetFunction', {
    handlerModule: getDocsAsset.handler,
    bundledFiles: getDocsAsset.bundledFiles,
  });
  const assembly = app.synth();
  const assetDirs = readdirSync(assembly.directory)
    .filter((name) => name.startsWith('asset.'))
    .map((name) => join(assembly.directory, name));

  it('makes one asset with the ESM bundle and its source map', () => {
    expect(assetDirs).toHaveLength(1);
    const [dir = ''] = assetDirs;
    expect(existsSync(join(dir, LAMBDA_BUNDLE.outputFile))).toBe(true);
    expect(existsSync(join(dir, `${LAMBDA_BUNDLE.outputFile}.map`))).toBe(true);
    expect(readFileSync(join(dir, LAMBDA_BUNDLE.outputFile), 'utf8')).toContain(LAMBDA_BUNDLE.banner);
  });

  it.each(getDocsAsset.bundledFiles)('ships %s under node_modules/, byte for byte', (file) => {
    const [dir = ''] = assetDirs;
    const shipped = join(dir, 'node_modules', file);
    expect(existsSync(shipped), shipped).toBe(true);
    expect(statSync(shipped).size).toBe(statSync(join('node_modules', file)).size);
  });

  it('refuses a bundled file that is not a plain path inside node_modules', () => {
    const other = new Stack(new App(), 'Refused');
    expect(
      () =>
        new ServiceFunction(other, 'Fn', {
          handlerModule: getDocsAsset.handler,
          bundledFiles: ['../etc/passwd'],
        }),
    ).toThrow(/bundledFiles/);
  });
});
