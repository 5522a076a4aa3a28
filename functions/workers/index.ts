import type { ConsumerDefinition } from './define';
import { deleteRoutes } from './delete-routes/consumer';
import { deliverWebhooks } from './deliver-webhooks/consumer';
import { exportAnalytics } from './export-analytics/consumer';
import { fanOutEvents } from './fan-out-events/consumer';
import { importRoutes } from './import-routes/consumer';

/**
 * The queue consumers: CDK turns each into a Lambda with an SQS event source (partial batch
 * responses on); the local runtime polls the same queue and feeds the same handler. Each row comes from its
 * slice (`functions/workers/<name>/consumer.ts`), whose `handler.ts` beside it is the Lambda.
 */
export const consumers: readonly ConsumerDefinition[] = [
  importRoutes,
  fanOutEvents,
  deliverWebhooks,
  deleteRoutes,
  exportAnalytics,
];
