import { randomBytes } from 'node:crypto';
import * as channels from '../functions/models/channels';
import { RESOURCE_ENV } from '../functions/shared/resources';
import { LOCAL_ACCOUNT_ID } from '../local/cloud/model';
import { type HandlerWarmResult, measureHandlerWarm } from './handler-warm';
import { ApiClient } from './http';
import { startHttpReceiver } from './http-receiver';
import type { StackInfo } from './runtime';
import type { DeliverWebhooksInput } from './warm/deliver-webhooks';
import { EVENT_TYPE } from './webhook-receiver';
import { apiDelete } from './webhook-runtime';

/**
 * webhook_delivery's check (bench/webhooks.ts): the delivery consumer's handler on its own, warm, a batch of
 * BATCH first attempts that succeed at a time against the raw work of the batch (bench/warm/deliver-webhooks.ts),
 * with webhooks of its own posting to a receiver of its own in this process. The pipeline (stream, fan-out,
 * queues) is not in it: what is measured is what the function adds to the deliveries it makes.
 */

/** The consumer's batch size: what Lambda hands it at once under load. */
const BATCH = 10;
const WEBHOOKS = 3;
/** Batches of each path, one at a time. */
const RUNS = 300;

export async function measureDeliveryHandler(options: {
  stack: StackInfo;
  apiKey: string;
  accountId: string;
  dcId: string;
  driverId: string;
  warmup: number;
  abort: AbortSignal;
  log: (message: string) => void;
}): Promise<HandlerWarmResult & { batch: number; webhooks: number; note: string }> {
  const { stack, apiKey, accountId, dcId, driverId, log } = options;
  log(`the delivery handler's bundle in-process: ${RUNS} warm batches and the raw work of as many`);
  const keyArn = stack.operator_environment?.[RESOURCE_ENV.webhookSecretsKeyArn];
  if (!keyArn) throw new Error(`the runtime's stack.json names no ${RESOURCE_ENV.webhookSecretsKeyArn}`);
  const receiver = await startHttpReceiver((_request, respond) => respond(200, 'ok'));
  const api = new ApiClient(stack.api_url, apiKey, 1);
  const secrets: Record<string, string> = {};
  try {
    for (let w = 0; w < WEBHOOKS; w++) {
      const { status, body } = await api.post(
        '/webhooks',
        JSON.stringify({ webhook_url: `${receiver.origin}/warm/${w}`, events: [EVENT_TYPE], dc_ids: [dcId] }),
      );
      const created = (body as { data?: { webhook?: { id?: unknown; secret?: unknown } } } | undefined)?.data
        ?.webhook;
      if (status !== 200 || typeof created?.id !== 'string' || typeof created.secret !== 'string')
        throw new Error(`creating webhook ${w}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
      secrets[created.id] = created.secret;
    }
    const webhookIds = Object.keys(secrets);
    const runId = randomBytes(4).toString('hex');
    const occurredAt = Date.now();
    const messages = Array.from({ length: BATCH }, (_, index) => {
      const message = {
        account_id: accountId,
        webhook_id: webhookIds[index % webhookIds.length] as string,
        event: {
          event_id: `bench-dh-${runId}-${index}`,
          type: EVENT_TYPE,
          dc_id: dcId,
          route_id: `bench-dh-${runId}`,
          occurred_at: occurredAt,
          details: { driver_id: driverId, started_timestamp: occurredAt },
        },
        attempt: 1,
      };
      // Checked as the service's producers check it.
      return channels.deliveries.message().parse(message);
    });
    const queueName = new URL(stack.queue_urls?.[channels.deliveries.name] ?? 'http://x/deliveries').pathname
      .split('/')
      .at(-1);
    const input: DeliverWebhooksInput = {
      messages,
      secrets,
      queueArn: `arn:aws:sqs:${stack.region}:${LOCAL_ACCOUNT_ID}:${queueName}`,
      table: stack.table_name,
    };
    const result = await measureHandlerWarm({
      functionName: 'workers/deliver-webhooks',
      comparison: 'deliver-webhooks',
      stack,
      input,
      // The sealed secrets open with a data key from the local AWS endpoint's KMS (cached by the handler).
      env: {
        [RESOURCE_ENV.webhookSecretsKeyArn]: keyArn,
        AWS_ENDPOINT_URL_KMS: stack.dynamodb_endpoint,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
      runs: RUNS,
      warmup: options.warmup,
      abort: options.abort,
    });
    log(`  handler p50 ${result.handler_ms.p50} ms, raw work p50 ${result.raw_ms.p50} ms a batch`);
    const note =
      "the delivery consumer's bundle (lib/bundling.ts) imported in a fresh node process with its deployed " +
      `environment and invoked warm with SQS events of ${BATCH} first attempts to ${WEBHOOKS} webhooks of its ` +
      'own that succeed, one batch at a time, against the raw work of a batch from the same process: a ' +
      'consistent GetItem of each webhook, then for every message at once the signed POST on a fresh ' +
      'connection and the attempt PutItem with the delivery UpdateItem; alternating which goes first; ' +
      'DynamoDB Local itself, a receiver in the bench process';
    return { ...result, batch: BATCH, webhooks: WEBHOOKS, note };
  } finally {
    for (const id of Object.keys(secrets))
      await apiDelete(stack.api_url, apiKey, `/webhooks/${encodeURIComponent(id)}`).catch(() => undefined);
    api.close();
    await receiver.close();
  }
}
