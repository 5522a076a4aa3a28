import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildContext, type BuildOptions, build, buildSync, context, type Metafile } from 'esbuild';
import { endpoints } from '../functions/api/index';
import { RESERVED_IDS_CONSTANT, reservedIdsOf } from '../functions/models/path-ids';

/**
 * How every Lambda asset is built: one esbuild run per function, ESM, minified and tree-shaken, AWS SDK
 * clients included, a source map beside each file. The function's construct (lib/constructs/service-function.ts),
 * the local runtime (local/lambda/bundles.ts, many at once with buildFunctionAssets) and the bundle benchmark
 * (bench/bundles.ts) all build with functionBuildOptions, so the benchmark and the tests run what a deploy ships.
 */

/** The repository root: entries are relative to it, esbuild runs in it, bundled files come from its node_modules. */
export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The asset's entry file; the function's handler is `index.handler`. */
export const ENTRY_FILE = 'index.mjs';
export const HANDLER = 'index.handler';

/** Bundles are ESM; CommonJS dependencies inside them still call `require`, so give them one. */
export const CJS_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Left out of every bundle: nothing. In particular not the AWS SDK v3 that the nodejs22.x runtime ships
 * (CDK's NodejsFunction leaves `@aws-sdk/*` out by default): loaded from the runtime's node_modules, its
 * CommonJS builds cost 110-130 ms of every cold start, while the ESM builds of the clients a function uses,
 * tree-shaken and minified into its bundle, initialise in about half that (bench/bundles.ts measures it).
 * Bundling also pins the SDK version: a function runs the package-lock's SDK, the one the tests ran, not
 * whichever one the runtime ships that day.
 */
export const EXTERNAL_MODULES: readonly string[] = [];

/**
 * Modules bundled in place of others (esbuild's `alias`; the replacement is relative to the repository root).
 * `@aws-sdk/credential-provider-node`, the SDK's default credential chain that every client's runtime config
 * imports, becomes functions/shared/env-credentials.ts: Lambda gives a function its role's credentials in
 * environment variables, and the chain's other sources (SSO, shared config files, credential processes, web
 * identity, container and instance metadata, with the STS and SSO clients they use) are about 130 KB that every
 * cold start parsed and no invocation ran: 10-15% of an API function's module init (bench/bundles.ts).
 * `node:process` becomes functions/shared/node-process.ts, the global process: imported as an ES module, the
 * built-in loads more at every cold start (about 6 ms of CPU; the module says why).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './functions/shared/env-credentials.ts',
  'node:process': './functions/shared/node-process.ts',
};

/**
 * The esbuild options of every function's asset; functionBuildOptions adds the entry, the output directory
 * and the build-time constants.
 *
 * Code splitting: what the code loads with `import()` on first use (the S3, SQS, KMS and STS clients, the
 * SDK's own lazy parts) goes into files under chunks/ that a cold start does not read. In one file, esbuild
 * has to keep every such module, and every module it imports, as a lazily run closure that it cannot
 * tree-shake: a function that may use S3 carried the whole S3 client (every command, about 45 KB), and the
 * SDK core of every function was wrapped the same way, because the SDK itself loads a part with `import()`.
 * Split, a cold start of routes/import reads 400 KB instead of 605 KB, and its module init went from 90 to
 * 74 ms (median of 7 fresh processes each, alternating).
 */
export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  /** Prefer packages' ESM builds: they tree-shake, their CommonJS builds do not. */
  mainFields: ['module', 'main'],
  minify: true,
  splitting: true,
  entryNames: 'index',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  /**
   * A source map beside each file (index.mjs.map), for decoding a minified stack trace from the logs. Node
   * does not read it: NODE_OPTIONS has no --enable-source-maps (SOURCE_MAPS_NODE_OPTION), which would parse the
   * map at every cold start. The map costs the asset's size, not init time.
   */
  sourcemap: true,
  /** The map points at the sources instead of embedding them: smaller artefact, same stack traces. */
  sourcesContent: false,
  external: [...EXTERNAL_MODULES],
  alias: { ...BUNDLE_ALIASES },
  banner: { js: CJS_REQUIRE_BANNER },
  absWorkingDir: REPO_ROOT,
  logLevel: 'error',
} as const satisfies BuildOptions;

/** What a function's asset is built from. */
export interface FunctionAsset {
  /** The handler's source file, relative to the repository root. */
  entry: string;
  /** The build-time constants esbuild replaces (see bundleDefine). */
  define: Readonly<Record<string, string>>;
  /** Files copied from the repository's node_modules into the asset's node_modules (see checkBundledFiles). */
  bundledFiles: readonly string[];
}

/** esbuild's options for one function's asset in `outdir` (add `metafile: true` to see what went in). */
export function functionBuildOptions(
  asset: Pick<FunctionAsset, 'entry' | 'define'>,
  outdir: string,
): BuildOptions {
  return { ...LAMBDA_ESBUILD_OPTIONS, entryPoints: [asset.entry], outdir, define: { ...asset.define } };
}

/** Builds a function's asset into `outdir`, synchronously (CDK's local bundling cannot wait for a promise). */
export function buildFunctionAssetSync(asset: FunctionAsset, outdir: string): void {
  completeAsset(
    buildSync({ ...functionBuildOptions(asset, outdir), metafile: true }).metafile,
    asset,
    outdir,
  );
}

/**
 * Builds a function's asset into `outdir`. The metafile says which files esbuild read and, after
 * removeUnreachableFiles, what the asset holds.
 */
export async function buildFunctionAsset(asset: FunctionAsset, outdir: string): Promise<Metafile> {
  const { metafile } = await build({ ...functionBuildOptions(asset, outdir), metafile: true });
  return completeAsset(metafile, asset, outdir);
}

/** What a build leaves to do: delete the chunks nothing imports, copy the shipped files. */
function completeAsset(metafile: Metafile, asset: FunctionAsset, outdir: string): Metafile {
  removeUnreachableFiles(metafile, outdir);
  shipBundledFiles(asset.bundledFiles, outdir);
  return metafile;
}

/**
 * Builds many functions' assets, each exactly as buildFunctionAsset builds it alone (the same code files, byte
 * for byte: one esbuild build per asset, its chunks its own), in a fraction of the time: a few esbuild contexts
 * build them one after another, and a context parses a module once for all the assets it builds (esbuild's
 * incremental rebuilds keep each file's parse while its content is the same). The AWS SDK, Powertools and
 * functions/shared/ are most of every bundle's input: the API functions took 22 s of esbuild's CPU this way
 * against 34 s as separate builds. Builds run `concurrency` at a time (default: the machine's cores). `onBuilt`
 * is called after each asset.
 */
export async function buildFunctionAssets(
  assets: readonly (FunctionAsset & { outdir: string })[],
  options: { concurrency?: number; onBuilt?: (built: number, total: number) => void } = {},
): Promise<Metafile[]> {
  const metafiles: Metafile[] = new Array(assets.length);
  const builders: AssetBuilder[] = [];
  let next = 0;
  let built = 0;
  // Each worker keeps a builder per kind of build (constants, and where outputs go) and takes the next asset.
  const work = async () => {
    const mine = new Map<string, AssetBuilder>();
    for (let index = next++; index < assets.length; index = next++) {
      const asset = assets[index] as FunctionAsset & { outdir: string };
      const kind = JSON.stringify([asset.define, dirname(resolve(asset.outdir))]);
      let builder = mine.get(kind);
      if (!builder) {
        builder = await assetBuilder(asset.define, dirname(resolve(asset.outdir)));
        mine.set(kind, builder);
        builders.push(builder);
      }
      metafiles[index] = await builder.build(asset, asset.outdir);
      options.onBuilt?.(++built, assets.length);
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? availableParallelism(), assets.length));
  try {
    await Promise.all(Array.from({ length: concurrency }, work));
  } finally {
    await Promise.all(builders.map((builder) => builder.dispose()));
  }
  return metafiles;
}

interface AssetBuilder {
  build(asset: FunctionAsset, outdir: string): Promise<Metafile>;
  dispose(): Promise<void>;
}

/** The entry of an AssetBuilder's context, resolved to the asset being built. */
const CURRENT_ENTRY = 'delivery-routes:current-entry';

/**
 * An esbuild context that builds one asset at a time, with `define`, into directories under `parent`. esbuild
 * writes nothing: the outputs are laid out under a name beside the assets' directories, so that every path in
 * them (source maps are relative to their file) is the one a build straight into the asset's directory makes,
 * and the files are written to that directory as buildFunctionAsset leaves them.
 */
async function assetBuilder(define: Readonly<Record<string, string>>, parent: string): Promise<AssetBuilder> {
  const layout = join(parent, '.esbuild-layout');
  let entry = '';
  const esbuild: BuildContext = await context({
    ...functionBuildOptions({ entry: CURRENT_ENTRY, define }, layout),
    metafile: true,
    write: false,
    plugins: [
      {
        name: 'current-entry',
        setup: (plugin) =>
          plugin.onResolve({ filter: new RegExp(`^${CURRENT_ENTRY}$`) }, () => ({
            path: resolve(REPO_ROOT, entry),
          })),
      },
    ],
  });
  return {
    async build(asset, outdir) {
      entry = asset.entry;
      const { metafile, outputFiles } = await esbuild.rebuild();
      if (!metafile || !outputFiles) throw new Error(`esbuild returned no outputs for ${asset.entry}`);
      // The layout's keys, moved to the asset's directory; only what the entry reaches is written (as
      // removeUnreachableFiles leaves a build).
      const layoutKey = relative(REPO_ROOT, layout).split(sep).join('/');
      const assetKey = relative(REPO_ROOT, resolve(outdir)).split(sep).join('/');
      const moved = (key: string) => `${assetKey}${key.slice(layoutKey.length)}`;
      const outputs: Metafile['outputs'] = {};
      for (const [key, output] of Object.entries(metafile.outputs)) {
        const imports = output.imports.map((item) =>
          item.external ? item : { ...item, path: moved(item.path) },
        );
        outputs[moved(key)] = { ...output, imports };
      }
      const reached = reachableOutputs(outputs, outdir);
      const kept = (key: string) => reached.has(codeFileOf(key));
      for (const file of outputFiles) {
        const key = moved(relative(REPO_ROOT, file.path).split(sep).join('/'));
        if (!kept(key)) continue;
        const target = resolve(REPO_ROOT, key);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, file.contents);
      }
      for (const key of Object.keys(outputs)) if (!kept(key)) delete outputs[key];
      shipBundledFiles(asset.bundledFiles, outdir);
      return { inputs: metafile.inputs, outputs };
    },
    dispose: () => esbuild.dispose(),
  };
}

/** The metafile's key of the asset's entry file in `outdir` (keys are relative to REPO_ROOT). */
export const entryOutputKey = (outdir: string) =>
  relative(REPO_ROOT, resolve(outdir, ENTRY_FILE)).split(sep).join('/');

/**
 * Deletes the chunks that no code of the asset imports, and their maps. esbuild makes a chunk for every
 * `import()` it sees, also in code that tree-shaking then drops: a function that reads the table only would
 * otherwise ship the S3, SQS and STS clients that the bucket and queue modules load on first use. What is
 * left is what the entry reaches by its static and dynamic imports. `metafile` then lists only that.
 */
function removeUnreachableFiles(metafile: Metafile, outdir: string): void {
  const reached = reachableOutputs(metafile.outputs, outdir);
  for (const key of Object.keys(metafile.outputs)) {
    if (reached.has(codeFileOf(key))) continue;
    rmSync(resolve(REPO_ROOT, key), { force: true });
    delete metafile.outputs[key];
  }
}

/** A source map's code file (`x.mjs.map` -> `x.mjs`); a code file itself. */
const codeFileOf = (key: string) => (key.endsWith('.map') ? key.slice(0, -'.map'.length) : key);

/** The metafile keys of the code files that the asset's entry file in `outdir` reaches by its imports. */
function reachableOutputs(outputs: Metafile['outputs'], outdir: string): Set<string> {
  const entry = entryOutputKey(outdir);
  if (!(entry in outputs)) throw new Error(`esbuild wrote no ${entry}`);
  const reached = new Set<string>();
  const reach = (key: string) => {
    if (reached.has(key)) return;
    reached.add(key);
    for (const imported of outputs[key]?.imports ?? [])
      if (!imported.external && imported.path in outputs) reach(imported.path);
  };
  reach(entry);
  return reached;
}

const NODE_MODULE_FILE = /^(@[\w.-]+\/)?[\w.-]+(\/[\w.-]+)+$/;

/** Refuses a bundled file that is not a plain path inside a package under node_modules. */
export function checkBundledFiles(files: readonly string[]): void {
  for (const file of files) {
    if (!NODE_MODULE_FILE.test(file) || file.split('/').includes('..'))
      throw new Error(`bundledFiles: '${file}' is not a plain path inside a package under node_modules`);
  }
}

/** Copies `files` from the repository's node_modules into `<outdir>/node_modules`, as the asset ships them. */
function shipBundledFiles(files: readonly string[], outdir: string): void {
  checkBundledFiles(files);
  const nodeModules = join(outdir, 'node_modules');
  for (const file of files) {
    const target = resolve(nodeModules, file);
    if (!target.startsWith(nodeModules + sep)) throw new Error(`bundledFiles: '${file}' leaves node_modules`);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'node_modules', file), target);
  }
}

/**
 * The node flag that makes stack traces point into the sources through the bundle's map. Not set on deployed
 * functions: on Node 20 it adds 15-30 ms to each function's module init (reading and parsing a map of
 * 0.5-1.3 MB), more than the whole init budget's margin. Add it to a function's `nodeOptions` to debug.
 */
export const SOURCE_MAPS_NODE_OPTION = '--enable-source-maps';

/**
 * The build-time constant that says whether a bundle contains the X-Ray SDK (Powertools Tracer, with
 * cls-hooked and semver: about 115 KB, 20-35 ms of module init). esbuild replaces the identifier with
 * `true` or `false` (`define`), and with `false` the branch that imports the tracer is dead code: the SDK is
 * not in the bundle at all, so it is neither parsed nor run. Unbundled code (tsx, the tests) has no
 * constant, and loads the tracer where the environment asks for tracing (functions/shared/observability.ts).
 * Which functions bundle it: the `xraySdkTracing` context value (lib/delivery-routes.ts).
 */
export const XRAY_SDK_CONSTANT = 'XRAY_SDK_BUNDLED';

/**
 * Which functions bundle (and, on Lambda, load) the X-Ray SDK, whose subsegments trace each AWS call and
 * annotate the handler's segment with the account and operation. Lambda's active tracing records every
 * function's initialisation and invocation segments without it, API requests also have API Gateway's, and
 * the logs carry the account, the operation and the ids of every invocation.
 * - `none` (the default): no function. The SDK (with cls-hooked and semver, and the Node modules it loads:
 *   dgram, async_hooks) took a queue consumer's cold start from about 1.8 to 2.5 times the bundles bench's
 *   floor, the largest single cost a consumer had (bench/bundles.ts);
 * - `consumers`: the queue consumers, where a cold start delays no caller, for subsegments of their calls;
 * - `all`: every function, at 20-35 ms more of each API cold start.
 */
export type XraySdkTracing = 'none' | 'consumers' | 'all';
export const XRAY_SDK_TRACING_VALUES: readonly XraySdkTracing[] = ['none', 'consumers', 'all'];
export const XRAY_SDK_TRACING_DEFAULT: XraySdkTracing = 'none';

/** Whether a function of this kind bundles the X-Ray SDK under the setting. */
export function bundlesXraySdk(setting: XraySdkTracing, kind: 'api' | 'consumer'): boolean {
  return setting === 'all' || (setting === 'consumers' && kind === 'consumer');
}

/**
 * The ids clients may not choose because a fixed segment of the endpoint list's paths sits where they would
 * go (functions/models/path-ids.ts): every bundle gets the same, from the same list CDK makes the API of,
 * so a fixed segment added to a path is refused as an id by the next build. Their JSON as a string literal
 * (a `define` value is JavaScript): an object would be a virtual module of esbuild's, `<define:…>`, among a
 * build's inputs, where the local bundle cache looks for files.
 */
const RESERVED_IDS_DEFINE = JSON.stringify(
  JSON.stringify(reservedIdsOf(endpoints.map((endpoint) => endpoint.path))),
);

/**
 * The build-time constant that says whether a bundle keeps the endpoints' response schemas
 * (functions/api/define.ts, `import.meta.responseSchemas`): only the OpenAPI document reads them, so every
 * other function leaves them out, with the schemas only they use (about 40 per route read, over 100 in the
 * largest). Unbundled code (tsx, the tests, CDK) has no constant and keeps them.
 */
export const RESPONSE_SCHEMAS_CONSTANT = 'import.meta.responseSchemas';

/** The functions that read the response schemas at run time: the OpenAPI document's, which it builds from them. */
const RESPONSE_SCHEMA_ENTRIES: readonly string[] = ['functions/api/docs/openapi/handler.ts'];

/**
 * esbuild's `define` of a function's bundle (`entry`: its handler's source, relative to the repository): whether
 * it carries the X-Ray SDK, the reserved ids, and whether it keeps the response schemas (RESPONSE_SCHEMA_ENTRIES).
 */
export function bundleDefine(options: { xraySdk: boolean; entry?: string }): Record<string, string> {
  const responseSchemas = options.entry !== undefined && RESPONSE_SCHEMA_ENTRIES.includes(options.entry);
  return {
    [XRAY_SDK_CONSTANT]: JSON.stringify(options.xraySdk),
    [RESERVED_IDS_CONSTANT]: RESERVED_IDS_DEFINE,
    [RESPONSE_SCHEMAS_CONSTANT]: JSON.stringify(responseSchemas),
  };
}

/**
 * Template metadata key of every function: what its asset is built from (a FunctionAsset). CloudFormation only
 * sees the asset's S3 key; the local runtime reads this to build and run the same bundle. Ignored on deploy.
 */
export const BUNDLE_METADATA_KEY = 'DeliveryRoutes::Bundle';
