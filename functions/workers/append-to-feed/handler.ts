import { appendEvents } from '../../domain/event-feed';
import { eventsOfStreamRecords } from '../../domain/stream-events';
import type { WebhookEvent } from '../../models/event-catalog';
import { logger } from '../../shared/observability';
import { sqsBatchHandler } from '../../shared/sqs-handler';
import { appendToFeed } from './consumer';

/**
 * A batch of the feed queue: new event items from the table stream, each account's appended to its event feed
 * (GET /events) in one write, in the order the queue gave them. An account whose append fails fails all its
 * messages of the batch (the queue hands them out again, in order); the other accounts' are done. An event
 * appended before (a message delivered again) is not appended twice.
 */
export const handler = sqsBatchHandler(appendToFeed, {
  handleBatch: async (messages) => {
    const byAccount = new Map<string, { events: WebhookEvent[]; places: number[] }>();
    messages.forEach((records, place) => {
      for (const { accountId, event } of eventsOfStreamRecords(records)) {
        const account = byAccount.get(accountId) ?? { events: [], places: [] };
        account.events.push(event);
        account.places.push(place);
        byAccount.set(accountId, account);
      }
    });
    const failed = new Set<number>();
    await Promise.all(
      [...byAccount].map(async ([accountId, { events, places }]) => {
        try {
          const appended = await appendEvents(accountId, events);
          logger.info('events appended to the feed', {
            account_id: accountId,
            events: events.length,
            appended,
          });
        } catch (error) {
          logger.warn('appending to the feed failed; SQS retries the account’s messages', {
            account_id: accountId,
            events: events.length,
            error,
          });
          for (const place of places) failed.add(place);
        }
      }),
    );
    return failed;
  },
});
