import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, relative, resolve } from 'node:path';
import { buildFunctionAssets, LAMBDA_ESBUILD_OPTIONS, REPO_ROOT } from '../../lib/bundling';
import {
  commitCacheEntry,
  DEFAULT_LOCAL_CACHE_DIR,
  isCurrentEntry,
  memoizedFileHashes,
} from '../build-cache';
import type { FunctionSpec } from '../cloud/model';

/**
 * Every function's bundle, built as a deploy builds it (lib/bundling.ts) and laid out as Lambda lays out the
 * asset: `<outDir>/<name>/index.mjs` with its chunks and source maps, and the asset's node_modules/ holding only
 * the files the function ships (FunctionSpec.bundledFiles). Nothing else is beside a bundle: the AWS SDK is
 * inside it, as in the deployed asset, so the runtime's own SDK is never used.
 *
 * outDir must lie outside the repository, with no node_modules/ on the way up: Node resolves a bare import
 * by walking up from the importing file, and on Lambda nothing is above /var/task. A bundle that imports a
 * package it neither bundles nor ships then fails here as it fails on AWS.
 */

const REPO_NODE_MODULES = join(REPO_ROOT, 'node_modules');
const BUILDER_SOURCE = join(REPO_ROOT, 'lib', 'bundling.ts');

/** Called before the first bundle is built (0) and after each: how many are built of how many to build. */
export type BuildProgress = (built: number, total: number) => void;

/**
 * Builds the bundle of every distinct entry of `functions`; entry -> bundle directory.
 */
export async function buildBundles(
  functions: readonly FunctionSpec[],
  outDir: string,
  onProgress?: BuildProgress,
): Promise<Map<string, string>> {
  const assets = assetsByEntry(functions);
  const built = await buildInto(assets, outDir, onProgress);
  return new Map([...built].map(([entry, { dir }]) => [entry, dir]));
}

/**
 * The bundles of `functions`, each reused from an earlier run when nothing it is built from changed (the
 * bundling options, its entry, build-time constants and shipped files, and the content of every file esbuild
 * read for it), else built afresh: `npm start` and the bench restart in seconds, and an edit rebuilds only the
 * bundles that read the edited file. The cache lives in `cacheDir` (default `bundles/` of DEFAULT_LOCAL_CACHE_DIR;
 * a bundle must not see the repository's node_modules); a bundle is built in a new directory that replaces the
 * cached one whole, so concurrent runs never see half a build. `onProgress` follows the bundles being built.
 */
export async function cachedBundles(
  functions: readonly FunctionSpec[],
  options: { cacheDir?: string; onProgress?: BuildProgress } = {},
): Promise<Map<string, string>> {
  const cacheRoot = resolve(options.cacheDir ?? join(DEFAULT_LOCAL_CACHE_DIR, 'bundles'));
  const assets = assetsByEntry(functions);
  const names = directoryNames([...assets.keys()]);
  const recipe = {
    REPO_ROOT,
    LAMBDA_ESBUILD_OPTIONS,
    // How a build is done (options, chunk pruning, shipped files): a change there is a new recipe.
    builder: createHash('sha256')
      .update(await readFile(BUILDER_SOURCE))
      .digest('hex'),
  };
  // A cache entry per asset: `<key>/<name>/` is the bundle, `<key>/inputs.json` what it was built from.
  const entryDir = (entry: string) =>
    join(
      cacheRoot,
      createHash('sha256')
        .update(JSON.stringify({ ...recipe, entry, asset: assets.get(entry) }))
        .digest('hex')
        .slice(0, 24),
    );
  const hashOf = memoizedFileHashes();
  const bundles = new Map<string, string>();
  const stale = new Map<string, Asset>();
  await Promise.all(
    [...assets].map(async ([entry, asset]) => {
      const dir = entryDir(entry);
      if (await isCurrentEntry(dir, hashOf)) bundles.set(entry, join(dir, names.get(entry) as string));
      else stale.set(entry, asset);
    }),
  );
  if (stale.size === 0) return bundles;

  // Built side by side (one esbuild parse of what they share), then each moved to its cache entry: the
  // same depth under cacheRoot, so every relative path in the bundles stays right.
  await mkdir(cacheRoot, { recursive: true });
  const fresh = await mkdtemp(join(cacheRoot, 'build-'));
  try {
    const built = await buildInto(stale, fresh, options.onProgress);
    await Promise.all(
      [...built].map(async ([entry, { readFiles }]) => {
        const name = names.get(entry) as string;
        const staged = await mkdtemp(join(cacheRoot, 'entry-'));
        await rename(join(fresh, name), join(staged, name));
        bundles.set(entry, join(await commitCacheEntry(entryDir(entry), staged, readFiles, hashOf), name));
      }),
    );
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
  return bundles;
}

/**
 * Builds each asset into `<outDir>/<its directory name>`, as a deploy builds each asset (its chunks its own),
 * sharing esbuild's parse between them (buildFunctionAssets). Returns each entry's bundle directory and the
 * files it was made from.
 */
async function buildInto(
  assets: ReadonlyMap<string, Asset>,
  outDir: string,
  onProgress?: BuildProgress,
): Promise<Map<string, { dir: string; readFiles: string[] }>> {
  const root = resolve(outDir);
  assertIsolated(root);
  const names = directoryNames([...assets.keys()]);
  const builds = [...assets].map(([entry, asset]) => ({
    entry,
    ...asset,
    outdir: join(root, names.get(entry) as string),
  }));
  await Promise.all(builds.map(({ outdir }) => rm(outdir, { recursive: true, force: true })));
  onProgress?.(0, builds.length);
  const metafiles = await buildFunctionAssets(builds, { onBuilt: onProgress });
  return new Map(
    builds.map(({ entry, outdir, bundledFiles }, index) => {
      const read = Object.keys(metafiles[index]?.inputs ?? {}).map((path) => resolve(REPO_ROOT, path));
      const shipped = bundledFiles.map((file) => join(REPO_NODE_MODULES, file));
      return [entry, { dir: outdir, readFiles: [...new Set([...read, ...shipped])] }];
    }),
  );
}

/** Refuses an outDir where Node's resolution could reach packages Lambda would not have. */
function assertIsolated(outDir: string): void {
  const fromRepo = relative(REPO_ROOT, outDir);
  if (fromRepo === '' || (!fromRepo.startsWith('..') && !isAbsolute(fromRepo)))
    throw new Error(`buildBundles: ${outDir} is inside the repository; use a directory under os.tmpdir()`);
  for (let dir = dirname(outDir); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules')))
      throw new Error(
        `buildBundles: ${join(dir, 'node_modules')} would be visible to the bundles in ${outDir}`,
      );
    if (dirname(dir) === dir) return;
  }
}

interface Asset {
  bundledFiles: readonly string[];
  /** The build-time constants, keys sorted (one build per distinct set). */
  define: Record<string, string>;
}

/**
 * Each entry's shipped files and build-time constants; functions sharing an entry share its asset, so they
 * must ship the same and be built alike.
 */
function assetsByEntry(functions: readonly FunctionSpec[]): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const fn of functions) {
    const files = [...new Set(fn.bundledFiles)].sort();
    const define = Object.fromEntries(Object.entries(fn.define ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
    const known = assets.get(fn.entry);
    if (known && known.bundledFiles.join('\n') !== files.join('\n'))
      throw new Error(`buildBundles: functions built from ${fn.entry} ship different bundledFiles`);
    if (known && JSON.stringify(known.define) !== JSON.stringify(define))
      throw new Error(`buildBundles: functions built from ${fn.entry} have different build-time constants`);
    assets.set(fn.entry, { bundledFiles: files, define });
  }
  return assets;
}

/** A directory name per entry, readable (`functions.handlers.docs.openapi`) and distinct. */
function directoryNames(entries: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const entry of entries) {
    const { dir, name } = parse(entry);
    const directory = [...dir.split(/[\\/]/), name]
      .filter(Boolean)
      .join('.')
      .replace(/[^\w.-]/g, '_');
    if (taken.has(directory)) throw new Error(`buildBundles: two entries map to the directory ${directory}`);
    taken.add(directory);
    names.set(entry, directory);
  }
  return names;
}
