import { createHash } from 'node:crypto';
import { getObjectBytes, putObjectBytes, readableObjectMetadata } from '../data/bucket';
import { bucketKeys } from '../data/bucket-keys';
import { type PresignedLink, presignedDownloadLink } from '../data/bucket-links';
import type { ItemStatus } from '../data/route-rows';
import type { Applied } from '../models/delivery-requirements';
import { PROOF_LIMITS } from '../shared/limits';
import { logger } from '../shared/observability';

/** Everything a delivery note shows; the same content makes the same note (see deliveryNote). */
export interface DeliveryNoteContent {
  dc: { id: string; name: string; timeZone: string };
  route: { id: string; name: string };
  waypoint: { id: string; name?: string; address?: string; customerId?: string; status: string };
  invoice: {
    id: string;
    paymentMethod?: string;
    nameAttributes: { key: string; value: string }[];
    items: {
      id: string;
      sku?: string;
      name?: string;
      quantity: number;
      unit?: string;
      status?: ItemStatus;
    }[];
  };
  attempts: {
    id: string;
    timestamp: number;
    status: string;
    reason?: { code: string; message: string };
    location?: { latitude: number; longitude: number };
    signerName?: string;
    /** The delivery rules the attempt was held to (absent before delivery rules). */
    rules?: Applied;
    /** How many of its scans counted for an item of the stop, and how many matched none. */
    scans?: { matched: number; mismatched: number };
    pinVerified?: boolean;
    /** The ID check's outcome against the stop's minimum age (never a date of birth). */
    ageCheck?: { result: 'OLD_ENOUGH' | 'UNDER_AGE' };
  }[];
  signer?: { name: string; attemptId: string; timestamp: number };
  /** The signature proof whose image the note shows. */
  signature?: { proofId: string; sha256: string; contentType: string };
  /** The time of the latest thing the note shows (its last attempt; the route's start before any). */
  asOf: number;
}

/** A stored delivery note behind a presigned link, and the SHA-256 (hex) of its PDF. */
export interface DeliveryNote {
  download: PresignedLink;
  sha256: string;
}

/** Changes with the note's layout, so that notes drawn by an older layout are drawn again. */
const NOTE_LAYOUT_VERSION = 3;

/** The object metadata (x-amz-meta-sha256) that holds the PDF's own SHA-256. */
const SHA256_METADATA = 'sha256';

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The note of `content`, drawn once: its object is named by the SHA-256 of the content (with the layout's
 * version), so a read of evidence that has not changed finds the note drawn before and only signs a link to
 * it; a new attempt or proof makes a new note. Notes lie under the proofs prefix and are kept as long as the
 * proofs (`proofRetentionDays`), whatever happens to the route. `signatureKey` is the object of the
 * signature proof the content names. A note is drawn only while `mayDraw` (the evidence is whole, see
 * invoiceEvidence): after that a note drawn before is still served while the bucket keeps it, and otherwise
 * there is none (undefined), never one drawn again from what is left.
 */
export async function deliveryNote(
  accountId: string,
  routeId: string,
  content: DeliveryNoteContent,
  { signatureKey, mayDraw }: { signatureKey?: string; mayDraw: boolean },
): Promise<DeliveryNote | undefined> {
  const contentSha256 = sha256Hex(JSON.stringify({ layout: NOTE_LAYOUT_VERSION, content }));
  const key = bucketKeys.deliveryNote(accountId, routeId, contentSha256);
  let sha256 = (await readableObjectMetadata(key))?.[SHA256_METADATA];
  if (sha256 === undefined) {
    if (!mayDraw) return undefined;
    const signatureBytes = signatureKey ? await readSignature(signatureKey) : undefined;
    const { renderDeliveryNote } = await import('./delivery-note-pdf');
    const startedAt = performance.now();
    const pdf = await renderDeliveryNote(content, signatureBytes);
    logger.info('delivery note rendered', {
      render_ms: Math.round(performance.now() - startedAt),
      pdf_bytes: pdf.length,
    });
    sha256 = sha256Hex(pdf);
    await putObjectBytes(key, pdf, 'application/pdf', { [SHA256_METADATA]: sha256 });
  }
  const download = await presignedDownloadLink(
    key,
    PROOF_LIMITS.downloadLinkSeconds,
    `delivery-note-${contentSha256.slice(0, 16)}.pdf`,
  );
  return { download, sha256 };
}

/** The signature's bytes; undefined when they cannot be read (the note then says so instead of failing). */
async function readSignature(key: string): Promise<Uint8Array | undefined> {
  try {
    return await getObjectBytes(key, PROOF_LIMITS.maxBytes);
  } catch (error) {
    logger.warn('signature of a delivery note not read', { key, error });
    return undefined;
  }
}
