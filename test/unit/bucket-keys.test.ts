import { describe, expect, it } from 'vitest';
import { bucketKeys, proofObjectOf } from '../../functions/data/bucket-keys';

describe('bucket keys of proofs and delivery notes', () => {
  it('splits a proof key back into its parts', () => {
    expect(proofObjectOf(bucketKeys.proof('acc_1', 'route-1', 7, 'prf_0123456789abcdef'))).toEqual({
      accountId: 'acc_1',
      routeId: 'route-1',
      sequence: 7,
      proofId: 'prf_0123456789abcdef',
    });
  });

  it('takes no delivery note for a proof, even one of a route whose id is five digits', () => {
    // Four parts after proofs/, the third of five digits: the shape of a proof's key.
    expect(proofObjectOf(bucketKeys.deliveryNote('acc_1', '12345', 'ab'.repeat(32)))).toBeUndefined();
    expect(proofObjectOf(bucketKeys.deliveryNote('acc_1', 'route-1', 'ab'.repeat(32)))).toBeUndefined();
  });
});
