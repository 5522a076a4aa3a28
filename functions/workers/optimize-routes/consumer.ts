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
  // Sized for CPU, not memory (a 2,000-stop route's times between every two places take 32 MB): Lambda gives a
  // whole vCPU from 1,769 MB, and the largest route's whole search took about 24 s of one core (500 stops with
  // windows, docs/architecture.md), inside the 30 s limit; with less CPU the limit would end it, and its
  // answer would depend on the machine.
  memorySize: 1769,
  // Reads the route, writes the optimization and, when asked, the route's new order with ROUTE_UPDATED.
  access: { table: 'readWrite' },
  // A started route's recomputed ETAs carry tracking links.
  linksToApi: true,
});
