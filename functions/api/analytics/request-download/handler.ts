import { requestDownload } from '../../../domain/analytics-requests';
import { httpHandler } from '../../http-handler';
import { requestAnalyticsDownload as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ body, caller }) => ({
  download_request_txid: await requestDownload(caller.accountId, caller.dcIds, {
    dcIds: body.dc_ids,
    fromDate: body.from_date,
    toDate: body.to_date,
    analyticsTypes: body.analytics_types,
  }),
}));
