import { logger, observed } from '../../../functions/shared/observability';
import { readItem } from '../read-item';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts) with the service's
 * observability instead of a bare logger: Powertools' logger and metrics middleware
 * (functions/shared/observability.ts), as every function has them.
 */
export const handler = observed(async (event: { pk: string; sk: string }) => {
  const Item = await readItem({ pk: event.pk, sk: event.sk });
  logger.info('read', { found: Item !== undefined });
  return Item;
});
