import * as channels from '../../models/channels';
import { REVISION_IMAGES_PREFIX } from '../../shared/resources';
import { defineConsumer, IMPORT_WORKER_READS } from '../define';

/** The importRoutes consumer; `handler.ts` beside this module is its Lambda. */
export const importRoutes = defineConsumer({
  id: 'importRoutes',
  queue: channels.imports,
  module: import.meta.url,
  // One route per invocation: a 50,000-item import uses the whole function.
  batchSize: 1,
  // Each import writes up to ~100,000 items: a few at a time keep the table's write rate sane.
  maxConcurrency: 5,
  timeoutSeconds: 300,
  memorySize: 1769,
  // Writes a revision's before image (domain/route-revision-rollback.ts), and queues a revision again to
  // wait for a route another revision holds (domain/route-revisions.ts).
  access: {
    table: 'readWrite',
    tableInserts: true,
    bucket: 'read',
    bucketKeyPrefixes: IMPORT_WORKER_READS,
    bucketWriteKeyPrefix: REVISION_IMAGES_PREFIX,
    sendTo: [channels.imports],
    // Draws the PINs of the stops that require one, sealed (domain/stop-pins.ts).
    stopPins: 'encrypt',
    // Seals the waypoints' recipients (domain/recipients.ts).
    recipients: 'encrypt',
  },
  // A revision of a started route recomputes its ETAs, whose event carries the waypoints' tracking links.
  linksToApi: true,
});
