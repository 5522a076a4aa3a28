import { Logger } from '@aws-lambda-powertools/logger';
import * as z from '../../../functions/shared/zod';
import { readItem } from '../read-item';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts) and zod with one
 * schema, that validates the event. What zod itself costs a cold start, before any schema of the service.
 */
const Key = z.strictObject({ pk: z.string().check(z.minLength(1)), sk: z.string().check(z.minLength(1)) });
const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME });

export const handler = async (event: unknown) => {
  const key = Key.parse(event);
  const Item = await readItem(key);
  logger.info('read', { found: Item !== undefined });
  return Item;
};
