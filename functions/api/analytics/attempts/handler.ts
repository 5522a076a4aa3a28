import { requireAttemptAnalytics } from '../../../domain/route-analytics';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { getAttemptAnalytics as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await requireAttemptAnalytics(routeRef(caller, params), {
    limit: query.limit,
    nextToken: query.next_token,
    bytesOf: proxyBytesOf,
  });
  return { attempt_analytics: page.items, next_token: page.nextToken };
});
