import { appendToFeed } from './append-to-feed/consumer';
import { checkProofs } from './check-proofs/consumer';
import type { ConsumerDefinition } from './define';
import { deleteRoutes } from './delete-routes/consumer';
import { deliverWebhooks } from './deliver-webhooks/consumer';
import { endDeadLetteredImports } from './end-dead-letter-imports/consumer';
import { endOverdueImports } from './end-overdue-imports/consumer';
import { exportAnalytics } from './export-analytics/consumer';
import { fanOutEvents } from './fan-out-events/consumer';
import { importRoutes } from './import-routes/consumer';
import { optimizeRoutes } from './optimize-routes/consumer';
import { recordMessageOutcomes } from './record-message-outcomes/consumer';
import { sendNotifications } from './send-notifications/consumer';

/**
 * The queue consumers: CDK turns each into a Lambda with an SQS event source on its queue, or on that queue's
 * DLQ (partial batch responses on); the local runtime polls the same queue and feeds the same handler. Each
 * row comes from its slice (`functions/workers/<name>/consumer.ts`), whose `handler.ts` beside it is the
 * Lambda.
 */
export const consumers: readonly ConsumerDefinition[] = [
  importRoutes,
  endDeadLetteredImports,
  endOverdueImports,
  fanOutEvents,
  appendToFeed,
  deliverWebhooks,
  deleteRoutes,
  exportAnalytics,
  checkProofs,
  optimizeRoutes,
  sendNotifications,
  recordMessageOutcomes,
];
