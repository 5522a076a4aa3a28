import {
  ANALYTICS_FILES_PREFIX,
  DELIVERY_NOTES_PREFIX,
  IMPORT_PAYLOADS_PREFIX,
  IMPORT_UPLOADS_PREFIX,
  PROOFS_PREFIX,
  REVISION_IMAGES_PREFIX,
} from '../shared/resources';

/**
 * The keys of the bucket's objects. A module of their own, apart from the object reads and writes
 * (bucket.ts) and the links (bucket-links.ts): a function that only names keys loads neither.
 */
export const bucketKeys = {
  importPayload: (accountId: string, txid: string) => `${IMPORT_PAYLOADS_PREFIX}${accountId}/${txid}.json`,
  /** What a revision replaces, kept (REVISION_IMAGE_DAYS) as long as a message can roll the revision back. */
  revisionBeforeImage: (accountId: string, txid: string) =>
    `${REVISION_IMAGES_PREFIX}${accountId}/${txid}.before.json`,
  importUpload: (accountId: string, txid: string) => `${IMPORT_UPLOADS_PREFIX}${accountId}/${txid}.json`,
  analyticsFile: (accountId: string, txid: string, name: string) =>
    `${ANALYTICS_FILES_PREFIX}${accountId}/${txid}/${name}`,
  /** Ids have no `/` (models/common.ts), so the key splits back into its parts (proofObjectOf). */
  proof: (accountId: string, routeId: string, sequence: number, proofId: string) =>
    `${PROOFS_PREFIX}${accountId}/${routeId}/${String(sequence).padStart(5, '0')}/${proofId}`,
  /** A delivery note, named by the SHA-256 (hex) of what it shows: the same content, the same object. */
  deliveryNote: (accountId: string, routeId: string, contentSha256: string) =>
    `${DELIVERY_NOTES_PREFIX}${accountId}/${routeId}/${contentSha256}.pdf`,
};

/** The parts of a proof's key (bucketKeys.proof); undefined for a key of another shape. */
export function proofObjectOf(
  key: string,
): { accountId: string; routeId: string; sequence: number; proofId: string } | undefined {
  if (!key.startsWith(PROOFS_PREFIX) || key.startsWith(DELIVERY_NOTES_PREFIX)) return undefined;
  const parts = key.slice(PROOFS_PREFIX.length).split('/');
  if (parts.length !== 4) return undefined;
  const [accountId, routeId, sequence, proofId] = parts as [string, string, string, string];
  if (!/^\d{5}$/.test(sequence) || !accountId || !routeId || !proofId) return undefined;
  return { accountId, routeId, sequence: Number(sequence), proofId };
}
