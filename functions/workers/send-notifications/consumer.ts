import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The sendNotifications consumer; `handler.ts` beside this module is its Lambda. */
export const sendNotifications = defineConsumer({
  id: 'sendNotifications',
  queue: channels.notifications,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 5,
  timeoutSeconds: channels.NOTIFICATION_WORKER_TIMEOUT_SECONDS,
  memorySize: 512,
  // Reads the event, route, settings and writes each message's record; opens the stops' recipients; sends
  // through SES and End User Messaging SMS (only the sender identities the app configures, lib/delivery-routes.ts).
  // Queues the parts of a large event on its own queue.
  access: {
    table: 'readWrite',
    recipients: 'decrypt',
    customerMessages: {},
    sendTo: [channels.notifications],
  },
  // Every message carries its stop's tracking link.
  linksToApi: true,
});
