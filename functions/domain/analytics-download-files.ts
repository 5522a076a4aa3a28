import type { AnalyticsType } from '../data/analytics';
import { presignedDownloadLink } from '../data/bucket-links';
import { DOWNLOAD_RETENTION_SECONDS, getDownload } from '../data/download-requests';
import { ApiError } from '../shared/errors';
import { quote } from '../shared/quote';

/*
 * GET .../analytics/downloads/{txid}: a request's files, with presigned links. Apart from the export
 * (analytics-export.ts), which writes the bucket: its S3 client and SDK code would weigh on this one's cold
 * start, which only signs links.
 */

/**
 * Download links work this long after each files read, or less when the credentials signing them expire
 * sooner: a session of an hour signs for its first half (bucket-links.ts), so 30 to 60 minutes.
 */
export const LINK_EXPIRY_SECONDS = 3600;

export type DownloadFiles =
  | { pending: true }
  | {
      pending: false;
      files: { fileType: 'CSV'; link: string; expiresAt: number; analyticsType: AnalyticsType }[];
    };

/**
 * The files of a request, with links presigned now for 30 to 60 minutes (each says when it stops working);
 * 6000 for unknown, expired or failed ones.
 */
export async function downloadFiles(accountId: string, txid: string): Promise<DownloadFiles> {
  const request = await getDownload(accountId, txid);
  const expired = request && request.createdAt + DOWNLOAD_RETENTION_SECONDS * 1000 < Date.now();
  if (!request || expired || request.status === 'FAILED') {
    throw new ApiError(
      'DOWNLOAD_NOT_FOUND',
      request?.status === 'FAILED'
        ? `download request ${quote(txid)} failed; request the files again`
        : `no download request ${quote(txid)} (unknown or expired)`,
    );
  }
  if (request.status === 'PENDING') return { pending: true };
  const files = await Promise.all(
    request.files.map(async (file) => {
      const fileName = file.key.split('/').pop() as string;
      const link = await presignedDownloadLink(file.key, LINK_EXPIRY_SECONDS, fileName);
      return {
        fileType: 'CSV' as const,
        link: link.url,
        expiresAt: link.expiresAt,
        analyticsType: file.analyticsType,
      };
    }),
  );
  return { pending: false, files };
}
