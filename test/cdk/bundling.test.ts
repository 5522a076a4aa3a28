import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { getDocsAsset } from '../../functions/api/docs/index';
import { endpoints } from '../../functions/api/index';
import { EXTERNAL_MODULES, LAMBDA_BUNDLE } from '../../lib/bundling';
import { ServiceFunction } from '../../lib/constructs/service-function';
import { sliceOf } from '../../lib/slices';

/** The one asset directory of a stack with one function, bundled for real as `cdk synth` does. */
function bundleOf(sliceName: string, props: { xraySdk?: boolean } = {}): string {
  const row = endpoints.find((e) => sliceOf(e.module).name === sliceName);
  if (!row) throw new Error(`no endpoint in slice ${sliceName}`);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
  const stack = new Stack(app, 'BundledFunction');
  new ServiceFunction(stack, 'Fn', { slice: sliceOf(row.module), ...props });
  const { directory } = app.synth();
  const assets = readdirSync(directory).filter((name) => name.startsWith('asset.'));
  expect(assets).toHaveLength(1);
  return readFileSync(join(directory, assets[0] as string, LAMBDA_BUNDLE.outputFile), 'utf8');
}

/**
 * Which AWS clients a minified bundle contains: each client's operation schemas name its Smithy namespace
 * (`com.amazonaws.s3`, ...), a string that minification keeps.
 */
const hasClient = (bundle: string, namespace: 'dynamodb' | 's3' | 'sqs' | 'kms') =>
  bundle.includes(`"com.amazonaws.${namespace}"`);

/** `import ... from "@aws-sdk/..."` or `import("@aws-sdk/...")` left in a bundle: the runtime's SDK. */
const RUNTIME_SDK_IMPORT = /(from\s*|import\s*\(\s*)["']@aws-sdk\//;

const accessOf = (sliceName: string) => endpoints.find((e) => sliceOf(e.module).name === sliceName)?.access;

/**
 * Real bundling, as `cdk synth` does it, of the one function that ships files beside its bundle: the asset
 * must hold the ESM bundle, its source map and every declared file under node_modules/.
 */
describe('bundling a function with bundledFiles', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
  const stack = new Stack(app, 'BundlingTest');
  new ServiceFunction(stack, 'DocsAssetFunction', {
    slice: sliceOf(getDocsAsset.module),
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

  it('bundles no AWS SDK client into a function that makes no AWS call', () => {
    const [dir = ''] = assetDirs;
    const bundle = readFileSync(join(dir, LAMBDA_BUNDLE.outputFile), 'utf8');
    for (const client of ['dynamodb', 's3', 'sqs'] as const) expect(hasClient(bundle, client)).toBe(false);
  });

  it('refuses a bundled file that is not a plain path inside node_modules', () => {
    const other = new Stack(new App(), 'Refused');
    expect(
      () =>
        new ServiceFunction(other, 'Fn', {
          slice: sliceOf(getDocsAsset.module),
          bundledFiles: ['../etc/passwd'],
        }),
    ).toThrow(/bundledFiles/);
  });
});

/**
 * The AWS SDK is bundled (nothing is left to the runtime's copy), and only the clients a function can use:
 * no S3 client without bucket access, no SQS client without a queue to send to. routes/import-status shares
 * its domain module's file with the import (which writes the payload to S3 and queues it) and must not
 * carry either client; routes/import carries both, which shows the check sees them.
 */
describe('bundling the AWS SDK', () => {
  it('leaves no module out of the bundles', () => {
    expect(EXTERNAL_MODULES).toEqual([]);
    expect(LAMBDA_BUNDLE.external).toEqual([]);
  });

  it('bundles the DynamoDB client, but neither S3 nor SQS, into a function with table access only', () => {
    expect(accessOf('routes/import-status')).toEqual({ table: 'read' });
    const bundle = bundleOf('routes/import-status');
    expect(bundle).not.toMatch(RUNTIME_SDK_IMPORT);
    expect(hasClient(bundle, 'dynamodb')).toBe(true);
    expect(hasClient(bundle, 's3')).toBe(false);
    expect(hasClient(bundle, 'sqs')).toBe(false);
  });

  it('bundles the SQS client, but not S3, into a function that sends to a queue without bucket access', () => {
    expect(accessOf('webhooks/test')).toMatchObject({ sendTo: ['deliveries'] });
    expect(accessOf('webhooks/test')?.bucket).toBeUndefined();
    const bundle = bundleOf('webhooks/test');
    expect(bundle).not.toMatch(RUNTIME_SDK_IMPORT);
    expect(hasClient(bundle, 'sqs')).toBe(true);
    expect(hasClient(bundle, 's3')).toBe(false);
    // It reads the webhook (sealed secret included) but never opens a secret: no KMS client.
    expect(accessOf('webhooks/test')?.webhookSecrets).toBeUndefined();
    expect(hasClient(bundle, 'kms')).toBe(false);
  });

  it('bundles the KMS client into the function that makes webhook secrets', () => {
    expect(accessOf('webhooks/create')).toMatchObject({ webhookSecrets: 'encrypt' });
    const bundle = bundleOf('webhooks/create');
    expect(bundle).not.toMatch(RUNTIME_SDK_IMPORT);
    expect(hasClient(bundle, 'kms')).toBe(true);
  });

  it('bundles the S3 and SQS clients into the function that writes to the bucket and the import queue', () => {
    expect(accessOf('routes/import')).toMatchObject({ bucket: 'write', sendTo: ['imports'] });
    const bundle = bundleOf('routes/import');
    expect(bundle).not.toMatch(RUNTIME_SDK_IMPORT);
    for (const client of ['dynamodb', 's3', 'sqs'] as const) expect(hasClient(bundle, client)).toBe(true);
  });

  it("takes the role's credentials from the environment, without the SDK's default credential chain", () => {
    expect(LAMBDA_BUNDLE.alias).toEqual({
      '@aws-sdk/credential-provider-node': './functions/shared/env-credentials.ts',
    });
    const bundle = bundleOf('routes/import-status');
    expect(bundle).toContain('Unable to find environment variable credentials.');
    // The chain's other sources and the STS and SSO clients they bring.
    for (const text of [
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      '"com.amazonaws.sts"',
      '"com.amazonaws.sso"',
    ])
      expect(bundle).not.toContain(text);
  });
});

/**
 * The X-Ray SDK (Powertools Tracer, cls-hooked, semver) is in a bundle only where the function asks for it:
 * without it, the import is dead code that esbuild drops, so the SDK is not even parsed at a cold start.
 * The SDK reads AWS_XRAY_DAEMON_ADDRESS, a string minification keeps.
 */
describe('bundling the X-Ray SDK', () => {
  const XRAY_SDK = 'AWS_XRAY_DAEMON_ADDRESS';

  it('leaves it out of a function by default', () => {
    expect(bundleOf('dcs/list')).not.toContain(XRAY_SDK);
  });

  it('bundles it into a function with xraySdk', () => {
    expect(bundleOf('dcs/list', { xraySdk: true })).toContain(XRAY_SDK);
  });
});
