import { downloadFiles } from '../../../domain/analytics-download-files';
import { httpHandler, WithStatus } from '../../http-handler';
import { getAnalyticsDownloadFiles as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const txid = params.download_request_txid;
  const result = await downloadFiles(caller.accountId, txid);
  if (result.pending) return new WithStatus(202, { download_request_txid: txid });
  return {
    download_request_files: result.files.map((file) => ({
      file_type: file.fileType,
      download_link: file.link,
      expiration_timestamp: file.expiresAt,
      download_type: file.analyticsType,
    })),
  };
});
