import * as channels from '../../models/channels';
import { defineConsumer } from '../define';

/** The sendNotifications consumer; `handler.ts` beside this module is its Lambda. */
export const sendNotifications = defineConsumer({
  id: 'sendNotifications',
  queue: channels.notifications,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 5,
  timeoutSeconds: 60,
  memorySize: 512,
  // Reads the event, route, settings and writes each message's record; opens the stops' recipients; sends
  // through SES and End User Messaging SMS (only the sender identities the app configures, lib/delivery-routes.ts).
  access: { table: 'readWrite', recipients: 'decrypt', customerMessages: {} },
  // Every message carries its stop's tracking link.
  linksToApi: true,
});
