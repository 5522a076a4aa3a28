import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The recordMessageOutcomes consumer; `handler.ts` beside this module is its Lambda. */
export const recordMessageOutcomes = defineConsumer({
  id: 'recordMessageOutcomes',
  queue: channels.messageOutcomes,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 2,
  timeoutSeconds: 30,
  memorySize: 256,
  // Finds each message's record (gsi1), ends it with its event, records opt-outs: the table only; it opens no
  // recipient and sends nothing.
  access: { table: 'readWrite' },
});
