import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * The one place functions/ takes zod from (lint refuses `zod` and `zod/mini` elsewhere): zod/mini, the
 * tree-shakable API whose bundles initialise in a fraction of classic zod's time, with the English messages
 * configured. zod/mini loads no locale by itself; without this every issue would read "Invalid input".
 */
z.config(en());

export * from 'zod/mini';

/**
 * A copy of `schema` with `metadata` in the global registry (what the OpenAPI document reads): a copy, so a
 * schema used in two places keeps each place's description. Not a `z.meta` check: a check stays in the
 * schema's checks and registers its metadata (an `id` too) again on everything derived from it (`z.extend`,
 * a further `.check`), where a copy inherits only the description-like fields through its parent, not the id.
 */
export function withMeta<T extends z.ZodMiniType>(schema: T, metadata: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
}
