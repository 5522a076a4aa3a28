import type { Channel } from './channel';

/** What an endpoint's Lambda may do to the table; CDK grants exactly this and nothing more. */
export type TableAccess = 'read' | 'readWrite';

export interface LinkSigning {
  access: 'read' | 'write';
  keyPrefix: string;
  /**
   * Write links that may only create an object, never replace one: each is signed with `If-None-Match: *`
   * (S3 conditional writes, functions/data/bucket-links.ts), and the signer's role is refused a PutObject
   * without it, so no link of it can be signed otherwise.
   */
  createOnly?: true;
}

/** What a function may touch; CDK grants exactly this and sets the matching environment variables. */
export interface ResourceAccess {
  table?: TableAccess;
  /**
   * PartiQL INSERTs into the table (dynamodb:PartiQLInsert on it, nothing else of PartiQL): puts of new items
   * only, which is how id claims are taken (functions/data/claims.ts).
   */
  tableInserts?: true;
  /** Objects in the one bucket: read (GetObject) or write (PutObject), of keys under `bucketKeyPrefixes`. */
  bucket?: 'read' | 'write';
  /**
   * The key prefixes `bucket` applies to, each one the function's code reads or writes: required with
   * `bucket` (CDK refuses a grant of the whole bucket), so that no function reaches another prefix's
   * objects (an import's code, a tenant's proofs).
   */
  bucketKeyPrefixes?: readonly string[];
  /**
   * Keys under this prefix the function also writes (PutObject), beside what `bucket` grants: an evidence read
   * reads proofs and writes the delivery notes kept among them, and may overwrite no proof.
   */
  bucketWriteKeyPrefix?: string;
  /**
   * Presigned links the function hands out: CDK makes a role that may only read (GetObject) or only write
   * (PutObject) keys under `keyPrefix`, which only this function may assume; links are signed with its
   * credentials (functions/data/bucket-links.ts). The function itself gets no S3 action for this.
   */
  signLinks?: LinkSigning;
  /** Channels the function sends messages to (functions/models/channels.ts). */
  sendTo?: Channel[];
  /** Channels whose DLQ the function sends messages to (a consumer giving a message up itself). */
  sendToDeadLetter?: Channel[];
  /**
   * Webhook signing secrets, encrypted under the stateful stack's KMS key (functions/data/secret-envelope.ts):
   * 'encrypt' makes new ones (kms:GenerateDataKey), 'decrypt' reads them (kms:Decrypt); only on that key.
   */
  webhookSecrets?: 'encrypt' | 'decrypt';
  /**
   * Stop PINs (the customer's code of a stop that requires one), sealed under the same key as webhook secrets
   * but under an encryption context of their own (functions/domain/stop-pins.ts): 'encrypt' draws new ones
   * (kms:GenerateDataKey), 'decrypt' shows them (kms:Decrypt). Checking a PIN needs neither: it is checked
   * against its hash.
   */
  stopPins?: 'encrypt' | 'decrypt';
  /**
   * Waypoints' recipients (name, phone, email), sealed under the same KMS key as webhook secrets but under a
   * route's encryption context (RECIPIENT_CONTEXT_KEYS, functions/domain/recipients.ts): 'encrypt' seals
   * the recipients of an import or revision (kms:GenerateDataKey), 'decrypt' opens them to send a customer
   * message (kms:Decrypt); only on that key, only under that context.
   */
  recipients?: 'encrypt' | 'decrypt';
  /**
   * Sends customer messages: ses:SendEmail with the configured sender identity and configuration set, and
   * sms-voice:SendTextMessage with the configured origination identity and configuration set, each only when
   * the deployment configures that channel (docs/configuration.md), and nothing else of SES or SMS.
   */
  customerMessages?: MessageSenders;
}

/**
 * The senders of customer messages a deployment configures (CDK context, docs/configuration.md); a consumer
 * declares `{}` and the app fills in what is configured. Without `email` or `sms` that channel is not sent.
 */
export interface MessageSenders {
  /** SES v2: the verified identity (a domain or an address), the From address, the configuration set. */
  email?: { identity: string; from: string; configurationSet?: string };
  /** End User Messaging SMS: the origination identity (phone number id, pool id or ARN), the configuration set. */
  sms?: { originationIdentity: string; configurationSet?: string };
}
