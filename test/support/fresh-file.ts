import { resetConfig } from '../../functions/shared/config';

/**
 * Setup file of the unit and end-to-end tiers, whose files run one after another in a worker's process
 * (vitest.config.ts): each file starts from the environment the worker started with and no service
 * configuration, as in a process of its own, whatever the file before it set (a deployment's AWS_ variables,
 * `configure`). vitest's own variables (VITEST_*) are its to set.
 */
const holder = globalThis as { drsStartingEnvironment?: Record<string, string | undefined> };
holder.drsStartingEnvironment ??= { ...process.env };
const starting = holder.drsStartingEnvironment;
for (const name of Object.keys(process.env)) {
  if (!(name in starting) && !name.startsWith('VITEST')) delete process.env[name];
}
for (const [name, value] of Object.entries(starting)) {
  if (!name.startsWith('VITEST')) process.env[name] = value;
}
resetConfig();
