import { optimizationOf } from '../../../domain/route-optimization';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { optimizationView } from '../optimization-views';
import { getOptimization as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const optimization = await optimizationOf(routeRef(caller, params), params.optimization_id);
  return { optimization: optimizationView(optimization) };
});
