import * as channels from '../../models/channels';
import { defineConsumer, IMPORT_WORKER_READS } from '../define';

/** The endOverdueImports consumer; `handler.ts` beside this module is its Lambda. */
export const endOverdueImports = defineConsumer({
  id: 'endOverdueImports',
  queue: channels.importDeadlines,
  module: import.meta.url,
  // Most checks find the import finished (one read); the rare one that ends an import may release the claims
  // of a 50,000-item route, and reads its body (up to 100 MB) as the import worker does.
  batchSize: 10,
  maxConcurrency: 2,
  timeoutSeconds: 300,
  memorySize: 1769,
  // Reads the import, HEADs or reads its body, takes back what it wrote; queues the next check to itself.
  access: {
    table: 'readWrite',
    bucket: 'read',
    bucketKeyPrefixes: IMPORT_WORKER_READS,
    sendTo: [channels.importDeadlines],
  },
});
