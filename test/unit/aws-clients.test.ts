import { describe, expect, it } from 'vitest';
import { db } from '../../functions/data/client';
import { createKmsClient } from '../../functions/data/kms-client';
import { createStsClient } from '../../functions/data/sts-client';
import { createSqsClient } from '../../functions/shared/sqs-client';

/**
 * The SDK clients the functions make (shared/observability.ts traceAwsClient): none keeps the SDK's logger
 * middleware, which ran the sensitive-field filter over every input and output for a no-op logger.
 */
describe("the functions' SDK clients", () => {
  const clients = {
    'DynamoDB (document client)': () => db,
    SQS: createSqsClient,
    KMS: createKmsClient,
    STS: createStsClient,
  };

  it.each(Object.entries(clients))('%s: no logger middleware, the rest of the stack kept', (_, make) => {
    const steps = make().middlewareStack.identify();
    expect(steps.some((step) => step.startsWith('loggerMiddleware'))).toBe(false);
    expect(steps.some((step) => step.startsWith('retryMiddleware'))).toBe(true);
  });
});
