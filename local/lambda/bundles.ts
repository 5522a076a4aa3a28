import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, parse, relative, resolve } from 'node:path';
import { buildFunctionAssets, LAMBDA_ESBUILD_OPTIONS, REPO_ROOT } from '../../lib/bundling';
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

/**
 * Builds the bundle of every distinct entry of `functions`; entry -> bundle directory.
 */
export async function buildBundles(
  functions: readonly FunctionSpec[],
  outDir: string,
): Promise<Map<string, string>> {
  return (await buildInto(functions, outDir)).bundles;
}

/** What a cached build was made from: every file esbuild read and every file shipped, by content hash. */
const INPUTS_FILE = 'inputs.json';

/**
 * The bundles of `functions`, reused from an earlier run when nothing they are built from changed (the bundling
 * options, the entries and shipped files, and the content of every file esbuild read for them), else built
 * afresh: `npm start` and the bench restart in seconds. The cache lives under the system's temp directory (a
 * bundle must not see the repository's node_modules); a build goes to a new directory that replaces the cached
 * one whole, so concurrent runs never see half a build.
 */
export async function cachedBundles(functions: readonly FunctionSpec[]): Promise<Map<string, string>> {
  const recipe = createHash('sha256')
    .update(
      JSON.stringify({
        REPO_ROOT,
        LAMBDA_ESBUILD_OPTIONS,
        // How a build is done (options, chunk pruning, shipped files): a change there is a new recipe.
        builder: createHash('sha256')
          .update(await readFile(BUILDER_SOURCE))
          .digest('hex'),
        assets: [...assetsByEntry(functions)],
      }),
    )
    .digest('hex');
  const cacheRoot = join(tmpdir(), 'drs-bundle-cache');
  const cached = join(cacheRoot, recipe.slice(0, 24));
  const names = directoryNames([...assetsByEntry(functions).keys()]);
  const inputs = await readFile(join(cached, INPUTS_FILE), 'utf8').then(JSON.parse, () => undefined);
  if (inputs && (await unchanged(inputs as Record<string, string>)))
    return new Map([...names].map(([entry, name]) => [entry, join(cached, name)]));

  await mkdir(cacheRoot, { recursive: true });
  const fresh = await mkdtemp(join(cacheRoot, 'build-'));
  const { readFiles } = await buildInto(functions, fresh);
  await writeFile(join(fresh, INPUTS_FILE), JSON.stringify(await hashes(readFiles)));
  await rm(cached, { recursive: true, force: true });
  await rename(fresh, cached).catch(async (error) => {
    // Another run cached the same recipe meanwhile: use this build where it is.
    if (!existsSync(join(cached, INPUTS_FILE))) throw error;
  });
  const dir = existsSync(join(fresh, INPUTS_FILE)) ? fresh : cached;
  return new Map([...names].map(([entry, name]) => [entry, join(dir, name)]));
}

async function hashes(paths: readonly string[]): Promise<Record<string, string>> {
  const entries = await Promise.all(
    paths.map(
      async (path) =>
        [
          path,
          createHash('sha256')
            .update(await readFile(path))
            .digest('hex'),
        ] as const,
    ),
  );
  return Object.fromEntries(entries);
}

async function unchanged(inputs: Record<string, string>): Promise<boolean> {
  try {
    const now = await hashes(Object.keys(inputs));
    return Object.entries(inputs).every(([path, hash]) => now[path] === hash);
  } catch {
    return false; // a file is gone
  }
}

async function buildInto(
  functions: readonly FunctionSpec[],
  outDir: string,
): Promise<{ bundles: Map<string, string>; readFiles: string[] }> {
  const root = resolve(outDir);
  assertIsolated(root);
  const assets = assetsByEntry(functions);
  const names = directoryNames([...assets.keys()]);

  // One esbuild build per function, as a deploy builds each asset (its chunks its own), sharing esbuild's
  // parse of the modules they have in common.
  const builds = [...assets].map(([entry, asset]) => ({
    entry,
    ...asset,
    outdir: join(root, names.get(entry) as string),
  }));
  await Promise.all(builds.map(({ outdir }) => rm(outdir, { recursive: true, force: true })));
  const metafiles = await buildFunctionAssets(builds);
  const bundles = new Map(builds.map(({ entry, outdir }) => [entry, outdir]));
  const shipped = [...assets.values()]
    .flatMap((asset) => asset.bundledFiles)
    .map((file) => join(REPO_NODE_MODULES, file));
  const read = metafiles.flatMap((metafile) =>
    Object.keys(metafile.inputs).map((path) => resolve(REPO_ROOT, path)),
  );
  return { bundles, readFiles: [...new Set([...read, ...shipped])] };
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
