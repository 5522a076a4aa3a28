import { PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { SQSRecord } from 'aws-lambda';
import { expect } from 'vitest';
import {
  createImportUpload,
  type InvoiceStatus as InvoiceStatusSchema,
  listWaypoints,
  type RouteWaypoint,
} from '../../functions/api/routes/index';
import { findHeldClaims } from '../../functions/data/claims';
import type { Item } from '../../functions/data/client';
import { allChannels, type ChannelName } from '../../functions/models/channels';
import { appliedRequirements, type Requirements } from '../../functions/models/delivery-requirements';
import type * as z from '../../functions/shared/zod';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import type { SampleRoute } from '../../local/app/sample-route';
import { sqsRecord } from '../../local/event-sources/sqs-records';
import { type ApiResponse, call, expectSuccess } from './http';
import type { TestApi } from './local-api';
import { scanItems } from './table-scans';

export { sampleRoute as exampleRoute } from '../../local/app/sample-route';

type InvoiceStatus = z.infer<typeof InvoiceStatusSchema>;
type Waypoint = z.infer<typeof RouteWaypoint>;

/** A route's waypoints as their first page lists them, read by `as` (one account's calls); 200 and the schema asserted. */
export async function readWaypointsAs(
  as: (method: string, path: string) => Promise<ApiResponse>,
  dcId: string,
  routeId: string,
): Promise<Waypoint[]> {
  const response = await as('GET', `/dcs/${dcId}/routes/${routeId}/waypoints`);
  return (expectSuccess(response, listWaypoints) as { waypoints: Waypoint[] }).waypoints;
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

/**
 * Uploads a route body through a presigned link (POST /dcs/{dc_id}/invoiced-routes/uploads, then PUT to the
 * link) and waits for its import to end; returns the final import status response.
 */
export async function uploadAndImport(
  baseUrl: string,
  key: string,
  dcId: string,
  body: string,
  timeoutMs?: number,
) {
  const upload = expectSuccess(
    await call(baseUrl, 'POST', `/dcs/${dcId}/invoiced-routes/uploads`, { key }),
    createImportUpload,
    202,
  ) as { txid: string; upload_url: string };
  const put = await fetch(upload.upload_url, { method: 'PUT', body });
  expect(put.status, await put.text()).toBe(200);
  return waitForImport(baseUrl, key, dcId, upload.txid, timeoutMs);
}

/**
 * Imports a route over HTTP and waits until it succeeded (`timeoutMs`: waitForImport's); returns the txid.
 */
export async function importRoute(
  baseUrl: string,
  key: string,
  dcId: string,
  route: unknown,
  timeoutMs?: number,
): Promise<string> {
  const accepted = await call(baseUrl, 'POST', `/dcs/${dcId}/invoiced-routes`, { key, body: { route } });
  expect(accepted.status, accepted.text).toBe(202);
  const txid = (accepted.body.data as { txid: string }).txid;
  const finished = await waitForImport(baseUrl, key, dcId, txid, timeoutMs);
  expect(finished.status, finished.text).toBe(200);
  return txid;
}

/** The channel of that name (tests name queues as api.resources does). */
export function channelNamed(name: ChannelName): (typeof allChannels)[number] {
  const channel = allChannels.find((candidate) => candidate.name === name);
  if (!channel) throw new Error(`no channel ${name}`);
  return channel;
}

/** A waypoint's `tracking_url` as the reads of a route served at `apiUrl` show it: 128 bits in base64url. */
export const trackingUrlUnder = (apiUrl: string) =>
  expect.stringMatching(
    new RegExp(`^${apiUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/track/[A-Za-z0-9_-]{22}$`),
  );

/** The bucket key a path-style link (an upload link: `/<bucket>/<key>`) names. */
export const bucketKeyOfLink = (link: string) =>
  decodeURIComponent(new URL(link).pathname.split('/').slice(2).join('/'));

/**
 * Writes `route`'s import body as the object an upload link names, behind the link's back: with the operator's
 * credentials, or a client of `config` (the emulator itself). Answers the object's key.
 */
export async function putUploadObject(
  api: TestApi,
  uploadUrl: string,
  route: unknown,
  config: S3ClientConfig = { forcePathStyle: true },
): Promise<string> {
  const key = bucketKeyOfLink(uploadUrl);
  const s3 = new S3Client(config);
  try {
    await s3.send(
      new PutObjectCommand({ Bucket: api.resources.bucketName, Key: key, Body: JSON.stringify({ route }) }),
    );
  } finally {
    s3.destroy();
  }
  return key;
}

/** The tracking link lookups of a route of the account, read as the operator (a scan: tests only). */
export const trackingLookupsOf = (accountId: string, routeId: string): Promise<Item[]> =>
  scanItems({ entity: 'TRACKING_LINK', account_id: accountId, route_id: routeId });

/** Takes `count` messages off the imports queue (for tests that deliver them to the worker themselves). */
export const receiveImportMessages = (api: TestApi, count: number) =>
  receiveQueueMessages(api, 'imports', count);

/** Takes `count` messages off a queue as SQS records (for tests that deliver them to its worker themselves). */
export async function receiveQueueMessages(api: TestApi, queue: ChannelName, count: number) {
  const messages: SQSRecord[] = [];
  const deadline = Date.now() + 10_000;
  while (messages.length < count && Date.now() < deadline)
    messages.push(...(await receiveWaiting(api, queue)));
  expect(messages).toHaveLength(count);
  return messages;
}

/**
 * One receive of up to 10 messages waiting in a queue (1 s long poll), as SQS records an event source hands on.
 * `visibilityTimeoutSeconds` overrides the queue's (0 leaves them visible: each receive counts all the same).
 */
export async function receiveWaiting(
  api: TestApi,
  queue: ChannelName,
  options: { visibilityTimeoutSeconds?: number } = {},
): Promise<SQSRecord[]> {
  const { ReceiveMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
  // The test process is the local operator: its environment points the client at the local endpoint.
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  try {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: api.resources.queueUrls[queue],
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        VisibilityTimeout: options.visibilityTimeoutSeconds,
      }),
    );
    return Messages.map((message) =>
      sqsRecord({
        messageId: message.MessageId as string,
        receiptHandle: message.ReceiptHandle as string,
        body: message.Body as string,
        attributes: message.Attributes as unknown as SQSRecord['attributes'],
        md5OfBody: message.MD5OfBody as string,
        queueArn: api.cloud.queue(channelNamed(queue)).arn,
      }),
    );
  } finally {
    sqs.destroy();
  }
}

/** How many of the route's ids (route, waypoints, invoices, items) the import `txid` holds claims on. */
export async function claimsHeldBy(accountId: string, txid: string, route: SampleRoute): Promise<number> {
  const claims = [
    { kind: 'ROUTE' as const, id: route.id },
    ...route.waypoints.flatMap((waypoint) => [
      { kind: 'WAYPOINT' as const, id: waypoint.id },
      ...waypoint.invoices.flatMap((invoice) => [
        { kind: 'INVOICE' as const, id: invoice.id },
        ...invoice.items.map((item) => ({ kind: 'ITEM' as const, id: item.id })),
      ]),
    ]),
  ];
  return (await findHeldClaims(accountId, claims)).filter((claim) => claim.txid === txid).length;
}

/**
 * Delivers records to the import worker as Lambda's SQS event source would: the deployed function, in its
 * own environment with its own role. Returns its batch failures; a function error is thrown.
 */
export async function runImportWorker(api: TestApi, records: SQSRecord[]) {
  const result = await api.invoke(importRoutes, { Records: records });
  if (result.kind !== 'success') throw new Error(`the import worker failed: ${JSON.stringify(result)}`);
  return result.payload as { batchItemFailures: { itemIdentifier: string }[] };
}

/** The waypoint fields the import sets, as every waypoint read shows them. */
export function importedWaypoint(route: SampleRoute, sequence: number) {
  const waypoint = route.waypoints[sequence];
  if (!waypoint) throw new Error(`no waypoint ${sequence} in route ${route.id}`);
  return {
    id: waypoint.id,
    sequence,
    customer_id: waypoint.customer_id,
    name: waypoint.name,
    address: waypoint.address,
    location: waypoint.location,
    service_time_minutes: waypoint.service_time_minutes,
    time_windows: waypoint.time_windows,
    invoice_ids: waypoint.invoices.map((invoice) => invoice.id),
    requirements: appliedRequirements(undefined, (waypoint as { requirements?: Requirements }).requirements),
    // The sample routes name no recipient: nobody to tell (customer messages).
    recipient: null,
    // No pings near it yet: never arrived at.
    arrived_timestamp: null,
    departed_timestamp: null,
    visits: [],
  };
}

/** The invoices of a route as the invoice read shows them, with the items' statuses given by id. */
export function expectedInvoices(
  route: SampleRoute,
  statuses: Record<string, InvoiceStatus['items'][number]['status']> = {},
): InvoiceStatus[] {
  return route.waypoints.flatMap((waypoint) =>
    waypoint.invoices.map((invoice) => ({
      id: invoice.id,
      payment_method: invoice.payment_method,
      invoice_name_attributes: invoice.invoice_name_attributes,
      items: invoice.items.map((item) => ({
        id: item.id,
        sku: item.sku ?? null,
        name: item.name ?? null,
        quantity: item.quantity,
        display_unit_of_measure: item.display_unit_of_measure ?? null,
        total_price_cents: item.total_price_cents,
        currency: item.currency,
        barcodes: (item as { barcodes?: string[] }).barcodes ?? [],
        status: statuses[item.id] ?? null,
      })),
    })),
  );
}

/** The details of the ROUTE_UPDATED events written for a route (read straight from the table), oldest first. */
export async function routeUpdatedEventsOf(
  accountId: string,
  routeId: string,
): Promise<Record<string, unknown>[]> {
  const items = await scanItems({
    entity: 'EVENT',
    account_id: accountId,
    route_id: routeId,
    event_type: 'ROUTE_UPDATED',
  });
  return items.sort((a, b) => a.occurred_at - b.occurred_at).map((item) => item.details);
}
