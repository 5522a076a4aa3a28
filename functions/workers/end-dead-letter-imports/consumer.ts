import * as channels from '../../models/channels';
import { defineConsumer, IMPORT_WORKER_READS } from '../define';

/** The endDeadLetteredImports consumer; `handler.ts` beside this module is its Lambda. */
export const endDeadLetteredImports = defineConsumer({
  id: 'endDeadLetteredImports',
  queue: channels.imports,
  deadLetters: true,
  module: import.meta.url,
  // One message per invocation: ending an import may release the claims of a 50,000-item route.
  batchSize: 1,
  maxConcurrency: 2,
  // As long as the import worker, whose writes it may take back; reads the same bodies (up to 100 MB).
  timeoutSeconds: 300,
  memorySize: 1769,
  access: { table: 'readWrite', bucket: 'read', bucketKeyPrefixes: IMPORT_WORKER_READS },
});
