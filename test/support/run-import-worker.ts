/** Runs the import worker on one SQS record (env IMPORT_RECORD) in a process of its own, so a test can kill it. */
import type { Context, SQSRecord } from 'aws-lambda';
import { handler } from '../../functions/workers/import-routes/handler';

const record = JSON.parse(process.env.IMPORT_RECORD ?? '') as SQSRecord;
const context = {
  awsRequestId: 'crash-test',
  functionName: 'import-routes',
  getRemainingTimeInMillis: () => 300_000,
} as Context;
await handler({ Records: [record] }, context);
