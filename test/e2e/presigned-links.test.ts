import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import * as routes from '../../functions/api/routes/index';
import { functionId } from '../../lib/naming';
import type { Principal } from '../../local/aws-proxy/proxy';
import { createTestAccount } from '../support/accounts';
import { requestDownloadFrom } from '../support/analytics';
import { call, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute } from '../support/routes';

// The export goes through the analytics queue and its worker: on a loaded 2-core machine a wait can pass 30 s.
vi.setConfig({ testTimeout: 90_000 });

/*
 * Presigned links are signed with a session of a link-signer role that the function assumes (STS
 * AssumeRole through the local endpoint), and die with it. Sessions here last a few seconds instead of an
 * hour, so a test outwaits them: each link must say it expires no later than its session, work until then
 * and fail after with S3's ExpiredToken.
 */
const SESSION_SECONDS = 5;

let api: TestApi;
let acme: { accountId: string; key: string };

beforeAll(async () => {
  api = await startTestApi('presigned-links', { maxChainedSessionSeconds: SESSION_SECONDS });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

/** The session that signed a presigned link (the access key id of its X-Amz-Credential), as the proxy knows it. */
function signingSession(
  link: string,
  slice: string,
  role: 'DownloadLinkSignerRole' | 'UploadLinkSignerRole',
): Principal {
  const credential = new URL(link).searchParams.get('X-Amz-Credential') ?? '';
  const session = api.cloud.proxy.principalOf(credential.split('/')[0] as string);
  // The signer is a child of the slice's function: its logical id starts with the function's construct id.
  const signer = api.cloud.deployment.roles.filter((candidate) =>
    candidate.logicalId.startsWith(`${functionId(slice)}${role}`),
  );
  expect(signer).toHaveLength(1);
  expect(session?.arn).toContain(`:assumed-role/${signer[0]?.name}/`);
  expect(session?.expiresAt).toBeDefined();
  return session as Principal;
}

const sleepUntil = (epochMs: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now())));

/** Asserts S3's answer to a link whose signing credentials expired. */
async function expectExpiredToken(response: Response): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(400);
  expect(text).toContain('<Code>ExpiredToken</Code>');
}

describe('an upload link', () => {
  it('expires no later than the session that signed it, works until then and fails after', async () => {
    const response = await call(api.url, 'POST', '/dcs/dc-1/invoiced-routes/uploads', { key: acme.key });
    const received = Date.now();
    const upload = expectSuccess(response, routes.createImportUpload, 202) as {
      upload_url: string;
      upload_expiration_timestamp: number;
    };
    const session = signingSession(upload.upload_url, 'routes/upload', 'UploadLinkSignerRole');
    const sessionEnds = session.expiresAt as number;
    expect(sessionEnds).toBeLessThanOrEqual(received + SESSION_SECONDS * 1000);
    expect(upload.upload_expiration_timestamp).toBeLessThanOrEqual(sessionEnds);
    expect(Number(new URL(upload.upload_url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(
      SESSION_SECONDS,
    );

    const body = JSON.stringify({ route: exampleRoute('link-expiry') });
    const stored = await fetch(upload.upload_url, { method: 'PUT', body });
    expect(stored.status, await stored.text()).toBe(200);
    expect(Date.now()).toBeLessThan(upload.upload_expiration_timestamp);

    await sleepUntil(sessionEnds + 100);
    await expectExpiredToken(await fetch(upload.upload_url, { method: 'PUT', body }));
  });
});

describe('download links', () => {
  it('expire no later than the session that signed them, work until then and fail after', async () => {
    const txid = await requestDownloadFrom(api.url, acme.key, {
      dc_ids: ['dc-1'],
      from_date: '2024-01-01',
      to_date: '2024-01-01',
      analytics_types: ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'],
    });
    const path = `/analytics/download-requests/${txid}/files`;
    const deadline = Date.now() + 60_000;
    let response = await call(api.url, 'GET', path, { key: acme.key });
    while (response.status === 202 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      response = await call(api.url, 'GET', path, { key: acme.key });
    }
    const received = Date.now();
    const { download_request_files: files } = expectSuccess(
      response,
      analytics.getAnalyticsDownloadFiles,
    ) as {
      download_request_files: { download_link: string; expiration_timestamp: number }[];
    };
    expect(files).toHaveLength(2);

    const sessions = files.map((file) =>
      signingSession(file.download_link, 'analytics/download-files', 'DownloadLinkSignerRole'),
    );
    // The links of one response share one AssumeRole.
    expect(new Set(sessions).size).toBe(1);
    const sessionEnds = sessions[0]?.expiresAt as number;
    expect(sessionEnds).toBeLessThanOrEqual(received + SESSION_SECONDS * 1000);
    for (const file of files) {
      expect(file.expiration_timestamp).toBeLessThanOrEqual(sessionEnds);
      const downloaded = await fetch(file.download_link);
      expect(downloaded.status, await downloaded.text()).toBe(200);
      expect(Date.now()).toBeLessThan(file.expiration_timestamp);
    }

    await sleepUntil(sessionEnds + 100);
    for (const file of files) await expectExpiredToken(await fetch(file.download_link));
  });
});
