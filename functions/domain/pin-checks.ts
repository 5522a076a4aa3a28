import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { getStopPin, giveBackPinTry, type StopPin, takePinTry } from '../data/stop-pins';
import { ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';

/**
 * The customer's PIN at the door (docs/api.md, Delivery rules): a random 6-digit code per stop, kept as a keyed
 * hash for the check. This module checks a code and needs no KMS: the driver app's functions may compare a
 * code with the hash but can open no stored code (functions/domain/stop-pins.ts opens them, for the pages that
 * show them).
 */

/** Digits of a stop's code. */
export const PIN_DIGITS = 6;
/** Wrong codes that lock a stop's PIN check until the dispatcher resets it. */
export const MAX_WRONG_PINS = 5;

/** A uniformly random code, from the operating system's CSPRNG (crypto.randomInt). */
export const drawPinCode = (): string => String(randomInt(0, 10 ** PIN_DIGITS)).padStart(PIN_DIGITS, '0');

/**
 * The code's HMAC-SHA256 under a fresh random key, both as stored. Keyed per draw rather than a plain SHA-256:
 * the same code on two stops (one in a million) then hashes differently, and no table of the million codes'
 * hashes made once reads every stop's. It is no more than that: 10^6 codes are tried in a moment by whoever
 * reads the item, which is why the item is not where the code is kept for anyone (the API shows it only on
 * the stop's tracking page and in ROUTE_STARTED), and why guesses through the API stop after MAX_WRONG_PINS.
 */
export function hashPin(code: string): { hash: string; hashKey: string } {
  const key = randomBytes(32);
  return { hash: hmac(key, code).toString('base64url'), hashKey: key.toString('base64url') };
}

const hmac = (key: Uint8Array, code: string) => createHmac('sha256', key).update(code, 'utf8').digest();

/** True when `candidate` is the stop's code: HMACs of the same length compared in constant time. */
export function pinMatches(candidate: string, stored: Pick<StopPin, 'hash' | 'hashKey'>): boolean {
  const expected = Buffer.from(stored.hash, 'base64url');
  const given = hmac(Buffer.from(stored.hashKey, 'base64url'), candidate);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function locked(waypointId: string): ConflictError {
  return new ConflictError(
    'PIN_CHECK_LOCKED',
    `pin: waypoint ${quote(waypointId)}'s PIN check is locked after ${MAX_WRONG_PINS} wrong codes; the dispatcher resets it, which draws a new code`,
  );
}

/**
 * Checks the code an attempt that delivers something gives for a stop that requires a PIN: 9103 without one,
 * 9104 for a wrong one (which counts), 9105 once MAX_WRONG_PINS wrong codes were given for the stop's current
 * code (the wrong code that makes the fifth, and every code after it, until a reset). A try is taken before
 * the comparison and given back when the code is right (data/stop-pins.ts), so the lock holds for attempts
 * sent at once too.
 */
export async function checkPin(
  place: { accountId: string; routeId: string; waypointId: string; sequence: number },
  candidate: string | undefined,
): Promise<void> {
  const { accountId, routeId, waypointId, sequence } = place;
  if (candidate === undefined) {
    throw new ConflictError(
      'REQUIRED_PIN_MISSING',
      `pin: waypoint ${quote(waypointId)} requires the customer's PIN`,
    );
  }
  // A read and a try per round: a round is lost only to a reset (or the lock) between the two.
  for (let round = 1; round <= MAX_PIN_ROUNDS; round++) {
    const pin = await getStopPin(accountId, routeId, sequence);
    if (!pin) {
      // A stop requires a PIN from the write that required it on, which writes its PIN first: none is a PIN
      // lost. A reset draws one.
      throw new ConflictError(
        'PIN_CHECK_LOCKED',
        `pin: waypoint ${quote(waypointId)} has no PIN to check; the dispatcher's reset draws one`,
      );
    }
    if (pin.tries >= MAX_WRONG_PINS) throw locked(waypointId);
    const tries = await takePinTry(accountId, routeId, sequence, pin.draw, MAX_WRONG_PINS);
    if (tries === undefined) continue;
    if (pinMatches(candidate, pin)) {
      await giveBackPinTry(accountId, routeId, sequence, pin.draw);
      return;
    }
    if (tries >= MAX_WRONG_PINS) throw locked(waypointId);
    const left = MAX_WRONG_PINS - tries;
    throw new ConflictError(
      'PIN_WRONG',
      `pin: not waypoint ${quote(waypointId)}'s code; ${left} ${left === 1 ? 'try is' : 'tries are'} left before its PIN check locks`,
    );
  }
  throw new Error(`the PIN of waypoint '${waypointId}' kept being drawn again under its check`);
}

const MAX_PIN_ROUNDS = 5;
