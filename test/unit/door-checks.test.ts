import { beforeAll, describe, expect, it } from 'vitest';
import type { ageOn as AgeOn, checkAge as CheckAge } from '../../functions/domain/delivery-rules';
import type * as PinChecks from '../../functions/domain/pin-checks';
import { type Applied, NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import { ApiError } from '../../functions/shared/errors';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import { localDateOf } from '../../functions/shared/time';

/*
 * The checks at the door that are pure logic (docs/api.md, Delivery rules): the age on the day of a visit, and
 * a stop's PIN drawn, hashed and compared. The attempt's refusals over HTTP are in test/e2e/delivery-rules.test.ts.
 */

let ageOn: typeof AgeOn;
let checkAge: typeof CheckAge;
let pins: typeof PinChecks;

// The data modules read the table name when loaded; nothing here talks to DynamoDB.
beforeAll(async () => {
  process.env[RESOURCE_ENV.table] ??= 'door-checks-test';
  ({ ageOn, checkAge } = await import('../../functions/domain/delivery-rules'));
  pins = await import('../../functions/domain/pin-checks');
});

/** The code of an ApiError `run` throws, and its message. */
function refusal(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('nothing was refused');
}

describe('ageOn: whole years on a day', () => {
  it('turns one year older on the birthday, not the day before', () => {
    expect(ageOn('2008-11-23', '2026-11-22')).toBe(17);
    expect(ageOn('2008-11-23', '2026-11-23')).toBe(18);
    expect(ageOn('2008-12-01', '2026-11-30')).toBe(17);
    expect(ageOn('2008-01-31', '2026-02-01')).toBe(18);
  });

  it('counts a 29 February birthday on 1 March in a year without one, and on the day in a leap year', () => {
    expect(ageOn('2008-02-29', '2026-02-28')).toBe(17);
    expect(ageOn('2008-02-29', '2026-03-01')).toBe(18);
    expect(ageOn('2004-02-29', '2028-02-29')).toBe(24);
  });
});

describe('checkAge: the ID check of a visit to a stop with a minimum age', () => {
  const adultsOnly: Applied = { ...NO_REQUIREMENTS, minimum_age: 18 };
  const delivered = { status: 'SUCCESSFUL' as const, delivered: ['item-1'] };
  const failed = { status: 'FAILED' as const, delivered: [] };
  const id = (dateOfBirth: string) => ({ method: 'ID_CHECKED' as const, dateOfBirth });
  const visit = { timestamp: 1_795_438_800_000, localDate: '2026-11-23' };

  it('keeps only the method, the outcome and the time: never the date of birth', () => {
    const kept = checkAge('wp-1', adultsOnly, delivered, id('2008-11-23'), visit);
    expect(kept).toEqual({ method: 'ID_CHECKED', result: 'OLD_ENOUGH', timestamp: visit.timestamp });
    expect(JSON.stringify(kept)).not.toContain('2008');
  });

  it('refuses a visit that delivers without a check (9106) or to someone under the age (9107), naming the field', () => {
    expect(refusal(() => checkAge('wp-1', adultsOnly, delivered, undefined, visit))).toEqual({
      code: 9106,
      message: "age_check: waypoint 'wp-1' requires the recipient's ID checked (at least 18 years old)",
    });
    const under = refusal(() => checkAge('wp-1', adultsOnly, delivered, id('2008-11-24'), visit));
    expect(under.code).toBe(9107);
    expect(under.message).toMatch(/^age_check\.date_of_birth: the recipient is under 18 on 2026-11-23 /);
    expect(under.message).not.toContain('2008');
    // A delivered item alone (the attempt FAILED) is held to it too.
    const partly = { status: 'FAILED' as const, delivered: ['item-1'] };
    expect(refusal(() => checkAge('wp-1', adultsOnly, partly, id('2010-01-01'), visit)).code).toBe(9107);
  });

  it('holds a visit that delivers nothing to no check, and keeps the one it made, under age included', () => {
    expect(checkAge('wp-1', adultsOnly, failed, undefined, visit)).toBeUndefined();
    expect(checkAge('wp-1', adultsOnly, failed, id('2010-01-01'), visit)).toEqual({
      method: 'ID_CHECKED',
      result: 'UNDER_AGE',
      timestamp: visit.timestamp,
    });
  });

  it('keeps no check at a stop without a minimum age', () => {
    expect(checkAge('wp-1', NO_REQUIREMENTS, delivered, id('2010-01-01'), visit)).toBeUndefined();
  });

  it('refuses a date of birth after the day of the visit with 1006', () => {
    expect(refusal(() => checkAge('wp-1', adultsOnly, delivered, id('2026-11-24'), visit))).toEqual({
      code: 1006,
      message: "age_check.date_of_birth: is after the day of the attempt (2026-11-23 in the DC's time zone)",
    });
  });

  it('counts on the DC’s day: 03:00 UTC on an 18th birthday is still the day before in Chicago', () => {
    const at = Date.UTC(2026, 10, 23, 3, 0);
    const inChicago = { timestamp: at, localDate: localDateOf(at, 'America/Chicago') };
    const inTokyo = { timestamp: at, localDate: localDateOf(at, 'Asia/Tokyo') };
    expect(inChicago.localDate).toBe('2026-11-22');
    expect(refusal(() => checkAge('wp-1', adultsOnly, delivered, id('2008-11-23'), inChicago)).code).toBe(
      9107,
    );
    expect(checkAge('wp-1', adultsOnly, delivered, id('2008-11-23'), inTokyo)?.result).toBe('OLD_ENOUGH');
  });
});

describe('a stop’s PIN', () => {
  it('is drawn as 6 digits, leading zeros kept, from a uniform source', () => {
    const codes = Array.from({ length: 5000 }, () => pins.drawPinCode());
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    // 5,000 draws of a million codes: a handful of repeats at most, and about a tenth under 100000.
    expect(new Set(codes).size).toBeGreaterThan(4950);
    const lowFirstDigit = codes.filter((code) => code.startsWith('0')).length;
    expect(lowFirstDigit).toBeGreaterThan(350);
    expect(lowFirstDigit).toBeLessThan(650);
  });

  it('is kept as a keyed hash that matches its code only, and never holds the code', () => {
    const stored = pins.hashPin('048213');
    expect(pins.pinMatches('048213', stored)).toBe(true);
    for (const other of ['048214', '48213', '0482130', '', '048213 ']) {
      expect(pins.pinMatches(other, stored), other).toBe(false);
    }
    expect(JSON.stringify(stored)).not.toContain('048213');
    // Each draw has its own key: the same code hashes differently on two stops.
    const again = pins.hashPin('048213');
    expect(again.hash).not.toBe(stored.hash);
    expect(pins.pinMatches('048213', again)).toBe(true);
  });

  it('refuses a forged hash of another length without comparing it', () => {
    const stored = pins.hashPin('123456');
    expect(pins.pinMatches('123456', { ...stored, hash: stored.hash.slice(0, 20) })).toBe(false);
  });
});

describe('a stop’s PIN item', () => {
  it('survives a revision’s before image (JSON in the bucket) as it was stored', async () => {
    const { stopPinItem } = await import('../../functions/data/stop-pins');
    const item = stopPinItem('acc_1', 'R-1', {
      waypointId: 'wp-1',
      sequence: 3,
      draw: 1,
      ...pins.hashPin('123456'),
      sealed: {
        v: 1,
        key_id: 'arn:aws:kms:us-east-1:000000000000:key/k',
        data_key: new Uint8Array([1, 2, 3]),
        iv: new Uint8Array(12).fill(4),
        tag: new Uint8Array(16).fill(5),
        ciphertext: new Uint8Array([6, 7, 8, 9, 10, 11]),
      },
      tries: 0,
      drawnAt: 1,
    });
    expect(item).toMatchObject({ sk: 'PIN#00003', entity: 'STOP_PIN', tries: 0, draw: 1 });
    expect(JSON.parse(JSON.stringify(item))).toEqual(item);
    expect(JSON.stringify(item)).not.toContain('123456');
  });
});
