import { type Item, queryPrefixItems, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { getRecord, updateIfHeld } from './item-ops';
import { type RouteHeader, routeKeys, routeUnchangedCheck, type TransactItem } from './routes';
import type { SealedSecret } from './secret-envelope';
import type { TableKey } from './table-schema';

/**
 * The PIN of a stop that requires one (docs/api.md, Delivery rules), one item per waypoint in its route's
 * partition, beside its attempts and proofs; deleted with the route's other rows:
 *   PIN#<wp seq 5>
 * It holds no code a read can use: the HMAC the attempt checks against (domain/pin-checks.ts), and the code
 * sealed under the secrets key for the pages that show it to the customer and the ERP (domain/stop-pins.ts).
 */
export interface StopPin {
  waypointId: string;
  /** The waypoint's sequence (the key of its rows). */
  sequence: number;
  /** 1 for the code drawn at import (or by the revision that first required it), one more at each reset. */
  draw: number;
  /** HMAC-SHA256 of the code under `hashKey`, both base64url. */
  hash: string;
  hashKey: string;
  /** The code sealed (KMS envelope encryption) for the route: opened only by the functions that show it. */
  sealed: SealedSecret;
  /**
   * Codes tried against this draw and not given back: every wrong one, and one being compared. A try is taken
   * before the comparison and given back when the code was right, so at most MAX_WRONG_PINS wrong codes are
   * ever compared, however many attempts arrive at once.
   */
  tries: number;
  drawnAt: number;
}

const PREFIX = 'PIN#';
const pinKey = (accountId: string, routeId: string, sequence: number): TableKey =>
  routeKeys.row(accountId, routeId, `${PREFIX}${String(sequence).padStart(5, '0')}`);

/**
 * The sealed code's binary fields as base64 text: a PIN item goes into a revision's before image, which is
 * JSON in the bucket (domain/route-revisions.ts), and comes back from it as it was.
 */
interface StoredSeal {
  v: 1;
  key_id: string;
  data_key: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

const toStoredSeal = (sealed: SealedSecret): StoredSeal => ({
  v: sealed.v,
  key_id: sealed.key_id,
  data_key: base64(sealed.data_key),
  iv: base64(sealed.iv),
  tag: base64(sealed.tag),
  ciphertext: base64(sealed.ciphertext),
});

const fromStoredSeal = (stored: StoredSeal): SealedSecret => ({
  v: stored.v,
  key_id: stored.key_id,
  data_key: bytesOf(stored.data_key),
  iv: bytesOf(stored.iv),
  tag: bytesOf(stored.tag),
  ciphertext: bytesOf(stored.ciphertext),
});

const storedCodec = codec<Omit<StopPin, 'sealed'> & { sealed: StoredSeal }>({
  waypointId: {},
  sequence: {},
  draw: {},
  hash: { attr: 'pin_hash' },
  hashKey: { attr: 'pin_hash_key' },
  sealed: { attr: 'sealed_pin' },
  tries: {},
  drawnAt: {},
});

const fromItem = (item: Item): StopPin => {
  const stored = storedCodec.fromItem(item);
  return { ...stored, sealed: fromStoredSeal(stored.sealed) };
};

/** The item of a newly drawn PIN, to write with the route's rows (an import's, a revision's). */
export const stopPinItem = (accountId: string, routeId: string, pin: StopPin): Item => ({
  ...pinKey(accountId, routeId, pin.sequence),
  entity: 'STOP_PIN',
  ...storedCodec.toItem({ ...pin, sealed: toStoredSeal(pin.sealed) }),
});

/** The PIN of the route's waypoint of this sequence, read consistently; undefined when it has none. */
export const getStopPin = (accountId: string, routeId: string, sequence: number) =>
  getRecord(pinKey(accountId, routeId, sequence), fromItem);

/** Every PIN of the route, by sequence, with its item as stored (for a revision's before image). */
export async function listStopPins(
  accountId: string,
  routeId: string,
): Promise<{ pin: StopPin; item: Item }[]> {
  const { items } = await queryPrefixItems(routeKeys.partition(accountId, routeId), PREFIX);
  return items.map((item) => ({ pin: fromItem(item), item }));
}

/**
 * Takes a try of the PIN's draw `draw` before a code is compared: the tries it now has, or undefined when it
 * took none (`maxTries` were taken already, or the PIN was drawn again or is gone).
 */
export async function takePinTry(
  accountId: string,
  routeId: string,
  sequence: number,
  draw: number,
  maxTries: number,
): Promise<number | undefined> {
  const item = await updateIfHeld({
    Key: pinKey(accountId, routeId, sequence),
    UpdateExpression: 'SET tries = tries + :one',
    ConditionExpression: 'draw = :draw AND tries < :max',
    ExpressionAttributeValues: { ':one': 1, ':draw': draw, ':max': maxTries },
  });
  return item ? fromItem(item).tries : undefined;
}

/** Gives a try back once its code was right (nothing when the PIN was drawn again since). */
export async function giveBackPinTry(
  accountId: string,
  routeId: string,
  sequence: number,
  draw: number,
): Promise<void> {
  await updateIfHeld({
    Key: pinKey(accountId, routeId, sequence),
    UpdateExpression: 'SET tries = tries - :one',
    ConditionExpression: 'draw = :draw AND tries > :zero',
    ExpressionAttributeValues: { ':one': 1, ':draw': draw, ':zero': 0 },
  });
}

/**
 * Writes a PIN drawn again for the waypoint, on condition that the route is still as `route` was read
 * ('route_changed') and the waypoint's PIN is still the draw `previousDraw` read, or none when undefined
 * ('pin_changed': another reset came first). 'raced' when DynamoDB cancelled it for another transaction on
 * one of its items: read again.
 */
export async function replaceStopPin(
  route: RouteHeader,
  pin: StopPin,
  previousDraw: number | undefined,
): Promise<'written' | 'route_changed' | 'pin_changed' | 'raced'> {
  const put: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: stopPinItem(route.accountId, route.routeId, pin),
      ...(previousDraw === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'draw = :draw', ExpressionAttributeValues: { ':draw': previousDraw } }),
    },
  };
  return writeTransactionParts(
    [
      { items: [routeUnchangedCheck(route)], refusedAs: 'route_changed' },
      { items: [put], refusedAs: 'pin_changed' },
    ],
    { conflictAs: 'raced' },
  );
}
