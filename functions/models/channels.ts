import { type Channel, defineChannels } from '../shared/channel';

/**
 * The service's queues (functions/shared/channel.ts says what a channel is). Producers, consumers, the
 * functions' access, CDK and the local runtime all name a queue by its channel here: `channels.imports`.
 * Adding a queue is adding a channel (CONTRIBUTING.md, Adding a queue).
 */
export const channels = defineChannels({
  /**
   * Accepted route imports (claim-check: the payload is in S3), from the import POST, and the bucket's
   * notifications of uploads (lib/stateful-stack.ts). Consumer: workers/import-routes; its DLQ's,
   * workers/end-dead-letter-imports, which ends a dead-lettered import at once and releases its ids.
   */
  imports: {
    urlEnv: 'IMPORT_QUEUE_URL',
    deadLetterUrlEnv: 'IMPORT_DLQ_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 10,
    workerAttempts: 3,
    consumedDeadLetters: { visibilityTimeoutSeconds: 1800 },
  },
  /**
   * One message per accepted import, from the import and upload POSTs, carried forward in delayed hops (SQS
   * delays 15 minutes at most) until the import's deadline: one still pending then is ended and its ids
   * released. Consumer: workers/end-overdue-imports, which also sends the next hop.
   */
  importDeadlines: {
    urlEnv: 'IMPORT_DEADLINE_QUEUE_URL',
    deadLetterUrlEnv: 'IMPORT_DEADLINE_DLQ_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 5,
  },
  /**
   * Route events: new event items of the table, carried from its stream by the event pipe
   * (lib/constructs/event-pipe.ts; no code of the service sends here). Consumer: workers/fan-out-events.
   */
  events: {
    urlEnv: 'EVENT_QUEUE_URL',
    deadLetterUrlEnv: 'EVENT_DLQ_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
  },
  /**
   * One message per (event, webhook) delivery attempt, from the fan-out, the webhook test and redeliveries.
   * Retries are new messages with a delay (the delivery schedule); a delivery whose signing secret does not
   * decrypt is sent to the DLQ by the consumer. Consumer: workers/deliver-webhooks.
   */
  deliveries: {
    urlEnv: 'DELIVERY_QUEUE_URL',
    deadLetterUrlEnv: 'DELIVERY_DLQ_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 10,
  },
  /**
   * Routes marked deleting whose rows are still to go, from the route DELETE. Consumer: workers/delete-routes,
   * which sends the rest of a large route to itself.
   */
  deletions: {
    urlEnv: 'DELETION_QUEUE_URL',
    deadLetterUrlEnv: 'DELETION_DLQ_URL',
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
  },
  /** Analytics download requests, from the download request POST. Consumer: workers/export-analytics. */
  analytics: {
    urlEnv: 'ANALYTICS_QUEUE_URL',
    deadLetterUrlEnv: 'ANALYTICS_DLQ_URL',
    visibilityTimeoutSeconds: 3600,
    maxReceiveCount: 10,
    workerAttempts: 3,
  },
});

export type ChannelName = keyof typeof channels;

/** Every channel, in the order above (CDK makes their queues in it). */
export const allChannels: readonly Channel[] = Object.values(channels);
