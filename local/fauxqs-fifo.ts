import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * fauxqs 2.4 hands out one message of a FIFO message group per ReceiveMessage; SQS hands out as many of a
 * group as it can, in order ("When you receive messages from a FIFO queue with multiple message group IDs,
 * Amazon SQS first attempts to return as many messages with the same message group ID as possible", the SQS
 * Developer Guide's FIFO delivery logic), and Lambda's FIFO event source passes them on as one batch. With one
 * message a receive, an account's events reached the event feed one invocation each, some ten times slower
 * than on AWS. This replaces the queue's FIFO dequeue with one that takes up to the count asked for from each
 * group in turn, everything else as fauxqs does it (receive counts, dead-lettering past maxReceiveCount, the
 * in-flight record and the group's lock, one per message handed out, released as each is deleted or
 * comes back). `test/e2e/aws-proxy-sqs.test.ts` holds it to SQS's behaviour.
 */

interface FifoMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  md5OfMessageAttributes?: string;
  messageAttributes: Record<string, unknown>;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
}

interface FifoQueue {
  name: string;
  attributes: Record<string, string>;
  fifoMessages: Map<string, FifoMessage[]>;
  fifoLockedGroups: Map<string, number>;
  inflightMessages: Map<string, { message: FifoMessage; receiptHandle: string; visibilityDeadline: number }>;
  spy?: { addMessage(record: Record<string, unknown>): void };
  persistence?: {
    deleteMessage(messageId: string): void;
    updateMessageInflight(
      messageId: string,
      receiptHandle: string,
      visibilityDeadline: number,
      receiveCount: number,
      firstReceive: number | undefined,
    ): void;
  };
  processTimers(): void;
  dequeueFifo(maxCount: number, visibilityTimeoutOverride?: number, dlqResolver?: DlqResolver): unknown[];
}

type DlqResolver = (arn: string) => { enqueue(message: FifoMessage): void } | undefined;

let patched = false;

/** Patches fauxqs's FIFO queues (once per process) before any is used. */
export async function handOutFifoGroupsWhole(): Promise<void> {
  if (patched) return;
  // The store's module, by its file (the package exports only its entry, for import): the instance fauxqs uses.
  const packageDir = createRequire(import.meta.url)
    .resolve.paths('fauxqs')
    ?.map((modules) => join(modules, 'fauxqs'))
    .find((dir) => existsSync(join(dir, 'package.json')));
  if (!packageDir) throw new Error('fauxqs is not installed');
  const store = (await import(pathToFileURL(join(packageDir, 'dist', 'sqs', 'sqsStore.js')).href)) as {
    SqsQueue?: { prototype: FifoQueue };
  };
  const prototype = store.SqsQueue?.prototype;
  if (typeof prototype?.dequeueFifo !== 'function')
    throw new Error('fauxqs changed: its SqsQueue has no dequeueFifo to patch (local/fauxqs-fifo.ts)');
  prototype.dequeueFifo = dequeueFifo;
  patched = true;
}

function dequeueFifo(
  this: FifoQueue,
  maxCount: number,
  visibilityTimeoutOverride?: number,
  dlqResolver?: DlqResolver,
): unknown[] {
  this.processTimers();
  const visibilityTimeout =
    visibilityTimeoutOverride ?? Number.parseInt(this.attributes.VisibilityTimeout ?? '30', 10);
  let maxReceiveCount = Number.POSITIVE_INFINITY;
  let dlqArn: string | undefined;
  if (this.attributes.RedrivePolicy) {
    try {
      const policy = JSON.parse(this.attributes.RedrivePolicy) as {
        maxReceiveCount?: number;
        deadLetterTargetArn?: string;
      };
      maxReceiveCount = policy.maxReceiveCount ?? Number.POSITIVE_INFINITY;
      dlqArn = policy.deadLetterTargetArn;
    } catch {
      // a policy that does not parse redrives nothing, as in fauxqs
    }
  }
  const result: unknown[] = [];
  const count = Math.min(maxCount, 10);
  for (const [groupId, groupMessages] of this.fifoMessages) {
    if (result.length >= count) break;
    if (this.fifoLockedGroups.has(groupId)) continue;
    while (result.length < count && groupMessages.length > 0) {
      const message = groupMessages.shift() as FifoMessage;
      message.approximateReceiveCount++;
      message.approximateFirstReceiveTimestamp ??= Date.now();
      const dlq =
        dlqArn && message.approximateReceiveCount > maxReceiveCount ? dlqResolver?.(dlqArn) : undefined;
      if (dlq) {
        this.spy?.addMessage({
          service: 'sqs',
          queueName: this.name,
          messageId: message.messageId,
          body: message.body,
          messageAttributes: message.messageAttributes,
          status: 'dlq',
          timestamp: Date.now(),
        });
        this.persistence?.deleteMessage(message.messageId);
        dlq.enqueue(message);
        continue;
      }
      const receiptHandle = crypto.randomUUID();
      const visibilityDeadline = Date.now() + visibilityTimeout * 1000;
      this.inflightMessages.set(receiptHandle, { message, receiptHandle, visibilityDeadline });
      this.persistence?.updateMessageInflight(
        message.messageId,
        receiptHandle,
        visibilityDeadline,
        message.approximateReceiveCount,
        message.approximateFirstReceiveTimestamp,
      );
      result.push({
        MessageId: message.messageId,
        ReceiptHandle: receiptHandle,
        MD5OfBody: message.md5OfBody,
        Body: message.body,
        ...(message.md5OfMessageAttributes ? { MD5OfMessageAttributes: message.md5OfMessageAttributes } : {}),
        ...(Object.keys(message.messageAttributes).length > 0
          ? { MessageAttributes: message.messageAttributes }
          : {}),
      });
      // The group stays locked while any of its messages is in flight: one lock per message handed out.
      this.fifoLockedGroups.set(groupId, (this.fifoLockedGroups.get(groupId) ?? 0) + 1);
    }
    if (groupMessages.length === 0) this.fifoMessages.delete(groupId);
  }
  return result;
}
