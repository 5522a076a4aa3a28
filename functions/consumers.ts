import type { ResourceAccess } from './endpoints/define';
import type { QueueName } from './shared/resources';

/**
 * The queue consumers: CDK turns each into a Lambda with an SQS event source (partial batch
 * responses on); the local runtime polls the same queue and feeds the same handler.
 */
export interface ConsumerDefinition {
  /** Construct id stem and log name. */
  id: string;
  queue: QueueName;
  /** Handler module under `functions/handlers/`, without extension. */
  handler: string;
  batchSize: number;
  /** Lambda timeout; the queue's visibility timeout must be longer. */
  timeoutSeconds: number;
  memorySize: number;
  access: ResourceAccess;
}

export const consumers: readonly ConsumerDefinition[] = [
  {
    id: 'importRoutes',
    queue: 'imports',
    handler: 'workers/import-routes',
    // One route per invocation: a 50,000-item import uses the whole function.
    batchSize: 1,
    timeoutSeconds: 300,
    memorySize: 1769,
    access: { table: 'readWrite', bucket: 'read' },
  },
  {
    id: 'fanOutEvents',
    queue: 'events',
    handler: 'workers/fan-out-events',
    batchSize: 10,
    timeoutSeconds: 30,
    memorySize: 512,
    access: { table: 'read', sendTo: ['deliveries'] },
  },
  {
    id: 'deliverWebhooks',
    queue: 'deliveries',
    handler: 'workers/deliver-webhooks',
    // Up to ten POSTs in parallel, each cut off after 10 s: well inside the queue's 60 s visibility.
    batchSize: 10,
    timeoutSeconds: 30,
    memorySize: 512,
    access: { table: 'readWrite', sendTo: ['deliveries'], sendToDeadLetter: ['deliveries'] },
  },
];
