import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/http';
import {
  killRuntimeGroup,
  killStartedRuntimes,
  START_DEADLINE_MS,
  type StartedRuntime,
  startRuntime,
  stopRuntime,
} from '../support/npm-start';
import { exampleRoute, waitForImport } from '../support/routes';
import { eventTypeOf, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createBody } from '../support/webhooks';

const stateDir = mkdtempSync(join(tmpdir(), 'npm-start-crash-'));
const apiKey = `drs_${randomBytes(24).toString('base64url')}`;
const SMALL_ROUTES = 5;
/** A 5,000-item import takes about 15 s on a quiet two-core machine (after a restart, with cold functions); far more than 3x that, for a crowded one. */
const RECOVERY_DEADLINE_MS = 300_000;

let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  killStartedRuntimes();
  await receiver?.close();
  rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
});

describe('npm start killed with SIGKILL', () => {
  it(
    'loses nothing committed: a queued import and events being delivered are done after a restart on the same state',
    async () => {
      // Deliveries hang until the crash, so that some are in the hands of the delivery function when it comes.
      let crashedAt = Number.POSITIVE_INFINITY;
      receiver = await startWebhookReceiver((delivery) => (delivery.receivedAt > crashedAt ? 200 : 'hang'));
      const first = await startRuntime(stateDir, { LOCAL_DEMO_API_KEY: apiKey });
      const created = await call(first.apiUrl, 'POST', '/webhooks', {
        key: apiKey,
        body: createBody(receiver.url, ['ROUTE_CREATED']),
      });
      expect(created.status, created.text).toBe(200);

      const small = Array.from({ length: SMALL_ROUTES }, (_, index) => `crash-small-${index}`);
      // One after another: at once, several cold starts of the import function on a busy two-core machine can
      // outlast its timeout (a 502), which on AWS each environment's own CPU would not.
      const smallTxids: string[] = [];
      for (const id of small) smallTxids.push(await acceptImport(first, exampleRoute(id)));
      for (const txid of smallTxids) {
        expect((await waitForImport(first.apiUrl, apiKey, 'dc-1', txid, 60_000)).status).toBe(200);
      }
      // 5,000 items: the import worker is still writing it, or has not received it yet, when the crash comes.
      const largeTxid = await acceptImport(
        first,
        exampleRoute('crash-large', {
          waypoints: 200,
          invoicesPerWaypoint: 1,
          itemsPerInvoice: 25,
          leanItems: true,
        }),
      );
      await receiver.waitFor(() => true, 1, 60_000);
      expect(await importStatus(first, largeTxid)).toBe('PENDING');

      await killRuntimeGroup(first);
      crashedAt = Date.now();

      const second = await startRuntime(stateDir, { LOCAL_DEMO_API_KEY: apiKey });
      try {
        const large = await waitForImport(second.apiUrl, apiKey, 'dc-1', largeTxid, RECOVERY_DEADLINE_MS);
        expect(large.body).toMatchObject({ data: { status: 'SUCCEEDED', route_id: 'crash-large' } });
        const routeIds = [...small, 'crash-large'].sort();
        expect(await routesCreatedAfter(crashedAt, routeIds.length)).toEqual(routeIds);
      } finally {
        await stopRuntime(second);
      }
    },
    2 * START_DEADLINE_MS + 3 * RECOVERY_DEADLINE_MS,
  );
});

async function acceptImport(runtime: StartedRuntime, route: unknown): Promise<string> {
  const accepted = await call(runtime.apiUrl, 'POST', '/dcs/dc-1/invoiced-routes', {
    key: apiKey,
    body: { route },
  });
  expect(accepted.status, accepted.text).toBe(202);
  return (accepted.body.data as { txid: string }).txid;
}

async function importStatus(runtime: StartedRuntime, txid: string): Promise<unknown> {
  const response = await call(runtime.apiUrl, 'GET', `/dcs/dc-1/routes/import-status/${txid}`, {
    key: apiKey,
  });
  return (response.body.data as { status?: unknown }).status;
}

/** This test's routes whose ROUTE_CREATED arrived after `since`, once there are `count` of them or the deadline passed. */
async function routesCreatedAfter(since: number, count: number): Promise<string[]> {
  const deadline = Date.now() + RECOVERY_DEADLINE_MS;
  for (;;) {
    const routes = new Set(
      (receiver as WebhookReceiver).deliveries
        .filter((delivery) => delivery.receivedAt > since && eventTypeOf(delivery) === 'ROUTE_CREATED')
        .map((delivery) => String(delivery.json.route_id))
        // The demo route's event may come too: it was imported when the runtime first started.
        .filter((routeId) => routeId.startsWith('crash-')),
    );
    if (routes.size >= count || Date.now() > deadline) return [...routes].sort();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
