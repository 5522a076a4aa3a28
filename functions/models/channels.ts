import { defineChannel } from '../shared/channel';
import * as z from '../shared/zod';
import type { WebhookEvent } from './event-catalog';
import { EVENT_TYPES } from './event-types';

// ---- The messages, each declared once (zod; built when a channel first needs them) ----

/** An accepted import, as the imports queue and the import deadline checks carry it: its payload waits in the bucket (claim-check). */
const importMessage = () =>
  z.object({
    account_id: z.string(),
    dc_id: z.string(),
    txid: z.string(),
    /** Set on a revision of an existing route (PUT .../revision), which its own use case runs. */
    revision: z.optional(z.literal(true)),
  });
export type ImportMessage = z.output<ReturnType<typeof importMessage>>;

/** An object S3 reports created under the uploads prefix. */
export interface UploadArrival {
  /** The object's key, decoded. */
  key: string;
  /** When S3 received the object (its event's `eventTime`, epoch ms), however long the message then waited. */
  arrivedAt: number;
}

/** What a message of the imports queue (or of its DLQ) names. */
export type ImportQueueMessage =
  | { kind: 'import'; import: ImportMessage }
  | { kind: 'uploads'; uploads: UploadArrival[] }
  /** S3 sends one when the notification configuration is saved; it carries no upload. */
  | { kind: 's3TestEvent' };

/** S3's test event, sent when a notification configuration is saved; it carries no upload. */
const s3TestEvent = () => z.object({ Event: z.literal('s3:TestEvent') });

/**
 * S3's notification of created objects (event message structure 2.x, as far as it is read): each object's key,
 * decoded, and when S3 received it. `eventTime` is ISO 8601 with milliseconds, in UTC (`2023-09-18T10:03:15.979Z`).
 */
const s3ObjectsCreated = () =>
  z.pipe(
    z.object({
      Records: z.array(
        z.object({
          eventTime: z.iso.datetime({ offset: true }),
          s3: z.object({ object: z.object({ key: z.string() }) }),
        }),
      ),
    }),
    z.transform(({ Records }): UploadArrival[] =>
      Records.map(({ eventTime, s3 }) => ({
        // S3 event keys come URL-encoded as form values, spaces as `+`.
        key: decodeURIComponent(s3.object.key.replace(/\+/g, ' ')),
        arrivedAt: Date.parse(eventTime),
      })),
    ),
  );

/**
 * What the imports queue (and its DLQ) holds: S3's test event, S3's notification of uploads, or a queued
 * import, tried in that order. A message of none of these shapes is refused with what the queued import lacks.
 */
function importQueueMessage(): z.ZodMiniType<ImportQueueMessage> {
  const testEvent = s3TestEvent();
  const notification = s3ObjectsCreated();
  const queued = importMessage();
  return z.transform((body: unknown, context): ImportQueueMessage => {
    if (testEvent.safeParse(body).success) return { kind: 's3TestEvent' };
    const uploads = notification.safeParse(body);
    if (uploads.success) return { kind: 'uploads', uploads: uploads.data };
    const imported = queued.safeParse(body);
    if (imported.success) return { kind: 'import', import: imported.data };
    for (const issue of imported.error.issues)
      context.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: body });
    return z.NEVER;
  });
}

/**
 * What the proof uploads queue holds: S3's notification of objects created under the proofs prefix, or its
 * test event (no uploads). Anything else is refused with what the notification lacks.
 */
function proofUploadsMessage(): z.ZodMiniType<UploadArrival[]> {
  const testEvent = s3TestEvent();
  const notification = s3ObjectsCreated();
  return z.transform((body: unknown, context): UploadArrival[] => {
    if (testEvent.safeParse(body).success) return [];
    const uploads = notification.safeParse(body);
    if (uploads.success) return uploads.data;
    for (const issue of uploads.error.issues)
      context.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: body });
    return z.NEVER;
  });
}

/** A route marked deleting, whose rows the deletion worker removes. */
const deletionMessage = () => z.object({ account_id: z.string(), route_id: z.string() });
export type DeletionMessage = z.output<ReturnType<typeof deletionMessage>>;

/** An analytics download request, which the export worker runs. */
const exportMessage = () => z.object({ account_id: z.string(), txid: z.string() });
export type ExportMessage = z.output<ReturnType<typeof exportMessage>>;

/** An optimization of a route's order, which the optimization worker runs. */
const optimizationMessage = () =>
  z.object({ account_id: z.string(), dc_id: z.string(), route_id: z.string(), optimization_id: z.string() });
export type OptimizationMessage = z.output<ReturnType<typeof optimizationMessage>>;

/**
 * An event as the deliveries queue carries it. Its type and payload were checked against the event catalog
 * when it was written (data/events.ts) or made (PING); a queued event may be a stored one sent again (a
 * redelivery, up to 30 days later) from before a change of the catalog, so the queue checks its envelope and
 * carries its payload as it was.
 */
const queuedEvent = () =>
  z.pipe(
    z.object({
      event_id: z.string(),
      type: z.enum(EVENT_TYPES),
      dc_id: z.nullable(z.string()),
      route_id: z.nullable(z.string()),
      // Absent on a message queued before sequences.
      sequence: z.optional(z.nullable(z.int().check(z.minimum(1)))),
      occurred_at: z.number(),
      details: z.record(z.string(), z.unknown()),
    }),
    z.transform(({ sequence = null, ...event }) => ({ ...event, sequence }) as WebhookEvent),
  );

/** One delivery of one event to one webhook; a retry is a new message with the next attempt number. */
const deliveryMessage = () =>
  z.object({
    account_id: z.string(),
    webhook_id: z.string(),
    event: queuedEvent(),
    attempt: z.int().check(z.minimum(1)),
    /** When the first attempt was made (retries stop once the schedule is used up). */
    first_attempt_at: z.optional(z.number()),
    /** Not before this time: SQS delays at most 15 minutes, so longer waits take several hops. */
    due_at: z.optional(z.number()),
    /** Set by the first attempt (or by a redelivery request), then carried by every retry. */
    delivery_id: z.optional(z.string()),
    /** On a redelivery: the original delivery it sends again. */
    redelivery_of: z.optional(z.string()),
  });
export type DeliveryMessage = z.output<ReturnType<typeof deliveryMessage>>;

/**
 * A message of the events queue: the table stream's record of a new item, as the event pipe sends it (one
 * record a message; a list of records is read too), its image in DynamoDB's attribute-value form. What the
 * image holds is read in data/events.ts; a record without a new image carries no event.
 */
const streamRecords = () =>
  z.pipe(
    z.transform((body) => (Array.isArray(body) ? body : [body])),
    z.array(
      z.object({
        dynamodb: z.optional(
          z.object({ NewImage: z.optional(z.record(z.string(), z.record(z.string(), z.unknown()))) }),
        ),
      }),
    ),
  );
export type StreamRecord = z.output<ReturnType<typeof streamRecords>>[number];

/**
 * An event that may cause customer messages (domain/notifications.ts): the fan-out sends one for each event of
 * a type a trigger the event's DC has on listens to. The consumer reads the event's details back from its item.
 */
/**
 * The stops one run of the notifications worker takes on: an event about more (a large route's
 * ROUTE_STARTED) is queued again in parts of this many, so no run outlasts its timeout.
 */
export const NOTIFICATION_STOPS_PER_MESSAGE = 25;
/** The notifications worker's timeout: a message it recorded QUEUED and did not send by then, it never will. */
export const NOTIFICATION_WORKER_TIMEOUT_SECONDS = 60;

const notificationMessage = () =>
  z.object({
    account_id: z.string(),
    dc_id: z.string(),
    route_id: z.string(),
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES),
    occurred_at: z.number(),
    /** Only these of the stops the event concerns (a part of a large event, queued by the worker itself). */
    waypoint_ids: z.optional(
      z.array(z.string()).check(z.minLength(1), z.maxLength(NOTIFICATION_STOPS_PER_MESSAGE)),
    ),
  });
export type NotificationMessage = z.output<ReturnType<typeof notificationMessage>>;

/**
 * A notification of the message outcomes topic as SNS delivers it to a queue (without raw delivery: SES's
 * first message on a new destination is plain text, which the envelope carries as any other). `Message` is
 * what SES or End User Messaging SMS published (models/message-outcomes.ts reads it).
 */
const snsNotification = () =>
  z.object({ Type: z.string(), MessageId: z.string(), TopicArn: z.string(), Message: z.string() });
export type SnsNotification = z.output<ReturnType<typeof snsNotification>>;

// ---- The channels ----

// Each queue is one channel, exported on its own (`import * as channels`, then `channels.imports`): a bundle
// keeps only the channels its code uses (the calls are pure), with their schemas. Adding a queue is adding a
// channel here and to allChannels (CONTRIBUTING.md, Adding a queue).

/**
 * Accepted route imports (claim-check: the payload is in S3), from the import POST, and the bucket's
 * notifications of uploads (lib/stateful-stack.ts). Consumer: workers/import-routes; its DLQ's,
 * workers/end-dead-letter-imports, which ends a dead-lettered import at once and releases its ids.
 */
export const imports = /* @__PURE__ */ defineChannel('imports', {
  urlEnv: 'IMPORT_QUEUE_URL',
  deadLetterUrlEnv: 'IMPORT_DLQ_URL',
  visibilityTimeoutSeconds: 1800,
  maxReceiveCount: 10,
  workerAttempts: 3,
  consumedDeadLetters: { visibilityTimeoutSeconds: 1800 },
  message: importMessage,
  received: importQueueMessage,
});

/**
 * One message per accepted import, from the import and upload POSTs, carried forward in delayed hops (SQS
 * delays 15 minutes at most) until the import's deadline: one still pending then is ended and its ids
 * released. Consumer: workers/end-overdue-imports, which also sends the next hop.
 */
export const importDeadlines = /* @__PURE__ */ defineChannel('importDeadlines', {
  urlEnv: 'IMPORT_DEADLINE_QUEUE_URL',
  deadLetterUrlEnv: 'IMPORT_DEADLINE_DLQ_URL',
  visibilityTimeoutSeconds: 1800,
  maxReceiveCount: 5,
  message: importMessage,
});

/**
 * Route events: new event items of the table, carried from its stream by the event pipe
 * (lib/constructs/event-pipe.ts; no code of the service sends here). Consumer: workers/fan-out-events.
 */
export const events = /* @__PURE__ */ defineChannel('events', {
  urlEnv: 'EVENT_QUEUE_URL',
  deadLetterUrlEnv: 'EVENT_DLQ_URL',
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 5,
  message: streamRecords,
});

/**
 * Route events again, for the account's event feed (GET /events): new event items of the table, carried from
 * its stream by the feed pipe, a second pipe beside the event pipe (lib/constructs/event-pipe.ts) whose
 * messages take the event's account as their message group and its id as their deduplication id. So each
 * account's events reach the feed one batch at a time, in the order the pipe read them, and never hold up
 * another account's, nor the webhooks. Consumer: workers/append-to-feed.
 */
export const feed = /* @__PURE__ */ defineChannel('feed', {
  urlEnv: 'FEED_QUEUE_URL',
  deadLetterUrlEnv: 'FEED_DLQ_URL',
  fifo: true,
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 5,
  message: streamRecords,
});

/**
 * One message per (event, webhook) delivery attempt, from the fan-out, the webhook test and redeliveries.
 * Retries are new messages with a delay (the delivery schedule); a delivery whose signing secret does not
 * decrypt is sent to the DLQ by the consumer. Consumer: workers/deliver-webhooks.
 */
export const deliveries = /* @__PURE__ */ defineChannel('deliveries', {
  urlEnv: 'DELIVERY_QUEUE_URL',
  deadLetterUrlEnv: 'DELIVERY_DLQ_URL',
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 10,
  message: deliveryMessage,
});

/**
 * Routes marked deleting whose rows are still to go, from the route DELETE. Consumer: workers/delete-routes,
 * which sends the rest of a large route to itself.
 */
export const deletions = /* @__PURE__ */ defineChannel('deletions', {
  urlEnv: 'DELETION_QUEUE_URL',
  deadLetterUrlEnv: 'DELETION_DLQ_URL',
  visibilityTimeoutSeconds: 720,
  maxReceiveCount: 5,
  message: deletionMessage,
});

/** Analytics download requests, from the download request POST. Consumer: workers/export-analytics. */
export const analytics = /* @__PURE__ */ defineChannel('analytics', {
  urlEnv: 'ANALYTICS_QUEUE_URL',
  deadLetterUrlEnv: 'ANALYTICS_DLQ_URL',
  visibilityTimeoutSeconds: 3600,
  maxReceiveCount: 10,
  workerAttempts: 3,
  message: exportMessage,
});

/**
 * S3's notifications of objects created under the proofs prefix (lib/stateful-stack.ts; no code of the
 * service sends here): the proofs drivers uploaded. Consumer: workers/check-proofs, which checks each object
 * against what its proof declared.
 */
export const proofUploads = /* @__PURE__ */ defineChannel('proofUploads', {
  urlEnv: 'PROOF_UPLOAD_QUEUE_URL',
  deadLetterUrlEnv: 'PROOF_UPLOAD_DLQ_URL',
  visibilityTimeoutSeconds: 360,
  maxReceiveCount: 5,
  message: proofUploadsMessage,
});

/**
 * Optimizations of routes' orders, from the optimization POST. Consumer: workers/optimize-routes, which runs
 * the route optimizer and records (and, when asked, applies) its order.
 */
export const optimizations = /* @__PURE__ */ defineChannel('optimizations', {
  urlEnv: 'OPTIMIZATION_QUEUE_URL',
  deadLetterUrlEnv: 'OPTIMIZATION_DLQ_URL',
  visibilityTimeoutSeconds: 360,
  maxReceiveCount: 3,
  message: optimizationMessage,
});

/**
 * Events that may cause customer messages, from the fan-out (workers/fan-out-events), one per event whose DC
 * has a trigger on that listens to its type. Consumer: workers/send-notifications, which renders and sends
 * each stop's messages (SES, End User Messaging SMS; the local outbox locally).
 */
export const notifications = /* @__PURE__ */ defineChannel('notifications', {
  urlEnv: 'NOTIFICATION_QUEUE_URL',
  deadLetterUrlEnv: 'NOTIFICATION_DLQ_URL',
  visibilityTimeoutSeconds: 360,
  maxReceiveCount: 5,
  message: notificationMessage,
});

/**
 * What SES and End User Messaging SMS tell of customer messages after they were sent (delivery events, SMS
 * receipts, two-way SMS replies), through the message outcomes topic (lib/constructs/message-outcomes.ts; no
 * code of the service sends here; locally the outbox publishes them). Consumer: workers/record-message-outcomes.
 */
export const messageOutcomes = /* @__PURE__ */ defineChannel('messageOutcomes', {
  urlEnv: 'MESSAGE_OUTCOME_QUEUE_URL',
  deadLetterUrlEnv: 'MESSAGE_OUTCOME_DLQ_URL',
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 5,
  message: snsNotification,
});

/** Every channel, in the order CDK makes their queues. */
export const allChannels = [
  imports,
  importDeadlines,
  events,
  feed,
  deliveries,
  deletions,
  analytics,
  proofUploads,
  optimizations,
  notifications,
  messageOutcomes,
] as const;

export type ChannelName = (typeof allChannels)[number]['name'];
