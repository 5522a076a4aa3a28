import { applyMessageOutcome } from '../../domain/message-outcomes';
import { logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { recordMessageOutcomes } from './consumer';

/**
 * One notification of the message outcomes topic: a delivery event, an SMS receipt or reply
 * (domain/message-outcomes.ts). Safe to repeat: a status already reached is not reached again.
 */
export const handler = sqsHandler(recordMessageOutcomes, {
  logKeys: ({ MessageId }) => ({ sns_message_id: MessageId }),
  handle: async (notification) => {
    const outcome = await applyMessageOutcome(notification.Message);
    logger.info('message outcome processed', { outcome });
  },
});
