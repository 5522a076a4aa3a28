import { describe, expect, it } from 'vitest';
import { evidenceIsWhole } from '../../functions/domain/evidence';
import { lifecycleExpiry } from '../../functions/shared/resources';
import { objectExpiry } from '../../local/cloud/expiry';

/*
 * Records end with their files: when S3's lifecycle rules expire an object (functions/shared/resources.ts),
 * what the service serves of the evidence after (functions/domain/evidence.ts), and the local runtime's
 * expiry of objects (local/cloud/expiry.ts).
 */

describe('lifecycleExpiry', () => {
  it('adds the rule’s days to the object’s creation and rounds up to the next midnight UTC, as S3 does', () => {
    // The S3 User Guide's example: an object of 10:30 UTC on January 15 under a 3-day rule.
    expect(lifecycleExpiry(Date.parse('2014-01-15T10:30:00Z'), 3)).toBe(Date.parse('2014-01-19T00:00:00Z'));
    // HeadObject's x-amz-expiration for an object last modified at 19:57:04 under a 60-day rule.
    expect(lifecycleExpiry(Date.parse('2018-08-14T19:57:04Z'), 60)).toBe(Date.parse('2018-10-14T00:00:00Z'));
  });

  it('gives objects of one UTC day one expiry, the next day’s a day later', () => {
    const early = lifecycleExpiry(Date.parse('2025-03-01T00:00:01Z'), 400);
    expect(lifecycleExpiry(Date.parse('2025-03-01T23:59:59.999Z'), 400)).toBe(early);
    expect(lifecycleExpiry(Date.parse('2025-03-02T00:00:01Z'), 400)).toBe(early + 86_400_000);
  });
});

describe('evidenceIsWhole', () => {
  // A route imported in the afternoon; with a 1-day retention its first files expire two midnights later.
  const route = { createdAt: Date.parse('2025-01-10T15:00:00Z') };
  const firstExpiry = Date.parse('2025-01-12T00:00:00Z');
  const attempts = [{ proofIds: ['prf_sig', 'prf_photo'] }, { proofIds: [] }];
  const held = [{ id: 'prf_sig' }, { id: 'prf_photo' }, { id: 'prf_unnamed' }];

  it('is whole until the retention counted from the route’s import ends: no file of it can have expired before', () => {
    expect(evidenceIsWhole(route, attempts, held, { now: firstExpiry - 1, retentionDays: 1 })).toBe(true);
    expect(evidenceIsWhole(route, attempts, held, { now: firstExpiry, retentionDays: 1 })).toBe(false);
    expect(evidenceIsWhole(route, attempts, held, { now: firstExpiry, retentionDays: 400 })).toBe(true);
  });

  it('is not whole once a proof an attempt names is gone, whenever that is', () => {
    const withoutSignature = held.filter((proof) => proof.id !== 'prf_sig');
    expect(
      evidenceIsWhole(route, attempts, withoutSignature, { now: route.createdAt, retentionDays: 400 }),
    ).toBe(false);
    // A proof no attempt names takes nothing from it.
    const withoutUnnamed = held.filter((proof) => proof.id !== 'prf_unnamed');
    expect(
      evidenceIsWhole(route, attempts, withoutUnnamed, { now: route.createdAt, retentionDays: 400 }),
    ).toBe(true);
  });
});

describe('objectExpiry (the local runtime’s lifecycle rules)', () => {
  const rules = [
    { id: 'expire-imports', prefix: 'imports/', expireAfterDays: 1 },
    { id: 'expire-proofs', prefix: 'proofs/', expireAfterDays: 400 },
    { id: 'expire-some-notes', prefix: 'proofs/delivery-notes/', expireAfterDays: 30 },
  ];
  const created = Date.parse('2025-05-05T12:00:00Z');

  it('expires an object by the rule of its prefix, the earliest when several apply, as S3 does', () => {
    expect(objectExpiry(rules, 'imports/acc_1/imp_1.json', created)).toBe(lifecycleExpiry(created, 1));
    expect(objectExpiry(rules, 'proofs/acc_1/r/00000/prf_1', created)).toBe(lifecycleExpiry(created, 400));
    expect(objectExpiry(rules, 'proofs/delivery-notes/acc_1/r/x.pdf', created)).toBe(
      lifecycleExpiry(created, 30),
    );
  });

  it('keeps an object no rule names', () => {
    expect(objectExpiry(rules, 'analytics/acc_1/x.csv', created)).toBeUndefined();
    expect(objectExpiry([], 'imports/acc_1/imp_1.json', created)).toBeUndefined();
  });
});
