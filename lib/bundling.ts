import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda bundle is built: one self-contained ESM file per function, minified and tree-shaken by
 * esbuild, AWS SDK clients included, with a source map. CDK's NodejsFunction
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

export const LAMBDA_BUNDLE = {
  format: 'esm',
  platform: 'node',
  target: 'node22',
  /** Prefer packages' ESM builds: they tree-shake, their CommonJS builds do not. */
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  /** The map points at the sources instead of embedding them: smaller artefact, same stack traces. */
  sourcesContent: false,
  external: EXTERNAL_MODULES,
  banner: CJS_REQUIRE_BANNER,
  /** What NodejsFunction names the ESM bundle inside the asset. */
  outputFile: 'index.mjs',
} as const;

/**
 * LAMBDA_BUNDLE as esbuild build options, for builds outside CDK (the bundle bench and tests): the same
 * flags NodejsFunction passes to esbuild's CLI, with bundling on. Add entry points and an output.
 */
export const LAMBDA_ESBUILD_OPTIONS: BuildOptions = {
  format: LAMBDA_BUNDLE.format,
  platform: LAMBDA_BUNDLE.platform,
  target: LAMBDA_BUNDLE.target,
  mainFields: [...LAMBDA_BUNDLE.mainFields],
  minify: LAMBDA_BUNDLE.minify,
  sourcemap: LAMBDA_BUNDLE.sourcemap,
  sourcesContent: LAMBDA_BUNDLE.sourcesContent,
  external: [...LAMBDA_BUNDLE.external],
  banner: { js: LAMBDA_BUNDLE.banner },
  bundle: true,
};

/**
 * Template metadata key of every function: what its asset is bundled from. CloudFormation only sees the asset's
 * S3 key; the local runtime reads this to build and run the same bundle. Metadata is ignored on deploy.
 */
export const BUNDLE_METADATA_KEY = 'DeliveryRoutes::Bundle';

/** How a function's asset is built: its source entry (repository-relative) and the files shipped beside it. */
export interface BundleMetadata {
  entry: string;
  bundledFiles: readonly string[];
}
