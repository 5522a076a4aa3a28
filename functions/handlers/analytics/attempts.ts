import { requireAttemptAnalytics } from '../../domain/route-analytics';
import { getAttemptAnalytics as endpoint } from '../../endpoints/analytics';
import { httpHandler } from '../../shared/http-handler';
import { proxyBytesOf } from '../../shared/limits';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await requireAttemptAnalytics(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    { limit: query.limit, nextToken: query.next_token, bytesOf: proxyBytesOf },
  );
  return { attempt_analytics: page.items, next_token: page.nextToken };
});
