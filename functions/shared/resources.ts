/**
 * The stateful resources besides the table, as plain data: the CDK stateful stack, the local runtime
 * and the functions (environment variable names) all read them, so local queues behave as deployed ones.
 */
export interface QueueDefinition {
  /** Environment variable through which consumers and producers learn the queue's URL. */
  urlEnv: string;
  /**
   * At least six times the consumer's timeout, as AWS advises for SQS event sources: a message is not handed
   * out twice while in flight, even when Lambda retries a throttled batch (checked in CDK).
   */
  visibilityTimeoutSeconds: number;
  /** Receives before the message moves to the queue's DLQ. */
  maxReceiveCount: number;
  /**
   * For jobs with a record of their own (imports, download requests): runs of the worker counted on the
   * record; the last one ends the job FAILED instead of leaving it PENDING. `maxReceiveCount` leaves room
   * above it for receives spent while the function was throttled.
   */
  workerAttempts?: number;
  /** Environment variable with the DLQ's URL, for consumers that give a message up themselves. */
  deadLetterUrlEnv: string;
  /**
   * Set where a consumer reads the DLQ (its row's `deadLetters`): the DLQ's visibility timeout, at least six
   * times that consumer's timeout as for a queue (checked in CDK). Its alarm then counts the messages received
   * from the DLQ instead of its depth, which the consumer keeps at zero.
   */
  consumedDeadLetters?: { visibilityTimeoutSeconds: number };
}

export const QUEUES = {
  /** Accepted route imports (claim-check: the payload is in S3). */
  imports: {
    urlEnv: 'IMPORT_QUEUE_URL',
    deadLetterUrlEnv: 'IMPORT_DLQ_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 10,
    workerAttempts: 3,
    // A dead-lettered import is ended at once (workers/end-dead-letter-imports), its ids released.
    consumedDeadLetters: { visibilityTimeoutSeconds: 1800 },
  },
  /**
   * One message per accepted import, carried forward in delayed hops (SQS delays 15 minutes at most) until
   * the import's deadline: one still pending then is ended and its ids released (workers/end-overdue-imports).
   */
  importDeadlines: {
    urlEnv: 'IMPORT_DEADLINE_QUEUE_URL',
    deadLetterUrlEnv: 'IMPORT_DEADLINE_DLQ_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 5,
  },
  /** Route events carried from the table stream. */
  events: {
    urlEnv: 'EVENT_QUEUE_URL',
    deadLetterUrlEnv: 'EVENT_DLQ_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
  },
  /**
   * One message per (event, webhook) delivery attempt. Retries are new messages with a delay (the
   * delivery consumer's schedule); a delivery that used up its schedule is sent to the DLQ by the consumer.
   */
  deliveries: {
    urlEnv: 'DELIVERY_QUEUE_URL',
    deadLetterUrlEnv: 'DELIVERY_DLQ_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 10,
  },
  /** Routes marked deleting whose rows are still to go. */
  deletions: {
    urlEnv: 'DELETION_QUEUE_URL',
    deadLetterUrlEnv: 'DELETION_DLQ_URL',
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
  },
  /** Analytics download requests. */
  analytics: {
    urlEnv: 'ANALYTICS_QUEUE_URL',
    deadLetterUrlEnv: 'ANALYTICS_DLQ_URL',
    visibilityTimeoutSeconds: 3600,
    maxReceiveCount: 10,
    workerAttempts: 3,
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof QUEUES;

export const DLQ_RETENTION_DAYS = 14;

/** Object lifetimes by key prefix in the one private bucket. */
export const BUCKET_LIFECYCLE = [
  { prefix: 'imports/', expireAfterDays: 1 },
  { prefix: 'uploads/', expireAfterDays: 1 },
  { prefix: 'analytics/', expireAfterDays: 7 },
] as const;

/**
 * Where clients PUT route uploads through presigned links: the bucket notifies the imports queue of objects
 * created under this prefix only (the service's own objects elsewhere start nothing).
 */
export const IMPORT_UPLOADS_PREFIX = 'uploads/';

/** Where the analytics export writes its CSV files, which clients download through presigned links. */
export const ANALYTICS_FILES_PREFIX = 'analytics/';

/** The variables that tell a function its resources, set only where it is granted them (ServiceFunction). */
export const RESOURCE_ENV = {
  table: 'TABLE_NAME',
  bucket: 'BUCKET_NAME',
  /** The role a function that hands out presigned links signs them with (ResourceAccess.signLinks). */
  linkSignerRoleArn: 'LINK_SIGNER_ROLE_ARN',
  /** The ARN of the KMS key webhook signing secrets are encrypted under (ResourceAccess.webhookSecrets). */
  webhookSecretsKeyArn: 'WEBHOOK_SECRETS_KEY_ARN',
} as const;

/**
 * The names of the encryption context every use of the webhook secrets key gives (the secret's owner). The
 * key's grants allow no other context, and no call without one (lib/constructs/service-function.ts).
 */
export const WEBHOOK_SECRET_CONTEXT_KEYS = ['account_id', 'webhook_id'] as const;
export type WebhookSecretContext = Record<(typeof WEBHOOK_SECRET_CONTEXT_KEYS)[number], string>;
