import { acceptUpload } from '../../../domain/route-import';
import { appendLogKeys, countMetric } from '../../../shared/observability';
import { httpHandler, WithStatus } from '../../http-handler';
import { createImportUpload as endpoint } from './endpoint';

/**
 * How long the upload link works, and how long after that an upload may still arrive (a PUT may start
 * until the link expires and carry 100 MB; the notification may wait behind other imports). Function
 * variables, so that a CDK change (a test's) can shorten them.
 */
const LINK_SECONDS = Number(process.env.IMPORT_UPLOAD_LINK_SECONDS ?? 15 * 60);
const ARRIVAL_GRACE_SECONDS = Number(process.env.IMPORT_UPLOAD_ARRIVAL_GRACE_SECONDS ?? 15 * 60);

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const upload = await acceptUpload(caller.accountId, params.dc_id, {
    linkSeconds: LINK_SECONDS,
    arrivalGraceSeconds: ARRIVAL_GRACE_SECONDS,
  });
  countMetric('ImportUploadsStarted');
  // Never the link: it grants a PUT to whoever holds it.
  appendLogKeys({ txid: upload.txid });
  return new WithStatus(202, {
    txid: upload.txid,
    upload_url: upload.uploadUrl,
    upload_expiration_timestamp: upload.uploadExpiresAt,
  });
});
