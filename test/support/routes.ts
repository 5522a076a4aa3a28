import type { Context, SQSRecord } from 'aws-lambda';
import { expect } from 'vitest';
import { call } from './http';
import type { TestApi } from './local-api';

/** A route in the import model with every field set, sized by the options. */
export function exampleRoute(
  id: string,
  options: {
    waypoints?: number;
    invoicesPerWaypoint?: number;
    itemsPerInvoice?: number;
    driverId?: string;
    startTime?: number;
    /** Items with only their required fields, so that 50,000 of them fit in a 6 MB body. */
    leanItems?: boolean;
  } = {},
) {
  const {
    waypoints = 2,
    invoicesPerWaypoint = 1,
    itemsPerInvoice = 2,
    startTime = Date.UTC(2026, 10, 23, 13, 0),
  } = options;
  return {
    id,
    name: `Route ${id}`,
    driver_id: options.driverId,
    start_time: startTime,
    activate_after_successful_import: true,
    start_warehouse: {
      id: 'wh-1',
      name: 'Main warehouse',
      address: '1 Dock St',
      location: { latitude: 41.85, longitude: -87.65 },
    },
    end_warehouse: {
      id: 'wh-1',
      name: 'Main warehouse',
      address: '1 Dock St',
      location: { latitude: 41.85, longitude: -87.65 },
    },
    vehicle: { id: `truck-${id}` },
    waypoints: Array.from({ length: waypoints }, (_, w) => ({
      id: `${id}-wp-${w}`,
      customer_id: `customer-${w}`,
      name: `Customer ${w}`,
      address: `${w} Main St`,
      location: { latitude: 41.88 + w / 1000, longitude: -87.63 - w / 1000 },
      service_time_minutes: 10,
      time_windows: [{ start: startTime + 3_600_000, end: startTime + 7_200_000 }],
      invoices: Array.from({ length: invoicesPerWaypoint }, (_, i) => ({
        id: `${id}-inv-${w}-${i}`,
        payment_method: i % 2 === 0 ? 'CASH' : 'CREDIT',
        invoice_name_attributes: [{ key: 'invoice_number', value: `INV-${w}-${i}` }],
        items: Array.from({ length: itemsPerInvoice }, (_, t) => ({
          id: `${id}-item-${w}-${i}-${t}`,
          ...(options.leanItems
            ? {}
            : { sku: `SKU-${t}`, name: `Product ${t}`, display_unit_of_measure: 'CASE' }),
          quantity: 1.5 + t,
          total_price_cents: 1299 + t,
          currency: 'USD',
        })) as {
          id: string;
          sku?: string;
          name?: string;
          quantity: number;
          total_price_cents: number;
          currency: string;
        }[],
      })),
    })),
  };
}

/** Polls the import status until it is no longer 202; returns the final response. */
export async function waitForImport(
  baseUrl: string,
  key: string,
  dcId: string,
  txid: string,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await call(baseUrl, 'GET', `/dcs/${dcId}/routes/import-status/${txid}`, { key });
    if (response.status !== 202) return response;
    expect(Date.now(), `import ${txid} still pending`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Imports a route over HTTP and waits until it succeeded; returns the txid. */
export async function importRoute(
  baseUrl: string,
  key: string,
  dcId: string,
  route: unknown,
): Promise<string> {
  const accepted = await call(baseUrl, 'POST', `/dcs/${dcId}/invoiced-routes`, { key, body: { route } });
  expect(accepted.status, accepted.text).toBe(202);
  const txid = (accepted.body.data as { txid: string }).txid;
  const finished = await waitForImport(baseUrl, key, dcId, txid);
  expect(finished.status, finished.text).toBe(200);
  return txid;
}

/** Takes `count` messages off the imports queue (for tests that deliver them to the worker themselves). */
export async function receiveImportMessages(api: TestApi, count: number) {
  const { ReceiveMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const messages: SQSRecord[] = [];
  const deadline = Date.now() + 10_000;
  while (messages.length < count && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: api.resources.queueUrls.imports,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    for (const message of Messages) {
      messages.push({
        messageId: message.MessageId as string,
        receiptHandle: message.ReceiptHandle as string,
        body: message.Body as string,
        attributes: {
          ApproximateReceiveCount: '1',
          ...(message.Attributes as object),
        } as SQSRecord['attributes'],
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:imports',
        awsRegion: 'us-east-1',
      });
    }
  }
  sqs.destroy();
  expect(messages).toHaveLength(count);
  return messages;
}

/** Delivers records to the import worker as Lambda's SQS event source would; returns the batch failures. */
export async function runImportWorker(records: SQSRecord[]) {
  const { handler } = await import('../../functions/handlers/workers/import-routes');
  const context = {
    awsRequestId: 'test',
    functionName: 'import-routes',
    getRemainingTimeInMillis: () => 300_000,
  } as Context;
  return (await handler({ Records: records }, context)) as {
    batchItemFailures: { itemIdentifier: string }[];
  };
}
