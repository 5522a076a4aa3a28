import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda bundle is built: one self-contained ESM file per function, minified and tree-shaken by
 * esbuild, AWS SDK clients included, with a source map beside it. CDK's NodejsFunction
 * (lib/constructs/service-function.ts), the local runtime (local/lambda/bundles.ts) and the bundle benchmark
 * (bench/bundles.ts) all read these settings, so the benchmark measures what a deploy ships.
 */

/** Bundles are ESM; CommonJS dependencies inside them still call `require`, so give them one. */
export const CJS_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Left out of every bundle: nothing. In particular not the AWS SDK v3 that the nodejs22.x runtime ships
 * (CDK's default for Node 18+ runtimes leaves `@aws-sdk/*` out): loaded from the runtime's node_modules, its
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
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './functions/shared/env-credentials.ts',
};

export const LAMBDA_BUNDLE = {
  format: 'esm',
  platform: 'node',
  target: 'node22',
  /** Prefer packages' ESM builds: they tree-shake, their CommonJS builds do not. */
  mainFields: ['module', 'main'],
  minify: true,
  /**
   * A source map beside the bundle (index.mjs.map), for decoding a minified stack trace from the logs. Node
   * does not read it: NODE_OPTIONS has no --enable-source-maps (SOURCE_MAPS_NODE_OPTION), which would parse the
   * map at every cold start. The map costs the asset's size, not init time.
   */
  sourcemap: true,
  /** The map points at the sources instead of embedding them: smaller artefact, same stack traces. */
  sourcesContent: false,
  external: EXTERNAL_MODULES,
  alias: BUNDLE_ALIASES,
  banner: CJS_REQUIRE_BANNER,
  /** What NodejsFunction names the ESM bundle inside the asset. */
  outputFile: 'index.mjs',
} as const;

/**
 * The node flag that makes stack traces point into the sources through the bundle's map. Not set on deployed
 * functions: on Node 20 it adds 15-30 ms to each function's module init (reading and parsing a map of
 * 0.5-1.3 MB), more than the whole init budget's margin. Add it to a function's `nodeOptions` to debug.
 */
export const SOURCE_MAPS_NODE_OPTION = '--enable-source-maps';

/** LAMBDA_BUNDLE's options that esbuild and NodejsFunction's `bundling` name alike. */
export const SAME_NAMED_BUNDLE_OPTIONS = {
  target: LAMBDA_BUNDLE.target,
  mainFields: [...LAMBDA_BUNDLE.mainFields],
  minify: LAMBDA_BUNDLE.minify,
  sourcesContent: LAMBDA_BUNDLE.sourcesContent,
};

/**
 * LAMBDA_BUNDLE as esbuild build options, for builds outside CDK (the bundle bench and tests): the same
 * flags NodejsFunction passes to esbuild's CLI, with bundling on. Add entry points and an output.
 */
export const LAMBDA_ESBUILD_OPTIONS: BuildOptions = {
  format: LAMBDA_BUNDLE.format,
  platform: LAMBDA_BUNDLE.platform,
  ...SAME_NAMED_BUNDLE_OPTIONS,
  sourcemap: LAMBDA_BUNDLE.sourcemap,
  external: [...LAMBDA_BUNDLE.external],
  alias: { ...LAMBDA_BUNDLE.alias },
  banner: { js: LAMBDA_BUNDLE.banner },
  bundle: true,
};

/**
 * The build-time constant that says whether a bundle contains the X-Ray SDK (Powertools Tracer, with
 * cls-hooked and semver: about 115 KB, 30-35 ms of module init). esbuild replaces the identifier with
 * `true` or `false` (`define`), and with `false` the branch that imports the tracer is dead code: the SDK is
 * not in the bundle at all, so it is neither parsed nor run. Unbundled code (tsx, the tests) has no
 * constant, and loads the tracer where the environment asks for tracing (functions/shared/observability.ts).
 * Which functions bundle it: the `xraySdkTracing` context value (lib/delivery-routes.ts).
 */
export const XRAY_SDK_CONSTANT = 'XRAY_SDK_BUNDLED';

/**
 * Which functions bundle (and, on Lambda, load) the X-Ray SDK, whose subsegments trace each AWS call and
 * annotate the handler's segment with the account and operation. Lambda's active tracing records every
 * function's initialisation and invocation segments without it; API requests also have API Gateway's.
 * - `none`: no function;
 * - `consumers` (the default): the queue consumers, where a cold start delays no caller and the SDK's
 *   subsegments are the only view of their calls; API functions keep their cold starts under 100 ms;
 * - `all`: every function, at 30-35 ms more of each API cold start.
 */
export type XraySdkTracing = 'none' | 'consumers' | 'all';
export const XRAY_SDK_TRACING_VALUES: readonly XraySdkTracing[] = ['none', 'consumers', 'all'];
export const XRAY_SDK_TRACING_DEFAULT: XraySdkTracing = 'consumers';

/** Whether a function of this kind bundles the X-Ray SDK under the setting. */
export function bundlesXraySdk(setting: XraySdkTracing, kind: 'api' | 'consumer'): boolean {
  return setting === 'all' || (setting === 'consumers' && kind === 'consumer');
}

/** esbuild's `define` of a function's bundle: whether it carries the X-Ray SDK. */
export function bundleDefine(options: { xraySdk: boolean }): Record<string, string> {
  return { [XRAY_SDK_CONSTANT]: JSON.stringify(options.xraySdk) };
}

/**
 * Template metadata key of every function: what its asset is bundled from. CloudFormation only sees the asset's
 * S3 key; the local runtime reads this to build and run the same bundle. Metadata is ignored on deploy.
 */
export const BUNDLE_METADATA_KEY = 'DeliveryRoutes::Bundle';

/**
 * How a function's asset is built: its source entry (repository-relative), the files shipped beside it and
 * the build-time constants esbuild replaces (`define`, see bundleDefine).
 */
export interface BundleMetadata {
  entry: string;
  bundledFiles: readonly string[];
  define: Readonly<Record<string, string>>;
}
