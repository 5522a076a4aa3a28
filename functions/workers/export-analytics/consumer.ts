import * as channels from '../../models/channels';
import { ANALYTICS_FILES_PREFIX } from '../../shared/resources';
import { defineConsumer } from '../define';

/** The exportAnalytics consumer; `handler.ts` beside this module is its Lambda. */
export const exportAnalytics = defineConsumer({
  id: 'exportAnalytics',
  queue: channels.analytics,
  module: import.meta.url,
  // One request per invocation: it streams up to millions of rows into S3.
  batchSize: 1,
  maxConcurrency: 2,
  timeoutSeconds: 600,
  memorySize: 1024,
  // Writes analytics a finished route is still missing, and the request's outcome.
  access: { table: 'readWrite', bucket: 'write', bucketKeyPrefixes: [ANALYTICS_FILES_PREFIX] },
  // Rows are garbage as soon as they are written out: a small young generation and a capped heap make
  // V8 collect them as it goes, so memory stays flat however many rows an export has.
  nodeOptions: '--max-semi-space-size=2 --max-old-space-size=192',
});
