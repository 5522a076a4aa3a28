import { Logger } from '@aws-lambda-powertools/logger';
import { readItem } from './read-item';

/**
 * The bundles bench's floor (bench/bundles.ts): a function holding only what every function of the service
 * needs at the least, the DynamoDB document client and the Powertools logger, imported at init and the
 * client made on first use, as the service's functions do (functions/data/client.ts). Its bundle is built
 * and initialised as theirs are; their init times are checked as ratios over its own, measured in the same
 * run.
 */
const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME });

export const handler = async (event: { pk: string; sk: string }) => {
  const Item = await readItem({ pk: event.pk, sk: event.sk });
  logger.info('read', { found: Item !== undefined });
  return Item;
};
