import { renameSync, writeFileSync } from 'node:fs';

/**
 * Writes a file of the local runtime's kept state so that a reader finds either the old contents or the new,
 * never a torn file: the text goes to a temporary file beside it, which then replaces it. A run killed while
 * writing (kill -9, a crash) must still start again on the same state.
 */
export function writeStateFile(path: string, text: string, mode = 0o644): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, path);
}
