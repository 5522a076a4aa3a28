import { Duration, NestedStack } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { pascalCase } from '../naming';
import { sliceOf } from '../slices';
import type { StatefulExports } from '../stateful-stack';
import { ServiceFunction } from './service-function';
import { StatefulImports } from './stateful-imports';

export interface QueueConsumersProps {
  readonly consumers: readonly ConsumerDefinition[];
  /** The stateful stack's exports: what the consumers' `access` may name, and the queues they consume. */
  readonly stateful: StatefulExports;
  /** The API's base URL, given as API_URL to the consumers that link to the API (`linksToApi`). */
  readonly apiUrl: string;
  readonly logRetention?: RetentionDays;
  /** Bundle the X-Ray SDK into the consumers (ServiceFunctionProps.xraySdk). */
  readonly xraySdk?: boolean;
}

/**
 * The queue consumers, in a nested stack of their own: one Lambda per consumer, fed by an SQS event source
 * with partial batch responses: a record the handler reports as failed goes back to the queue alone (and on
 * to the DLQ), the rest of the batch is deleted. Each function gets exactly the access its definition
 * declares, like an endpoint function, and a throttles alarm.
 */
/** Queue visibility timeout per second of its consumer's timeout, at least. */
export const VISIBILITY_PER_TIMEOUT = 6;

export class QueueConsumers extends NestedStack {
  /** The function of each consumer, by its `id`. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: QueueConsumersProps) {
    super(scope, id, { description: 'Delivery Route Service: queue consumers' });
    const resources = new StatefulImports(this, 'Stateful', props.stateful);
    const functions = new Map<string, ServiceFunction>();

    for (const consumer of props.consumers) {
      if (functions.has(consumer.id)) throw new Error(`two consumers have the id '${consumer.id}'`);
      const channel = consumer.queue;
      const source = consumer.deadLetters ? `${channel.name} DLQ` : `${channel.name} queue`;
      const visibilityTimeoutSeconds = consumer.deadLetters
        ? channel.consumedDeadLetters?.visibilityTimeoutSeconds
        : channel.visibilityTimeoutSeconds;
      if (visibilityTimeoutSeconds === undefined) {
        throw new Error(
          `consumer ${consumer.id} reads the ${source}: give channels.${channel.name} consumedDeadLetters`,
        );
      }
      // AWS's advice for SQS event sources: at least six times the function's timeout, or a message can be
      // handed out again while an invocation (or Lambda's retry of a throttled batch) still has it.
      if (visibilityTimeoutSeconds < VISIBILITY_PER_TIMEOUT * consumer.timeoutSeconds) {
        throw new Error(
          `consumer ${consumer.id} times out after ${consumer.timeoutSeconds} s: the ${source}'s ` +
            `visibility timeout (${visibilityTimeoutSeconds} s) must be at least ${VISIBILITY_PER_TIMEOUT} times that`,
        );
      }

      const slice = sliceOf(consumer.module);
      const fn = new ServiceFunction(this, `${pascalCase(consumer.id)}Function`, {
        slice,
        description: `${slice.name}: consumes the ${source} (${consumer.id})`,
        timeout: Duration.seconds(consumer.timeoutSeconds),
        memorySize: consumer.memorySize,
        nodeOptions: consumer.nodeOptions,
        environment: consumer.environment ? { ...consumer.environment } : undefined,
        logRetention: props.logRetention,
        xraySdk: props.xraySdk,
      });
      fn.bindAccess(consumer.access, resources);
      if (consumer.linksToApi) fn.addEnvironment(RESOURCE_ENV.apiUrl, props.apiUrl);
      fn.alarmOnThrottles(resources.alarmTopic);
      // The event source also grants the function receive, delete and change-visibility on this queue.
      const queue = consumer.deadLetters ? resources.deadLetterQueue(channel) : resources.queue(channel);
      fn.addEventSource(
        new SqsEventSource(queue, {
          batchSize: consumer.batchSize,
          maxConcurrency: consumer.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      functions.set(consumer.id, fn);
    }
    this.functions = functions;
  }
}
