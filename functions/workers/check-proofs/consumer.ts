import * as channels from '../../models/channels';
import { PROOFS_PREFIX } from '../../shared/resources';
import { defineConsumer } from '../define';

/** The checkProofs consumer; `handler.ts` beside this module is its Lambda. */
export const checkProofs = defineConsumer({
  id: 'checkProofs',
  queue: channels.proofUploads,
  module: import.meta.url,
  batchSize: 10,
  maxConcurrency: 5,
  // Reads up to 10 objects of at most 10 MB each.
  timeoutSeconds: 60,
  memorySize: 512,
  // Reads the proofs' objects (GetObject under the proofs prefix only) and settles their records.
  access: { table: 'readWrite', bucket: 'read', bucketKeyPrefixes: [PROOFS_PREFIX] },
});
