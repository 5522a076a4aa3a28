import { objectExists } from '../data/bucket';
import { getImport } from '../data/imports';
import type { ImportMessage } from '../models/channels';
import { scheduleDeadlineCheck } from './import-deadlines';
import type { ImportOutcome } from './route-import';

export type DeadlineCheckOutcome = ImportOutcome | 'WAITING';

/**
 * Checks an import against its deadlines, from the import deadlines queue (one message per import, sent before
 * its record was written, and carried forward until it is due):
 * - finished (or never recorded: its POST failed first): nothing to do;
 * - an upload the worker has not seen by its arrival deadline: failed (3015) when the object is not in the bucket
 *   (S3 reads are consistent: one still to come arrives late and is ignored); one that is there arrived in time
 *   and its notification, perhaps still queued, runs it;
 * - still pending at its deadline: abandoned (3016), its ids released (a revision: rolled back, or carried
 *   forward once committed). No run of the worker is in progress then: none starts that could end after the
 *   deadline.
 * Anything not yet due is checked again when it is (WAITING).
 *
 * Most checks end at the first or second step. The import's ending (route-import.ts: its body, claims and rows)
 * is loaded with `import()` when one is due, so the deadline worker's cold start does not load it; and only
 * the deadline worker imports this module, since a bundler makes what a module loads that way a part of every
 * function that bundles the module, used or not.
 */
export async function checkImportDeadline(message: ImportMessage): Promise<DeadlineCheckOutcome> {
  const record = await getImport(message.account_id, message.txid);
  if (record?.status !== 'PENDING') return 'ALREADY_FINISHED';
  const now = Date.now();
  const { upload } = record;
  if (upload && upload.receivedAt === undefined) {
    if (now < upload.arrivalDeadline) return checkAgain(message, upload.arrivalDeadline);
    if (!(await objectExists(record.payloadKey)))
      return (await import('./import-endings')).failExpiredUpload(record, upload);
  }
  if (now < record.deadline) return checkAgain(message, record.deadline);
  const endings = await import('./import-endings');
  return record.kind === 'REVISION'
    ? endings.abandonOverdueRevision(record)
    : endings.abandonOverdueImport(record);
}

async function checkAgain(message: ImportMessage, dueAt: number): Promise<'WAITING'> {
  await scheduleDeadlineCheck(message, dueAt);
  return 'WAITING';
}
