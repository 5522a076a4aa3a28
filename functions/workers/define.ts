import type { ResourceAccess } from '../shared/access';
import type { Channel } from '../shared/channel';
import { IMPORT_PAYLOADS_PREFIX, IMPORT_UPLOADS_PREFIX, REVISION_IMAGES_PREFIX } from '../shared/resources';

/**
 * The queue consumers: CDK turns each into a Lambda with an SQS event source (partial batch
 * responses on); the local runtime polls the same queue and feeds the same handler.
 */
/**
 * What the import worker and the two that end its imports read: bodies posted (imports/) and uploaded
 * (uploads/), and revisions' before images. Never proofs nor analytics files.
 */
export const IMPORT_WORKER_READS = [
  IMPORT_PAYLOADS_PREFIX,
  IMPORT_UPLOADS_PREFIX,
  REVISION_IMAGES_PREFIX,
] as const;

export interface ConsumerDefinition {
  /** Construct id stem and log name. */
  id: string;
  /** The channel whose queue it reads (functions/models/channels.ts). */
  queue: Channel;
  /** Reads the queue's dead-letter queue instead of the queue (QueueDefinition.consumedDeadLetters). */
  deadLetters?: true;
  /**
   * The URL of the module that defines the consumer (its `import.meta.url`): the consumer's slice is that
   * module's folder, whose `handler.ts` is the Lambda (lib/slices.ts).
   */
  module: string;
  batchSize: number;
  /**
   * Most batches in flight at once (the SQS event source's maximum concurrency, 2..1000): caps the load a
   * backlog puts on the table. The local runtime runs as many pollers.
   */
  maxConcurrency: number;
  /** Lambda timeout; the visibility timeout of the queue it reads must be six times longer. */
  timeoutSeconds: number;
  memorySize: number;
  access: ResourceAccess;
  /** V8 flags for the function (its NODE_OPTIONS), where the default heap sizing does not fit. */
  nodeOptions?: string;
  /** The function makes links to the API (a started route's ETAs carry tracking links): it gets API_URL. */
  linksToApi?: true;
  /** Variables for the function beyond its resources' (deployment settings, see lib/delivery-routes.ts). */
  environment?: Readonly<Record<string, string>>;
}

export function defineConsumer<const C extends ConsumerDefinition>(consumer: C): C {
  return consumer;
}
