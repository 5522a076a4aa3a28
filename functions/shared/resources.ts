/**
 * The stateful resources besides the table and the queues (functions/models/channels.ts), as plain data: the CDK
 * stateful stack, the local runtime and the functions (environment variable names) all read them.
 */

/**
 * How long a dead-letter queue keeps a message. A standard queue's message expires by the time it was first
 * sent, wherever it is: no message of a queue with a DLQ is older than this.
 */
export const DLQ_RETENTION_DAYS = 14;

/** How long a queue keeps a message no consumer deleted (SQS's default, set on every queue, not left implied). */
export const QUEUE_RETENTION_DAYS = 4;

/**
 * Where the import worker keeps a revision's before image (what it replaces, written before any row), read
 * by every rollback of the revision. Kept longer than any message of the revision lives (DLQ_RETENTION_DAYS),
 * so that no run that could roll it back finds its image expired.
 */
export const REVISION_IMAGES_PREFIX = 'revisions/';
export const REVISION_IMAGE_DAYS = DLQ_RETENTION_DAYS + 1;

/** Where the import and revision POSTs store the bodies the import worker reads. */
export const IMPORT_PAYLOADS_PREFIX = 'imports/';

/** Object lifetimes by key prefix in the one private bucket. */
export const BUCKET_LIFECYCLE = [
  { prefix: IMPORT_PAYLOADS_PREFIX, expireAfterDays: 1 },
  { prefix: REVISION_IMAGES_PREFIX, expireAfterDays: REVISION_IMAGE_DAYS },
  { prefix: 'uploads/', expireAfterDays: 1 },
  { prefix: 'analytics/', expireAfterDays: 7 },
] as const;

/**
 * Where clients PUT route uploads through presigned links: the bucket notifies the imports queue of objects
 * created under this prefix only (the service's own objects elsewhere start nothing).
 */
export const IMPORT_UPLOADS_PREFIX = 'uploads/';

/**
 * Where drivers PUT proofs of delivery (photos, signatures) through presigned links, and where delivery notes
 * are written: kept `proofRetentionDays` (CDK context, PROOF_RETENTION_DAYS_DEFAULT by default) by a lifecycle
 * rule of their own, whatever happens to their route. The bucket notifies the proof uploads queue of objects
 * created under it, whose worker checks each upload.
 */
export const PROOFS_PREFIX = 'proofs/';

/**
 * Where the evidence reads write delivery notes (PDFs), under the proofs prefix so that its lifecycle rule keeps
 * them as long: `<prefix><account>/<route>/<sha256 of the note's content>.pdf`. Account ids start with `acc_`,
 * so no proof's key is under it.
 */
export const DELIVERY_NOTES_PREFIX = `${PROOFS_PREFIX}delivery-notes/`;

/**
 * The font delivery notes are set in, DejaVu Sans (Latin, Greek, Cyrillic and more, so that any signer's or
 * customer's name prints), shipped beside the evidence endpoint's bundle with its license and read at run time.
 */
export const DELIVERY_NOTE_FONT_FILES = [
  'dejavu-fonts-ttf/package.json',
  'dejavu-fonts-ttf/LICENSE',
  'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
] as const;

/** How long proofs of delivery and delivery notes are kept when the deployment does not say (`proofRetentionDays`). */
export const PROOF_RETENTION_DAYS_DEFAULT = 400;

const DAY_MS = 86_400_000;

/**
 * When a lifecycle rule of `days` expires an object created at `createdAt` (epoch ms): S3 adds the days to
 * the object's creation time and rounds the result up to the next midnight UTC (S3 User Guide, "Setting
 * lifecycle configuration": an object of 10:30 on 1/15 under a 3-day rule expires at 00:00 on 1/19). S3
 * removes it some time after; what the service records of it ends at this moment, and the local runtime's
 * expiry (local/cloud/expiry.ts) deletes it then.
 */
export const lifecycleExpiry = (createdAt: number, days: number): number =>
  (Math.floor(createdAt / DAY_MS) + days + 1) * DAY_MS;

/** Where the analytics export writes its CSV files, which clients download through presigned links. */
export const ANALYTICS_FILES_PREFIX = 'analytics/';

/** The variables that tell a function its resources, set only where it is granted them (ServiceFunction). */
export const RESOURCE_ENV = {
  table: 'TABLE_NAME',
  bucket: 'BUCKET_NAME',
  /** The role a function that hands out presigned links signs them with (ResourceAccess.signLinks). */
  linkSignerRoleArn: 'LINK_SIGNER_ROLE_ARN',
  /**
   * The ARN of the KMS key webhook signing secrets (ResourceAccess.webhookSecrets) and stop PINs
   * (ResourceAccess.stopPins) are encrypted under, each under an encryption context of its own.
   */
  webhookSecretsKeyArn: 'WEBHOOK_SECRETS_KEY_ARN',
  /** The API's own base URL, for links to it (EndpointDefinition.linksToApi). */
  apiUrl: 'API_URL',
  /**
   * The days the bucket keeps proofs and delivery notes (`proofRetentionDays`), for the functions granted the
   * proofs prefix: the records of those objects end when the objects do (lifecycleExpiry).
   */
  proofRetentionDays: 'PROOF_RETENTION_DAYS',
  /**
   * Customer messages (ResourceAccess.customerMessages), each set only when the deployment configures its
   * channel (docs/configuration.md): the SES sender address and configuration set, the End User Messaging
   * SMS origination identity and configuration set. A channel without its sender is not sent.
   */
  emailFrom: 'NOTIFY_EMAIL_FROM',
  emailConfigurationSet: 'NOTIFY_EMAIL_CONFIGURATION_SET',
  smsOriginationIdentity: 'NOTIFY_SMS_ORIGINATION_IDENTITY',
  smsConfigurationSet: 'NOTIFY_SMS_CONFIGURATION_SET',
} as const;

/**
 * The names of the encryption context every use of the webhook secrets key gives (the secret's owner). The
 * key's grants allow no other context, and no call without one (lib/constructs/service-function.ts).
 */
export const WEBHOOK_SECRET_CONTEXT_KEYS = ['account_id', 'webhook_id'] as const;
export type WebhookSecretContext = Record<(typeof WEBHOOK_SECRET_CONTEXT_KEYS)[number], string>;

/**
 * The names of the encryption context every use of the same key for stop PINs gives (the route the PIN is of):
 * a grant of `stopPins` allows this context only, so a function that opens PINs opens no webhook secret, and
 * one that opens webhook secrets no PIN (lib/constructs/service-function.ts).
 */
export const STOP_PIN_CONTEXT_KEYS = ['account_id', 'route_id'] as const;
export type StopPinContext = Record<(typeof STOP_PIN_CONTEXT_KEYS)[number], string>;

/**
 * The names of the encryption context a waypoint's recipient is sealed under (its route): not stop PINs'
 * (`route_id`), so a grant for recipients opens no PIN and one for PINs no recipient, nor either a webhook
 * secret (lib/constructs/service-function.ts).
 */
export const RECIPIENT_CONTEXT_KEYS = ['account_id', 'recipient_route_id'] as const;
export type RecipientContext = Record<(typeof RECIPIENT_CONTEXT_KEYS)[number], string>;
