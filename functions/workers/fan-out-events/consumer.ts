import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The fanOutEvents consumer; `handler.ts` beside this module is its Lambda. */
export const fanOutEvents = defineConsumer({
  id: 'fanOutEvents',
  queue: channels.events,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 5,
  timeoutSeconds: 30,
  memorySize: 512,
  access: { table: 'read', sendTo: [channels.deliveries, channels.notifications] },
});
