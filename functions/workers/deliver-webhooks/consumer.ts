import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The deliverWebhooks consumer; `handler.ts` beside this module is its Lambda. */
export const deliverWebhooks = defineConsumer({
  id: 'deliverWebhooks',
  queue: channels.deliveries,
  module: import.meta.url,
  // Up to ten POSTs in parallel, each cut off after WEBHOOK_TIMEOUT_MS (10 s): well inside the 30 s timeout
  // below, which the channel's visibility (channels.deliveries) covers six times over (checked at synth).
  batchSize: 10,
  // Receivers are slow and many; each delivery costs the table one read and two writes (attempt, delivery).
  maxConcurrency: 20,
  timeoutSeconds: 30,
  memorySize: 512,
  // Decrypts the webhook's signing secrets (data keys kept for minutes per environment, see secret-envelope.ts).
  access: {
    table: 'readWrite',
    sendTo: [channels.deliveries],
    sendToDeadLetter: [channels.deliveries],
    webhookSecrets: 'decrypt',
  },
});
