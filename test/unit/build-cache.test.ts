import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const FILES = 2000;
/** Fewer open files than FILES read at once would need, more than the process and MAX_READS_IN_FLIGHT do. */
const OPEN_FILES_LIMIT = 512;
const root = resolve(__dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'build-cache-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('content hashes of a cache entry', () => {
  it('reads thousands of inputs at once in a process allowed far fewer open files, and finds them unchanged', async () => {
    const paths = Array.from({ length: FILES }, (_, index) => join(scratch, `input-${index}.ts`));
    for (const [index, path] of paths.entries()) writeFileSync(path, `export const value = ${index};\n`);
    writeFileSync(join(scratch, 'paths.json'), JSON.stringify(paths));
    const script = join(scratch, 'hash.mts');
    writeFileSync(
      script,
      [
        "import { readFileSync } from 'node:fs';",
        `import { hashesOf, memoizedFileHashes, unchanged } from ${JSON.stringify(join(root, 'local/build-cache.ts'))};`,
        `const paths: string[] = JSON.parse(readFileSync(${JSON.stringify(join(scratch, 'paths.json'))}, 'utf8'));`,
        'const inputs = await hashesOf(paths, memoizedFileHashes());',
        'const same = await unchanged(inputs, memoizedFileHashes());',
        'process.stdout.write(JSON.stringify({ hashed: Object.keys(inputs).length, same }));',
      ].join('\n'),
    );
    const tsx = join(root, 'node_modules/.bin/tsx');
    const { stdout } = await promisify(execFile)(
      'sh',
      ['-c', `ulimit -n ${OPEN_FILES_LIMIT} && exec "$0" "$1"`, tsx, script],
      { cwd: scratch },
    );
    expect(JSON.parse(stdout)).toEqual({ hashed: FILES, same: true });
  }, 60_000);
});
