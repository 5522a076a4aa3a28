import { acceptUpload } from '../../../domain/route-uploads';
import { config } from '../../../shared/config';
import { appendLogKeys, countMetric } from '../../../shared/observability';
import { httpHandler, WithStatus } from '../../http-handler';
import { createImportUpload as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const upload = await acceptUpload(caller.accountId, params.dc_id, {
    // How long the upload link works, and how long after that an upload may still arrive (a PUT may start
    // until the link expires and carry 100 MB; the notification may wait behind other imports). Function
    // variables, so that a CDK change (a test's) can shorten them.
    linkSeconds: config().importUploadLinkSeconds,
    arrivalGraceSeconds: config().importUploadArrivalGraceSeconds,
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
