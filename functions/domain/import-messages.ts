import * as z from 'zod';

/** The message the import queue carries for an accepted import: the payload itself waits in the bucket (claim-check). */
export interface ImportMessage {
  account_id: string;
  dc_id: string;
  txid: string;
}

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

const QueuedImport = z.object({ account_id: z.string(), dc_id: z.string(), txid: z.string() });

/**
 * What the bucket sends when an upload arrives (S3 event message structure 2.x), as far as it is read.
 * `eventTime` is when S3 received the object: ISO 8601 with milliseconds, in UTC (`2023-09-18T10:03:15.979Z`).
 */
const S3Notification = z.object({
  Records: z.array(
    z.object({
      eventTime: z.iso.datetime({ offset: true }),
      s3: z.object({ object: z.object({ key: z.string() }) }),
    }),
  ),
});

const S3TestEvent = z.object({ Event: z.literal('s3:TestEvent') });

/** Reads a queued import (the imports queue's own messages, and the import deadline checks). */
export const readQueuedImport = (body: unknown): ImportMessage => QueuedImport.parse(body);

/** Reads a message body of the imports queue; throws for one of no known shape. */
export function readImportQueueMessage(body: unknown): ImportQueueMessage {
  if (S3TestEvent.safeParse(body).success) return { kind: 's3TestEvent' };
  const notification = S3Notification.safeParse(body);
  if (!notification.success) return { kind: 'import', import: readQueuedImport(body) };
  return {
    kind: 'uploads',
    uploads: notification.data.Records.map(({ eventTime, s3 }) => ({
      // S3 event keys come URL-encoded as form values, spaces as `+`.
      key: decodeURIComponent(s3.object.key.replace(/\+/g, ' ')),
      arrivedAt: Date.parse(eventTime),
    })),
  };
}
