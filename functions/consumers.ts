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
  /**
   * Most batches in flight at once (the SQS event source's maximum concurrency, 2..1000): caps the load a
   * backlog puts on the table. The local runtime runs as many pollers.
   */
  maxConcurrency: number;
  /** Lambda timeout; the queue's visibility timeout must be longer. */
  timeoutSeconds: number;
  memorySize: number;
  access: ResourceAccess;
  /** V8 flags for the function (its NODE_OPTIONS), where the default heap sizing does not fit. */
  nodeOptions?: string;
  /** Variables for the function beyond its resources' (deployment settings, see lib/delivery-routes.ts). */
  environment?: Readonly<Record<string, string>>;
}

export const consumers: readonly ConsumerDefinition[] = [
  {
    id: 'importRoutes',
    queue: 'imports',
    handler: 'workers/import-routes',
    // One route per invocation: a 50,000-item import uses the whole function.
    batchSize: 1,
    // Each import writes up to ~100,000 items: a few at a time keep the table's write rate sane.
    maxConcurrency: 5,
    timeoutSeconds: 300,
    memorySize: 1769,
    access: { table: 'readWrite', bucket: 'read' },
  },
  {
    id: 'fanOutEvents',
    queue: 'events',
    handler: 'workers/fan-out-events',
    batchSize: 10,
    maxConcurrency: 5,
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
    // Receivers are slow and many; each delivery costs the table one read and two writes (attempt, delivery).
    maxConcurrency: 20,
    timeoutSeconds: 30,
    memorySize: 512,
    // Decrypts the webhook's signing secrets (data keys kept for minutes per environment, see secret-envelope.ts).
    access: {
      table: 'readWrite',
      sendTo: ['deliveries'],
      sendToDeadLetter: ['deliveries'],
      webhookSecrets: 'decrypt',
    },
  },
  {
    id: 'deleteRoutes',
    queue: 'deletions',
    handler: 'workers/delete-routes',
    // One route per invocation: a message removes up to 20,000 rows of it, then queues the rest.
    batchSize: 1,
    // Each message deletes tens of thousands of rows and claims: two at a time keep the table's write rate sane.
    maxConcurrency: 2,
    timeoutSeconds: 120,
    memorySize: 1024,
    // Reads the header and rows, deletes them and the claims; queues the rest of a large route to itself.
    access: { table: 'readWrite', sendTo: ['deletions'] },
  },
  {
    id: 'exportAnalytics',
    queue: 'analytics',
    handler: 'workers/export-analytics',
    // One request per invocation: it streams up to millions of rows into S3.
    batchSize: 1,
    maxConcurrency: 2,
    timeoutSeconds: 600,
    memorySize: 1024,
    // Writes analytics a finished route is still missing, and the request's outcome.
    access: { table: 'readWrite', bucket: 'write' },
    // Rows are garbage as soon as they are written out: a small young generation and a capped heap make
    // V8 collect them as it goes, so memory stays flat however many rows an export has.
    nodeOptions: '--max-semi-space-size=2 --max-old-space-size=192',
  },
];
