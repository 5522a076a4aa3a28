import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per process, shared by every handler. Never log keys, tokens or secrets. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'delivery-route-service',
});
