import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The deleteRoutes consumer; `handler.ts` beside this module is its Lambda. */
export const deleteRoutes = defineConsumer({
  id: 'deleteRoutes',
  queue: channels.deletions,
  module: import.meta.url,
  // One route per invocation: a message removes up to 20,000 rows of it, then queues the rest.
  batchSize: 1,
  // Each message deletes tens of thousands of rows and claims: two at a time keep the table's write rate sane.
  maxConcurrency: 2,
  timeoutSeconds: 120,
  memorySize: 1024,
  // Reads the header and rows, deletes them and the claims; queues the rest of a large route to itself.
  access: { table: 'readWrite', sendTo: [channels.deletions] },
});
