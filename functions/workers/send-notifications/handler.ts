import { sendNotifications as send } from '../../domain/notifications';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { sendNotifications } from './consumer';

/**
 * One queued event: its customer messages (domain/notifications.ts). A message that throws is retried alone;
 * the messages it sent already are not sent again (each has a record written before it is sent).
 */
export const handler = sqsHandler(sendNotifications, {
  logKeys: ({ account_id, route_id, event_id }) => ({ account_id, route_id, event_id }),
  handle: async (message) => {
    const sent = await send(message);
    logger.info('event notified', { event_type: message.event_type, sent });
  },
});
