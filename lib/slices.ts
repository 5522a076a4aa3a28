import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Lambda code's root: every slice is a folder under it. */
const FUNCTIONS_DIR = fileURLToPath(new URL('../functions/', import.meta.url));

/** Where a function's code is: the folder of its definition module (endpoint, authorizer or consumer). */
export interface Slice {
  /**
   * The function's readable name, from the slice folder: `routes/start` (functions/api/routes/start/),
   * `workers/import-routes` (functions/workers/import-routes/). Construct ids and descriptions use it.
   */
  readonly name: string;
  /** The Lambda's entry: `handler.ts` beside the definition module (absolute path). */
  readonly entry: string;
  /** The same entry relative to the repository root, with `/`: `functions/api/routes/start/handler.ts`. */
  readonly repoEntry: string;
}

/**
 * The slice of a definition, from the URL of the module that defines it (its `module`, its
 * `import.meta.url`): the function's entry is found by where the definition is, never by a name.
 */
export function sliceOf(moduleUrl: string): Slice {
  const folder = dirname(fileURLToPath(moduleUrl));
  const fromFunctions = relative(FUNCTIONS_DIR, folder).split(sep).join('/');
  if (fromFunctions.startsWith('..') || fromFunctions === '') {
    throw new Error(`definition module ${moduleUrl} is not in a slice folder under functions/`);
  }
  const entry = join(folder, 'handler.ts');
  if (!existsSync(entry))
    throw new Error(`slice ${fromFunctions} has no handler.ts beside its definition module`);
  return {
    name: fromFunctions.replace(/^api\//, ''),
    entry,
    repoEntry: `functions/${fromFunctions}/handler.ts`,
  };
}
