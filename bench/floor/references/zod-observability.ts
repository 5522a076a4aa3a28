import { logger, observed } from '../../../functions/shared/observability';
import * as z from '../../../functions/shared/zod';
import { readItem } from '../read-item';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts), zod with one schema
 * and the service's observability (Powertools' logger and metrics middleware): the least any API
 * function of the service loads, before its own schemas and code.
 */
const Key = z.strictObject({ pk: z.string().check(z.minLength(1)), sk: z.string().check(z.minLength(1)) });

export const handler = observed(async (event: unknown) => {
  const key = Key.parse(event);
  const Item = await readItem(key);
  logger.info('read', { found: Item !== undefined });
  return Item;
});
