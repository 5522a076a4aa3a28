import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The optimizeRoutes consumer; `handler.ts` beside this module is its Lambda. */
export const optimizeRoutes = defineConsumer({
  id: 'optimizeRoutes',
  queue: channels.optimizations,
  module: import.meta.url,
  // One optimization per invocation: it runs the search for up to its time limit (30 s).
  batchSize: 1,
  maxConcurrency: 5,
  // The search's time limit (30 s) and the reads and writes around it; the queue's visibility timeout is 6x.
  timeoutSeconds: 60,
  // A 2,000-stop route's times between every two places take 32 MB, and Lambda's CPU share grows with memory:
  // at 1,024 MB (about 0.6 of a vCPU) the largest route's search takes about a third of the timeout.
  memorySize: 1024,
  // Reads the route, writes the optimization and, when asked, the route's new order with ROUTE_UPDATED.
  access: { table: 'readWrite' },
  // A started route's recomputed ETAs carry tracking links.
  linksToApi: true,
});
