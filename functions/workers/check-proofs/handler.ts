import { checkUploadedProof } from '../../domain/proof-checks';
import { countMetric, logger } from '../../shared/observability';
import { sqsHandler } from '../../shared/sqs-handler';
import { checkProofs } from './consumer';

/** A message that throws is retried alone after the visibility timeout; a settled proof stays settled. */
export const handler = sqsHandler(checkProofs, {
  logKeys: () => ({}),
  handle: async (uploads) => {
    for (const upload of uploads) {
      const outcome = await checkUploadedProof(upload);
      if (outcome === 'AVAILABLE') countMetric('ProofsAvailable');
      if (outcome === 'REJECTED') countMetric('ProofsRejected');
      logger.info('proof upload checked', { key: upload.key, outcome });
    }
  },
});
