import type { QueueSpec } from '../cloud/model';
import { readBody, type Upstream } from './upstream';

/**
 * Messages the local AWS endpoint itself sends to the emulator's queues, as a service would (S3's event
 * notifications, SNS subscriptions of the outbox's delivery events), over fauxqs's SQS JSON protocol.
 */
export class EmulatorQueues {
  private readonly urls = new Map<string, string>();

  constructor(private readonly fauxqs: Upstream) {}

  /** Sends `body` to the queue; throws unless fauxqs accepted it. */
  async send(queue: QueueSpec, body: string): Promise<void> {
    const response = await this.call('SendMessage', { QueueUrl: await this.urlOf(queue), MessageBody: body });
    if (response.status !== 200) throw new Error(`SendMessage to ${queue.name}: ${response.text}`);
  }

  /** fauxqs finds a queue by the URL it made for it: asked once per queue. */
  private async urlOf(queue: QueueSpec): Promise<string> {
    const known = this.urls.get(queue.name);
    if (known) return known;
    const response = await this.call('GetQueueUrl', { QueueName: queue.name });
    const url = (JSON.parse(response.text) as { QueueUrl?: string }).QueueUrl;
    if (response.status !== 200 || !url) throw new Error(`no queue ${queue.name}: ${response.text}`);
    this.urls.set(queue.name, url);
    return url;
  }

  private async call(operation: string, input: Record<string, unknown>) {
    const response = await this.fauxqs.send(
      'POST',
      '/',
      { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${operation}` },
      Buffer.from(JSON.stringify(input)),
    );
    return { status: response.statusCode, text: (await readBody(response)).toString('utf8') };
  }
}
