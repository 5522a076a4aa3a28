import type { AgeCheck, AttemptStatus, ItemOutcome, Scan } from '../data/attempts';
import type { ProofType } from '../data/proofs';
import type { Applied } from '../models/delivery-requirements';
import { ConflictError, ValidationError } from '../shared/errors';
import { quote, quoteList } from '../shared/quote';

/**
 * Delivery rules at the door (docs/api.md, Delivery rules): what a visit that delivers something must show.
 * The checks are pure: recordAttempt reads the stop, its items and the named proofs, and refuses the attempt
 * before anything is written.
 */

/** An item of the stop with what a scan is matched against. */
export interface StopItem {
  id: string;
  barcodes: readonly string[];
}

/** A scan as the driver app sent it. */
export interface ScanInput {
  value: string;
  timestamp: number;
  itemId?: string;
}

/**
 * The item each scan counts for: the item it names, when one of that item's barcodes is its value; else, when
 * it names none, the first item of the stop with that barcode that no earlier scan counted for (the first such
 * item once all have one: scanning a case twice is no mismatch). None: a mismatch, kept and shown. One item per
 * scan keeps a stored attempt bounded however many items share a barcode.
 */
export function matchScans(scans: readonly ScanInput[], items: readonly StopItem[]): Scan[] {
  const itemsByBarcode = new Map<string, string[]>();
  for (const item of items) {
    for (const barcode of item.barcodes)
      itemsByBarcode.set(barcode, [...(itemsByBarcode.get(barcode) ?? []), item.id]);
  }
  const counted = new Set<string>();
  return scans.map((scan) => {
    const withValue = itemsByBarcode.get(scan.value) ?? [];
    const matched =
      scan.itemId === undefined
        ? (withValue.find((itemId) => !counted.has(itemId)) ?? withValue[0])
        : withValue.find((itemId) => itemId === scan.itemId);
    if (matched !== undefined) counted.add(matched);
    return { value: scan.value, timestamp: scan.timestamp, item_id: scan.itemId, matched_item_id: matched };
  });
}

/** The ids of the stop's items the visit delivers: listed SUCCESSFUL, or unlisted under a SUCCESSFUL attempt. */
export function deliveredItemIds(
  status: AttemptStatus,
  listed: readonly { id: string; status: ItemOutcome }[],
  items: readonly StopItem[],
): string[] {
  const outcomes = new Map(listed.map((item) => [item.id, item.status]));
  return items
    .filter(
      (item) =>
        (outcomes.get(item.id) ?? (status === 'SUCCESSFUL' ? 'SUCCESSFUL' : 'FAILED')) === 'SUCCESSFUL',
    )
    .map((item) => item.id);
}

/** What the visit shows at the door, for the rules to be checked against. */
export interface DoorEvidence {
  status: AttemptStatus;
  delivered: readonly string[];
  proofTypes: readonly ProofType[];
  signerName?: string;
  scans: readonly Scan[];
  items: readonly StopItem[];
}

/**
 * Refuses a visit that delivers something (a SUCCESSFUL attempt, or a SUCCESSFUL item) without what the stop's
 * rules ask for, with the code of the first rule missed; FAILED and VISIT_LATER visits that deliver nothing are
 * held to none. The age check (checkAge) and the PIN (./pin-checks.ts) are checked by their own functions.
 */
export function rejectMissingEvidence(waypointId: string, rules: Applied, door: DoorEvidence): void {
  if (!deliversSomething(door)) return;
  const photos = door.proofTypes.filter((type) => type === 'PHOTO').length;
  if (photos < rules.photos) {
    throw new ConflictError(
      'REQUIRED_PHOTOS_MISSING',
      `proof_ids: waypoint ${quote(waypointId)} requires ${rules.photos} PHOTO ${rules.photos === 1 ? 'proof' : 'proofs'}; the attempt names ${photos}`,
    );
  }
  if (rules.signature && !door.proofTypes.includes('SIGNATURE')) {
    throw new ConflictError(
      'REQUIRED_SIGNATURE_MISSING',
      `proof_ids: waypoint ${quote(waypointId)} requires a SIGNATURE proof; the attempt names none`,
    );
  }
  if (rules.signature && !door.signerName) {
    throw new ConflictError(
      'REQUIRED_SIGNATURE_MISSING',
      `signer_name: waypoint ${quote(waypointId)} requires the name of who signed`,
    );
  }
  if (rules.scan_items) {
    const scanned = new Set(door.scans.flatMap((scan) => scan.matched_item_id ?? []));
    const withBarcodes = new Set(
      door.items.filter((item) => item.barcodes.length > 0).map((item) => item.id),
    );
    const unscanned = door.delivered.filter((itemId) => withBarcodes.has(itemId) && !scanned.has(itemId));
    if (unscanned.length > 0) {
      throw new ConflictError(
        'REQUIRED_SCANS_MISSING',
        `scans: waypoint ${quote(waypointId)} requires every delivered item scanned; no scan matches a barcode of ${unscanned.length === 1 ? 'item' : 'items'} ${quoteList(unscanned)}`,
      );
    }
  }
}

export const deliversSomething = (door: Pick<DoorEvidence, 'status' | 'delivered'>) =>
  door.status === 'SUCCESSFUL' || door.delivered.length > 0;

// ---- The age check ----

/** What the driver app reports of an ID check: how it was made, and the date of birth it shows. */
export interface AgeCheckInput {
  method: AgeCheck['method'];
  /** YYYY-MM-DD, a calendar date (checked by the endpoint's schema). */
  dateOfBirth: string;
}

/**
 * Whole years from a date of birth to a day, both YYYY-MM-DD: one more on each birthday. A birthday on 29
 * February comes on 1 March in the years without one (the day after 28 February), as most laws count it.
 */
export function ageOn(dateOfBirth: string, day: string): number {
  const [birthYear = 0, birthMonth = 0, birthDay = 0] = dateOfBirth.split('-').map(Number);
  const [year = 0, month = 0, dayOfMonth = 0] = day.split('-').map(Number);
  const beforeBirthday = month < birthMonth || (month === birthMonth && dayOfMonth < birthDay);
  return year - birthYear - (beforeBirthday ? 1 : 0);
}

/**
 * The ID check of a visit to a stop, for the attempt to keep (never the date of birth), on the visit's day in
 * the DC's time zone (`localDate`): undefined when the stop has no minimum age (an ID check it does not ask
 * for is not kept) or none was made. A visit that delivers something needs one (9106) showing the recipient
 * at least `minimum_age` (9107); one that delivers nothing keeps its check either way. A date of birth after
 * the visit's day is a typing error (1006).
 */
export function checkAge(
  waypointId: string,
  rules: Applied,
  door: Pick<DoorEvidence, 'status' | 'delivered'>,
  check: AgeCheckInput | undefined,
  visit: { timestamp: number; localDate: string },
): AgeCheck | undefined {
  const minimumAge = rules.minimum_age;
  if (minimumAge === null) return undefined;
  const delivers = deliversSomething(door);
  if (!check) {
    if (!delivers) return undefined;
    throw new ConflictError(
      'REQUIRED_AGE_CHECK_MISSING',
      `age_check: waypoint ${quote(waypointId)} requires the recipient's ID checked (at least ${minimumAge} years old)`,
    );
  }
  if (check.dateOfBirth > visit.localDate) {
    throw new ValidationError(
      `age_check.date_of_birth: is after the day of the attempt (${visit.localDate} in the DC's time zone)`,
    );
  }
  const oldEnough = ageOn(check.dateOfBirth, visit.localDate) >= minimumAge;
  if (!oldEnough && delivers) {
    throw new ConflictError(
      'RECIPIENT_UNDER_MINIMUM_AGE',
      `age_check.date_of_birth: the recipient is under ${minimumAge} on ${visit.localDate} (the DC's date of the attempt); waypoint ${quote(waypointId)} requires at least ${minimumAge}`,
    );
  }
  return { method: check.method, result: oldEnough ? 'OLD_ENOUGH' : 'UNDER_AGE', timestamp: visit.timestamp };
}
