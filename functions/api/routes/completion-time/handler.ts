import { completionTime } from '../../../domain/route-reports';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { getCompletionTime as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) =>
  completionTime(routeRef(caller, params)),
);
