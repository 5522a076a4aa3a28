import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { getDocsAsset } from '../../functions/api/docs/index';
import { endpoints } from '../../functions/api/index';
import * as channels from '../../functions/models/channels';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { ERROR_MEANINGS } from '../../functions/shared/error-meanings';
import { consumers } from '../../functions/workers/index';
import {
  BUNDLE_ALIASES,
  bundleDefine,
  CJS_REQUIRE_BANNER,
  ENTRY_FILE,
  EXTERNAL_MODULES,
  LAMBDA_ESBUILD_OPTIONS,
  REPO_ROOT,
} from '../../lib/bundling';
import { ServiceFunction } from '../../lib/constructs/service-function';
import { sliceOf } from '../../lib/slices';
import { buildBundles } from '../../local/lambda/bundles';
import { fixtureFunction } from '../support/lambda-fixtures';

/** Each slice's asset, built once for the file: the tests only read it (a build is about a second of esbuild). */
const builtAssets = new Map<string, string>();

/** The one asset directory of a stack with one function, bundled for real as `cdk synth` does. */
function assetOf(sliceName: string, props: { xraySdk?: boolean } = {}): string {
  const key = `${sliceName} ${props.xraySdk === true}`;
  const built = builtAssets.get(key) ?? bundledAsset(sliceName, props);
  builtAssets.set(key, built);
  return built;
}

function bundledAsset(sliceName: string, props: { xraySdk?: boolean }): string {
  const row = [...endpoints, ...consumers].find((e) => sliceOf(e.module).name === sliceName);
  if (!row) throw new Error(`no endpoint or consumer in slice ${sliceName}`);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': ['**'] } });
  const stack = new Stack(app, 'BundledFunction');
  new ServiceFunction(stack, 'Fn', { slice: sliceOf(row.module), ...props });
  const { directory } = app.synth();
  const assets = readdirSync(directory).filter((name) => name.startsWith('asset.'));
  expect(assets).toHaveLength(1);
  return join(directory, assets[0] as string);
}

/** The asset's code files (index.mjs and its chunks), relative to the asset, outside node_modules/. */
const codeFiles = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.mjs') && !file.startsWith('node_modules'))
    .sort();

/** All the code of a function's asset: index.mjs and every chunk. */
function bundleOf(sliceName: string, props: { xraySdk?: boolean } = {}): string {
  const dir = assetOf(sliceName, props);
  return codeFiles(dir)
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

/** A minified ESM file's static imports of other files of the asset (`import{a}from"./x.mjs"`, `import"./x.mjs"`). */
const STATIC_IMPORT = /(?:from|import)\s*"(\.{1,2}\/[^"]+\.mjs)"/g;

/** `import("./x.mjs")` in a minified ESM file: a chunk loaded on first use. */
const DYNAMIC_IMPORT = /import\(\s*"(\.{1,2}\/[^"]+\.mjs)"\s*\)/g;

/** The asset's files that index.mjs reaches through `imports`, transitively: itself included. */
function filesReached(dir: string, imports: RegExp[]): string[] {
  const loaded = new Set<string>();
  const load = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    const code = readFileSync(join(dir, file), 'utf8');
    for (const pattern of imports)
      for (const [, path] of code.matchAll(pattern))
        load(relative(dir, join(dir, dirname(file), path as string)));
  };
  load(ENTRY_FILE);
  return [...loaded].sort();
}

/** What a cold start loads: index.mjs and the chunks it imports statically. */
const coldStartFiles = (dir: string) => filesReached(dir, [STATIC_IMPORT]);

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

  it('makes one asset with the ESM bundle and a source map beside each of its files', () => {
    expect(assetDirs).toHaveLength(1);
    const [dir = ''] = assetDirs;
    expect(codeFiles(dir)).toContain(ENTRY_FILE);
    for (const file of codeFiles(dir)) {
      expect(existsSync(join(dir, `${file}.map`)), `${file}.map`).toBe(true);
      expect(readFileSync(join(dir, file), 'utf8')).toContain(CJS_REQUIRE_BANNER);
    }
  });

  it.each(getDocsAsset.bundledFiles)('ships %s under node_modules/, byte for byte', (file) => {
    const [dir = ''] = assetDirs;
    const shipped = join(dir, 'node_modules', file);
    expect(existsSync(shipped), shipped).toBe(true);
    expect(statSync(shipped).size).toBe(statSync(join('node_modules', file)).size);
  });

  it('bundles no AWS SDK client into a function that makes no AWS call', () => {
    const [dir = ''] = assetDirs;
    const bundle = codeFiles(dir)
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
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
 * carry either client; routes/import carries SQS's, and the analytics export worker S3's (the only one that
 * does: single-object requests go without it, functions/data/bucket.ts), which shows the check sees them.
 */
describe('bundling the AWS SDK', () => {
  it('leaves no module out of the bundles', () => {
    expect(EXTERNAL_MODULES).toEqual([]);
    expect(LAMBDA_ESBUILD_OPTIONS.external).toEqual([]);
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
    expect(accessOf('webhooks/test')).toMatchObject({ sendTo: [channels.deliveries] });
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

  it('bundles no KMS client into the driver app’s attempt, which checks a stop’s PIN against its hash only', () => {
    expect(accessOf('driver-app/attempt')?.stopPins).toBeUndefined();
    expect(hasClient(bundleOf('driver-app/attempt'), 'kms')).toBe(false);
  });

  it('bundles the SQS client, loaded on first use, and no S3 client into the function that writes to the bucket and the import queue', () => {
    expect(accessOf('routes/import')).toMatchObject({
      bucket: 'write',
      sendTo: [channels.imports, channels.importDeadlines],
    });
    const dir = assetOf('routes/import');
    const coldStart = coldStartFiles(dir);
    const lazy = codeFiles(dir).filter((file) => !coldStart.includes(file));
    const code = (files: string[]) => files.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    expect(code(codeFiles(dir))).not.toMatch(RUNTIME_SDK_IMPORT);
    expect(hasClient(code(coldStart), 'dynamodb')).toBe(true);
    expect(hasClient(code(coldStart), 'sqs')).toBe(false);
    expect(hasClient(code(lazy), 'sqs')).toBe(true);
    expect(hasClient(code(codeFiles(dir)), 's3')).toBe(false);
  });

  it('bundles no S3 client into the analytics export worker, whose multipart uploads go without it (functions/data/bucket-uploads.ts)', () => {
    expect(hasClient(bundleOf('workers/export-analytics'), 's3')).toBe(false);
  });

  /**
   * The S3 client's protocols (REST-XML; STS's query protocol for the link signer) name their Smithy trait
   * ids, strings minification keeps. esbuild gives a file to every entry that reaches it, and the SDK's index
   * files re-export these beside DynamoDB's JSON protocol: a function whose modules merely reach the bucket
   * module loads them at cold start, ~50 KB it never runs.
   */
  const S3_PROTOCOLS = ['"aws.protocols#restXml"', '"aws.protocols#awsQuery"'];
  const coldStartCode = (sliceName: string) => {
    const dir = assetOf(sliceName);
    return coldStartFiles(dir)
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
  };

  /**
   * The SDK's checksum stream picks its base class at load, and reading the global ReadableStream loads Node's
   * web streams (about 3 ms): minified, the choice reads as this.
   */
  const CHECKSUM_STREAM_BASE = 'ReadableStream=="function"?ReadableStream:function(){}';

  it.each(['routes/import', 'routes/evidence', 'workers/import-routes', 'workers/export-analytics'])(
    'loads neither S3’s protocol nor the checksum stream at cold start in %s, which reads or writes objects without the S3 client',
    (sliceName) => {
      const code = coldStartCode(sliceName);
      expect(code.includes(S3_PROTOCOLS[0] as string)).toBe(false);
      expect(code.includes(CHECKSUM_STREAM_BASE)).toBe(false);
    },
  );

  it.each(['routes/upload', 'routes/proofs', 'driver-app/proofs', 'analytics/download-files'])(
    'ships no S3 client in %s, which only signs links (SignatureV4, functions/data/bucket-links.ts), and loads only STS code at cold start',
    (sliceName) => {
      const access = accessOf(sliceName);
      expect(access?.signLinks).toBeDefined();
      expect(access?.bucket).toBeUndefined();
      expect(hasClient(bundleOf(sliceName), 's3')).toBe(false);
      // The link signer's STS client shares the SDK's index files with DynamoDB's: its query protocol is in
      // the cold start (see above), S3's REST-XML is not, nor the checksum streams that load web streams.
      const [restXml, awsQuery] = S3_PROTOCOLS as [string, string];
      const code = coldStartCode(sliceName);
      expect(code.includes(awsQuery)).toBe(true);
      expect(code.includes(restXml)).toBe(false);
      expect(code.includes(CHECKSUM_STREAM_BASE)).toBe(false);
    },
  );

  it('ships no S3 client in a function that reads and writes objects besides signing links', () => {
    expect(accessOf('routes/evidence')?.bucket).toBeDefined();
    expect(hasClient(bundleOf('routes/evidence'), 's3')).toBe(false);
  });

  it.each(['routes/import-status', 'routes/cancel-waypoint', 'analytics/request-download', 'drivers/get'])(
    'loads none of the S3 and STS protocols at cold start in %s, which never calls S3',
    (sliceName) => {
      const access = accessOf(sliceName);
      expect(access?.bucket).toBeUndefined();
      expect(access?.signLinks).toBeUndefined();
      const code = coldStartCode(sliceName);
      for (const protocol of S3_PROTOCOLS) expect(code.includes(protocol), protocol).toBe(false);
    },
  );

  it("loads the import's ending and the event catalog it writes by in the deadline worker on first use: its cold start reads only the check", () => {
    const dir = assetOf('workers/end-overdue-imports');
    const coldStart = coldStartFiles(dir);
    const lazy = codeFiles(dir).filter((file) => !coldStart.includes(file));
    const code = (files: string[]) => files.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    // Only an import's ending reads uploadExpired's message (route-import.ts) and the event catalog's schemas.
    const ending = 'no route body was uploaded before the upload link expired';
    for (const text of [ending, 'the imported route, in brief']) {
      expect(code(coldStart).includes(text), text).toBe(false);
      expect(code(lazy).includes(text), text).toBe(true);
    }
  });

  // readIdempotencyKey's message (functions/api/idempotency-key.ts), which only a request naming the header reads.
  const IDEMPOTENCY_KEY_MESSAGE = 'a Structured Field String, RFC 8941';

  it.each(['drivers/get', 'drivers/create'])(
    'loads the Idempotency-Key machinery in %s only with a request that names the header: its cold start reads none of it',
    (sliceName) => {
      const dir = assetOf(sliceName);
      const coldStart = coldStartFiles(dir);
      const code = (files: string[]) => files.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
      expect(code(coldStart).includes(IDEMPOTENCY_KEY_MESSAGE)).toBe(false);
      // Shipped in a chunk beside it (a read too: whether an endpoint takes a key is not known at build time).
      const lazy = codeFiles(dir).filter((file) => !coldStart.includes(file));
      expect(code(lazy).includes(IDEMPOTENCY_KEY_MESSAGE)).toBe(true);
    },
  );

  it('leaves what the error codes mean out of a function that answers with them (functions/shared/error-meanings.ts)', () => {
    const bundle = bundleOf('drivers/get');
    expect(bundle).toContain(`code:${ERROR_CODES.NOT_FOUND.code},httpStatus:404`);
    expect(bundle.includes(ERROR_MEANINGS.NOT_FOUND)).toBe(false);
    expect(bundle.includes(ERROR_MEANINGS.RATE_LIMITED)).toBe(false);
  });

  it('ships no chunk that its code never imports', () => {
    // esbuild makes a chunk for each `import()`, also in code that tree-shaking drops: the table-only
    // function's modules can reach the bucket and queue modules, which load their clients that way.
    const dir = assetOf('routes/import-status');
    expect(codeFiles(dir).length).toBeGreaterThan(1);
    expect(codeFiles(dir)).toEqual(filesReached(dir, [STATIC_IMPORT, DYNAMIC_IMPORT]));
  });

  it("takes the role's credentials from the environment, without the SDK's default credential chain", () => {
    expect(LAMBDA_ESBUILD_OPTIONS.alias).toEqual(BUNDLE_ALIASES);
    expect(BUNDLE_ALIASES).toEqual({
      '@aws-sdk/credential-provider-node': './functions/shared/env-credentials.ts',
      'node:process': './functions/shared/node-process.ts',
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

/** `import ... from "node:<name>"` in a minified ESM file: the built-in imported as an ES module. */
const esImportOf = (name: string) => new RegExp(`(?:from|import)\\s*"(?:node:)?${name}"`);

/**
 * Every function imports models/common.ts and uses a few of its schemas; its schema-building calls are marked
 * pure so that a bundle keeps only those (the module says why). Held here by running a bundle that imports one
 * constant and counting the zod schemas it builds (zod calls a global post-processor for each one it makes).
 */
describe('tree-shaking the common schemas', () => {
  const schemasBuiltImporting = (names: string) =>
    schemasBuiltBy(`import { ${names} } from './functions/models/common'; export const used = [${names}];`);

  it('builds none of them in a bundle that imports only a constant', () => {
    expect(schemasBuiltImporting('MAX_PAGE_ROWS')).toBe(0);
  });

  it('builds the ones a bundle uses', () => {
    // Id: the string and its refinement, and withMeta's copy.
    expect(schemasBuiltImporting('Id')).toBeGreaterThan(0);
    expect(schemasBuiltImporting('Id, Location')).toBeGreaterThan(schemasBuiltImporting('Id'));
  });
});

/**
 * The groups' schema modules and the models beside common.ts mark their schema-building calls pure too, with no
 * argument esbuild counts as an effect: a function builds only the schemas of theirs it uses. Held by a bundle
 * that imports each one and uses nothing of it.
 */
describe('tree-shaking the group schema modules', () => {
  it.each([
    'functions/api/analytics/schemas.ts',
    'functions/api/dcs/schemas.ts',
    'functions/api/driver-app/schemas.ts',
    'functions/api/routes/accounting-schemas.ts',
    'functions/api/routes/invoice-schemas.ts',
    'functions/api/routes/optimization-schemas.ts',
    'functions/api/routes/proof-schemas.ts',
    'functions/api/routes/schemas.ts',
    'functions/api/routes/waypoint-schemas.ts',
    'functions/api/tracking/schemas.ts',
    'functions/models/delivery-requirements.ts',
    'functions/models/geojson.ts',
    'functions/models/import-model.ts',
    'functions/models/recipient.ts',
  ])('%s: a bundle that uses none of its schemas builds none', (file) => {
    expect(schemasBuiltBy(`import './${file}';`)).toBe(0);
  });
});

/** The zod schemas a bundle of `contents` (at the repository's root) builds at import, counted by zod's post-processor. */
function schemasBuiltBy(contents: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'tree-shaking-'));
  try {
    buildSync({
      ...LAMBDA_ESBUILD_OPTIONS,
      // As a function's bundle is built: without the response schemas (functions/api/define.ts).
      define: bundleDefine({ xraySdk: false }),
      splitting: false,
      sourcemap: false,
      stdin: {
        contents,
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      outdir: dir,
    });
    const count = `let built = 0;
        globalThis.__zod_globalConfig = { postProcessor: () => { built++; } };
        await import(${JSON.stringify(join(dir, 'index.mjs'))});
        process.stdout.write(String(built));`;
    return Number(execFileSync(process.execPath, ['--input-type=module', '-e', count], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("bundling Node's built-in modules", () => {
  // Node builds an ES module's view of a built-in from every export's value, and some exports are getters
  // that load more for it (Node 22): node:http's WebSocket, CloseEvent and MessageEvent load undici, about
  // 45 ms of a cold start's CPU; node:process's report and finalization, about 6 ms, in every bundle with an SDK
  // client; node:net's BlockList and SocketAddress, about 1 ms, in every API function (the sign-in address
  // check) and the webhook ones (the SSRF guard).
  const sliceNames = {
    http: consumers.map((consumer) => sliceOf(consumer.module).name),
    process: ['drivers/get', 'routes/import', 'workers/deliver-webhooks'],
    net: ['drivers/get', 'webhooks/create', 'workers/deliver-webhooks'],
  };
  const checked = Object.entries(sliceNames).flatMap(([builtin, names]) =>
    names.map((name) => [builtin, name]),
  );
  it.each(checked)('imports node:%s as an ES module at no cold start of %s', (builtin, sliceName) => {
    const dir = assetOf(sliceName);
    const coldStart = coldStartFiles(dir).map((file) => readFileSync(join(dir, file), 'utf8'));
    expect(coldStart.join('\n').match(esImportOf(builtin))?.[0]).toBeUndefined();
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

/**
 * The local runtime builds many bundles at once (lib/bundling.ts's buildFunctionAssets, sharing esbuild's parse
 * between them); each must still be the asset a deploy builds alone.
 */
describe("the local runtime's bundles", () => {
  it('are the code of the deployed assets, byte for byte', async () => {
    const slices = [
      { name: 'routes/import', xraySdk: false },
      { name: 'routes/import-status', xraySdk: false },
      { name: 'dcs/list', xraySdk: true },
    ];
    const entryOf = (name: string) => {
      const row = endpoints.find((e) => sliceOf(e.module).name === name);
      return sliceOf(row?.module as string).repoEntry;
    };
    const out = mkdtempSync(join(tmpdir(), 'local-bundles-'));
    try {
      const bundles = await buildBundles(
        slices.map(({ name, xraySdk }) =>
          fixtureFunction(name.replace('/', '-'), entryOf(name), { define: bundleDefine({ xraySdk }) }),
        ),
        out,
      );
      for (const { name, xraySdk } of slices) {
        const deployed = assetOf(name, { xraySdk });
        const local = bundles.get(entryOf(name)) as string;
        expect(codeFiles(local)).toEqual(codeFiles(deployed));
        for (const file of codeFiles(deployed))
          expect(
            readFileSync(join(local, file)).equals(readFileSync(join(deployed, file))),
            `${name}: ${file}`,
          ).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
