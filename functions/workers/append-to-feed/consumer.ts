import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/**
 * The appendToFeed consumer; `handler.ts` beside this module is its Lambda. The feed queue is FIFO, one
 * message group per account: Lambda hands out one batch of an account at a time, so an account's appends never
 * race one another, and as many accounts at once as the concurrency allows.
 */
export const appendToFeed = defineConsumer({
  id: 'appendToFeed',
  queue: channels.feed,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 10,
  timeoutSeconds: 30,
  memorySize: 512,
  access: { table: 'readWrite' },
});
