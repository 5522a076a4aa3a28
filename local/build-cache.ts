import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * What the local runtime builds and keeps between runs (`bundles/`, each function's bundle; `synth/`, the
 * synthesized app), unless told otherwise (`npm start`: LOCAL_CACHE_DIR): under the system's temp directory,
 * outside the repository, where no node_modules/ is visible to a bundle. Each entry records the content hash of
 * every file it was made from, and is used only while each of them is unchanged.
 */
export const DEFAULT_LOCAL_CACHE_DIR = join(tmpdir(), 'drs-local-cache');

/** A file's content hash (sha256, hex). */
export type FileHash = (path: string) => Promise<string>;

/** Content hashes that read each file once, however often they are asked for it. */
export function memoizedFileHashes(): FileHash {
  const known = new Map<string, Promise<string>>();
  return (path) => {
    let hash = known.get(path);
    if (!hash) {
      hash = readLimited(path).then((content) => createHash('sha256').update(content).digest('hex'));
      known.set(path, hash);
    }
    return hash;
  };
}

/**
 * Files the content hashes read at once, in the whole process. Checking every bundle's inputs at once (80
 * entries, thousands of files each) opened more files than a process may (EMFILE), and a file that cannot be
 * read counts as changed: the whole cache looked stale and was rebuilt and replaced under the runs using it.
 */
export const MAX_READS_IN_FLIGHT = 64;
let readsInFlight = 0;
const waitingReads: (() => void)[] = [];

async function readLimited(path: string): Promise<Buffer> {
  if (readsInFlight < MAX_READS_IN_FLIGHT) readsInFlight++;
  // A read that ends hands its place to the next waiting one.
  else await new Promise<void>((resolve) => waitingReads.push(resolve));
  try {
    return await readFile(path);
  } finally {
    const next = waitingReads.shift();
    if (next) next();
    else readsInFlight--;
  }
}

/** Path -> content hash of each of `paths`: what a cached build records it was made from. */
export async function hashesOf(paths: readonly string[], hashOf: FileHash): Promise<Record<string, string>> {
  return Object.fromEntries(
    await Promise.all(paths.map(async (path) => [path, await hashOf(path)] as const)),
  );
}

/** Whether every file of `inputs` (path -> content hash) still has that content; false when one is gone. */
export async function unchanged(inputs: Record<string, string>, hashOf: FileHash): Promise<boolean> {
  try {
    const same = await Promise.all(
      Object.entries(inputs).map(async ([path, hash]) => (await hashOf(path)) === hash),
    );
    return same.every(Boolean);
  } catch {
    return false;
  }
}

/** In a cache entry: path -> content hash of every file the entry was made from (see hashesOf). */
export const CACHE_INPUTS_FILE = 'inputs.json';

/** Whether the cache entry in `dir` is complete and every file it was made from still has that content. */
export async function isCurrentEntry(dir: string, hashOf: FileHash): Promise<boolean> {
  const inputs = await readFile(join(dir, CACHE_INPUTS_FILE), 'utf8').then(JSON.parse, () => undefined);
  return inputs !== undefined && (await unchanged(inputs as Record<string, string>, hashOf));
}

/**
 * Puts the entry built in `fresh` (its CACHE_INPUTS_FILE written last) in the place of `cached`, whole; returns
 * where the entry to use is. An entry another run made meanwhile from the same files is kept as it is (a run may
 * be using it) and `fresh` is dropped; only a stale one is replaced.
 */
export async function replaceCacheEntry(cached: string, fresh: string): Promise<string> {
  const isCurrent = () => isCurrentEntry(cached, memoizedFileHashes());
  if (await isCurrent()) {
    await rm(fresh, { recursive: true, force: true });
    return cached;
  }
  await rm(cached, { recursive: true, force: true });
  return rename(fresh, cached).then(
    () => cached,
    async (error) => {
      // Another run put its entry there in between: use this one where it is.
      if (!(await isCurrent())) throw error;
      return fresh;
    },
  );
}

/**
 * Completes the entry built in `fresh` from `files`: writes its CACHE_INPUTS_FILE (last, so an entry without it
 * is never taken for complete), then puts it in the place of `cached` (replaceCacheEntry); returns where the
 * entry to use is.
 */
export async function commitCacheEntry(
  cached: string,
  fresh: string,
  files: readonly string[],
  hashOf: FileHash,
): Promise<string> {
  await writeFile(join(fresh, CACHE_INPUTS_FILE), JSON.stringify(await hashesOf(files, hashOf)));
  return replaceCacheEntry(cached, fresh);
}

/**
 * A copy of the cache entry's `path` (`<cache>/<entry>/<name>`) under `intoRoot` (`<intoRoot>/<entry>/<name>`,
 * at the same depth when `intoRoot` is beside the cache, so the relative paths of its source maps still point
 * at the sources), made of hard links: a test run keeps what it started with even when another run (`npm
 * start` after an edit) replaces the entry, at no cost in space. Files are copied where a link cannot be made.
 */
export function snapshotCacheEntry(path: string, intoRoot: string): string {
  const target = join(intoRoot, basename(dirname(path)), basename(path));
  linkTree(path, target);
  return target;
}

function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const copy = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, copy);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), copy);
    else {
      try {
        linkSync(source, copy);
      } catch {
        copyFileSync(source, copy);
      }
    }
  }
}
