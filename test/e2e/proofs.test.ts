import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { PROOF_LIMITS } from '../../functions/shared/limits';
import type * as z from '../../functions/shared/zod';
import { at, attemptPath, type DriverAppClient, driverAppClient, nth, routeOf } from '../support/driver-app';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { waitUntil } from '../support/webhook-receiver';

/*
 * Proofs of delivery: the driver app asks for an upload link, PUTs the bytes to S3, S3 notifies the proof
 * uploads queue (the local runtime's S3 notifications, as on AWS) and the check worker makes the proof
 * AVAILABLE with its sha256 or REJECTED; the dispatcher lists them with download links.
 */

const fx = useTestApi('proofs');
let c: DriverAppClient;
let globex: TestAccount;

type Proof = z.infer<typeof routes.Proof>;
type ProofUpload = {
  id: string;
  type: string;
  status: string;
  upload_url: string;
  upload_headers: Record<string, string>;
  upload_expiration_timestamp: number;
};

const driverId = 'proof-driver';
const token = strongToken('proof-driver-login-token-01');
const otherDriverId = 'proof-other-driver';
const otherToken = strongToken('proof-other-driver-token-1');
const started = routeOf('proofs-started', { waypoints: 3, driverId });
const notStarted = routeOf('proofs-active', { driverId });
const finished = routeOf('proofs-finished', { driverId });
const othersRoute = routeOf('proofs-others', { driverId: otherDriverId });
const wp = (index: number) => nth(started.waypoints, index).id;

/** Bytes that begin as each type's files do, padded to `size`. */
function imageBytes(contentType: 'image/jpeg' | 'image/png' | 'image/webp', size = 64): Buffer {
  const head = {
    'image/jpeg': Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    'image/webp': Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP')]),
  }[contentType];
  return Buffer.concat([head, Buffer.alloc(size - head.length, 7)]);
}

const proofsPath = (routeId: string, waypointId: string) =>
  `/driver/routes/${routeId}/waypoints/${waypointId}/proofs`;
const listPath = (routeId: string, waypointId: string, dcId = 'dc-1') =>
  `/dcs/${dcId}/routes/${routeId}/waypoints/${waypointId}/proofs`;

async function askUpload(
  waypointId: string,
  body: { type: string; content_type: string; size_bytes: number },
  routeId = started.id,
): Promise<ProofUpload> {
  const response = await c.asDriver(token, 'POST', proofsPath(routeId, waypointId), body);
  return (expectSuccess(response, driverApp.createDriverProof) as { proof: ProofUpload }).proof;
}

/** A PUT of `bytes` to the link as the driver app sends it: If-None-Match: *, with this Content-Type. */
const put = (
  url: string,
  bytes: Buffer,
  contentType: string,
  headers: Record<string, string> = { 'If-None-Match': '*' },
) =>
  fetch(url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { ...headers, 'content-type': contentType },
  });

async function proofsOf(waypointId: string, routeId = started.id): Promise<Proof[]> {
  const response = await c.asAccount('GET', listPath(routeId, waypointId));
  return (expectSuccess(response, routes.listWaypointProofs) as { proofs: Proof[] }).proofs;
}

/** The proof once its check has settled it (the worker runs when S3's notification arrives). */
const settled = (waypointId: string, proofId: string) =>
  waitUntil(`proof ${proofId} checked`, async () => {
    const proof = (await proofsOf(waypointId)).find((candidate) => candidate.id === proofId);
    return proof && proof.status !== 'PENDING_UPLOAD' ? proof : undefined;
  });

beforeAll(async () => {
  c = driverAppClient(fx.api, await fx.account());
  globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
  await c.createDriver('dc-1', driverId, token);
  await c.createDriver('dc-1', otherDriverId, otherToken);
  await Promise.all(
    [started, notStarted, finished, othersRoute].map((route) => c.importRoute('dc-1', route)),
  );
  await c.driverStart(token, started.id, at(10));
  await c.driverStart(token, finished.id, at(10));
  await c.driverFinish(token, finished.id, at(20));
  await c.driverStart(otherToken, othersRoute.id, at(10));
});

describe('POST /driver/routes/{route_id}/waypoints/{waypoint_id}/proofs', () => {
  it('answers a PENDING_UPLOAD proof with an upload link bound to the declared type and size', async () => {
    const before = Date.now();
    const proof = await askUpload(wp(0), { type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 64 });
    expect(proof).toMatchObject({ type: 'PHOTO', status: 'PENDING_UPLOAD' });
    expect(proof.upload_expiration_timestamp).toBeGreaterThan(before);
    expect(proof.upload_expiration_timestamp).toBeLessThanOrEqual(
      Date.now() + PROOF_LIMITS.uploadLinkSeconds * 1000,
    );
    const signed = new URL(proof.upload_url).searchParams.get('X-Amz-SignedHeaders')?.split(';');
    expect(signed).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host', 'if-none-match']),
    );
    expect(proof.upload_headers).toEqual({
      'Content-Type': 'image/jpeg',
      'Content-Length': '64',
      'If-None-Match': '*',
    });
    // S3 holds the PUT to the signed headers: another type or size is refused, and nothing is stored.
    expect((await put(proof.upload_url, imageBytes('image/jpeg'), 'image/png')).status).toBe(403);
    expect((await put(proof.upload_url, imageBytes('image/jpeg', 65), 'image/jpeg')).status).toBe(403);
    expect(nth(await proofsOf(wp(0)), 0)).toMatchObject({ id: proof.id, status: 'PENDING_UPLOAD' });
  });

  it.each([
    ['PHOTO', 'image/jpeg'],
    ['SIGNATURE', 'image/png'],
    ['PHOTO', 'image/webp'],
  ] as const)(
    'checks an uploaded %s of %s: AVAILABLE with its sha256 and a download link',
    async (type, contentType) => {
      const bytes = imageBytes(contentType, 2048);
      const proof = await askUpload(wp(1), { type, content_type: contentType, size_bytes: bytes.length });
      const sentAt = Date.now();
      expect((await put(proof.upload_url, bytes, contentType)).status).toBe(200);
      const checked = await settled(wp(1), proof.id);
      expect(checked).toMatchObject({
        id: proof.id,
        type,
        status: 'AVAILABLE',
        content_type: contentType,
        size_bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        attempt_id: null,
      });
      expect(checked.uploaded_timestamp).toBeGreaterThanOrEqual(sentAt - 1000);
      expect(checked.expiration_timestamp).toBeLessThanOrEqual(
        Date.now() + PROOF_LIMITS.downloadLinkSeconds * 1000,
      );
      const download = await fetch(checked.download_link as string);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    },
  );

  it('refuses a second PUT through the link once the object is there: the checked object is the one served', async () => {
    const bytes = imageBytes('image/jpeg', 512);
    const proof = await askUpload(wp(1), { type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 512 });
    // The link holds the PUT to If-None-Match: without it S3 refuses the signature.
    expect((await put(proof.upload_url, bytes, 'image/jpeg', {})).status).toBe(403);
    expect((await put(proof.upload_url, bytes, 'image/jpeg')).status).toBe(200);
    const checked = await settled(wp(1), proof.id);
    expect(checked).toMatchObject({
      status: 'AVAILABLE',
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    // The same type and size, other bytes, while the link still works: S3 refuses to replace the object.
    const swapped = imageBytes('image/jpeg', 512);
    swapped.write('swapped', 100);
    const again = await put(proof.upload_url, swapped, 'image/jpeg');
    expect(again.status).toBe(412);
    expect(await again.text()).toContain('<Code>PreconditionFailed</Code>');
    const served = (await proofsOf(wp(1))).find((candidate) => candidate.id === proof.id) as Proof;
    expect(served.sha256).toBe(checked.sha256);
    expect(Buffer.from(await (await fetch(served.download_link as string)).arrayBuffer())).toEqual(bytes);
  });

  it('rejects an upload whose first bytes are not of the declared type, and never serves it', async () => {
    const bytes = imageBytes('image/png', 100);
    const proof = await askUpload(wp(2), { type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 100 });
    expect((await put(proof.upload_url, bytes, 'image/jpeg')).status).toBe(200);
    expect(await settled(wp(2), proof.id)).toMatchObject({
      status: 'REJECTED',
      sha256: null,
      download_link: null,
      expiration_timestamp: null,
    });
  });

  it.each([
    [{ type: 'VIDEO', content_type: 'image/jpeg', size_bytes: 10 }, 'type'],
    [{ type: 'PHOTO', content_type: 'image/gif', size_bytes: 10 }, 'content_type'],
    [{ type: 'PHOTO', content_type: 'image/jpeg', size_bytes: PROOF_LIMITS.maxBytes + 1 }, 'size_bytes'],
    [{ type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 0 }, 'size_bytes'],
  ])('refuses %j with 400 (1006) naming %s', async (body, field) => {
    const message = expectError(
      await c.asDriver(token, 'POST', proofsPath(started.id, wp(0)), body),
      400,
      1006,
    );
    expect(message).toContain(field);
  });

  it('takes a proof of exactly 10 MB', async () => {
    const proof = await askUpload(wp(0), {
      type: 'PHOTO',
      content_type: 'image/jpeg',
      size_bytes: PROOF_LIMITS.maxBytes,
    });
    expect(proof.status).toBe('PENDING_UPLOAD');
  });

  const photo = { type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 10 };

  it('refuses a route that has not started with 3011, and a finished one with 3012', async () => {
    expectError(
      await c.asDriver(token, 'POST', proofsPath(notStarted.id, nth(notStarted.waypoints, 0).id), photo),
      400,
      3011,
    );
    expectError(
      await c.asDriver(token, 'POST', proofsPath(finished.id, nth(finished.waypoints, 0).id), photo),
      400,
      3012,
    );
  });

  it('refuses a waypoint not on the route with 3013', async () => {
    expectError(
      await c.asDriver(token, 'POST', proofsPath(started.id, 'no-such-waypoint'), photo),
      400,
      3013,
    );
  });

  it("refuses another driver's route with 404 (3003): a driver cannot add proofs to it", async () => {
    const waypointId = nth(othersRoute.waypoints, 0).id;
    expectError(await c.asDriver(token, 'POST', proofsPath(othersRoute.id, waypointId), photo), 404, 3003);
    const response = await c.asAccount('GET', listPath(othersRoute.id, waypointId));
    expect((expectSuccess(response, routes.listWaypointProofs) as { proofs: Proof[] }).proofs).toEqual([]);
  });

  it('refuses a call without a login token with 401 (1001)', async () => {
    expectError(await c.request('POST', proofsPath(started.id, wp(0)), { body: photo }), 401, 1001);
  });

  it(`refuses a proof beyond the ${PROOF_LIMITS.perWaypoint} of a waypoint with 9000, however many ask at once`, async () => {
    const waypointId = nth(othersRoute.waypoints, 1).id;
    const ask = () => c.asDriver(otherToken, 'POST', proofsPath(othersRoute.id, waypointId), photo);
    const atOnce = 16;
    const before = PROOF_LIMITS.perWaypoint - atOnce + 6;
    for (let n = 0; n < before; n++) expectSuccess(await ask(), driverApp.createDriverProof);
    // 16 requests at once for the last 10 places: exactly 10 get one, the rest are refused.
    const answers = await Promise.all(Array.from({ length: atOnce }, ask));
    const created = answers.filter((answer) => answer.status === 200);
    expect(created).toHaveLength(PROOF_LIMITS.perWaypoint - before);
    for (const answer of answers.filter((answer) => answer.status !== 200)) expectError(answer, 400, 9000);
    expectError(await ask(), 400, 9000);
    const listed = await c.asAccount('GET', listPath(othersRoute.id, waypointId));
    expect((expectSuccess(listed, routes.listWaypointProofs) as { proofs: Proof[] }).proofs).toHaveLength(
      PROOF_LIMITS.perWaypoint,
    );
  });
});

describe('an attempt naming proofs', () => {
  /** An AVAILABLE proof of the waypoint, uploaded and checked. */
  async function availableProof(waypointId: string, type = 'PHOTO'): Promise<string> {
    const bytes = imageBytes('image/png', 128);
    const proof = await askUpload(waypointId, { type, content_type: 'image/png', size_bytes: bytes.length });
    expect((await put(proof.upload_url, bytes, 'image/png')).status).toBe(200);
    expect((await settled(waypointId, proof.id)).status).toBe('AVAILABLE');
    return proof.id;
  }

  const visit = (id: string, extra: Record<string, unknown>) => ({
    id,
    timestamp: at(30),
    status: 'SUCCESSFUL',
    ...extra,
  });

  it('records proof_ids and signer_name, puts both in WAYPOINT_STATUS_CHANGED, and marks the proofs with the attempt', async () => {
    const waypointId = nth(started.waypoints, 2).id;
    const photo = await availableProof(waypointId);
    const signature = await availableProof(waypointId, 'SIGNATURE');
    const body = visit('proof-visit-1', { proof_ids: [photo, signature], signer_name: 'Zoë Ålund' });
    const attempt = await c.driverAttempt(token, started.id, waypointId, body as never);
    expect(attempt).toMatchObject({ proof_ids: [photo, signature], signer_name: 'Zoë Ålund' });
    const event = (await c.eventsOf(started.id)).find(
      (candidate) =>
        candidate.event_type === 'WAYPOINT_STATUS_CHANGED' &&
        candidate.details.attempt_id === 'proof-visit-1',
    );
    expect(event?.details).toMatchObject({ proof_ids: [photo, signature], signer_name: 'Zoë Ålund' });
    const listed = await proofsOf(waypointId);
    expect(listed.filter((proof) => proof.attempt_id === 'proof-visit-1').map((proof) => proof.id)).toEqual([
      photo,
      signature,
    ]);
    // The same attempt again is harmless; another attempt may not name the same proof (9002).
    expect(await c.driverAttempt(token, started.id, waypointId, body as never)).toEqual(attempt);
    const again = visit('proof-visit-2', { proof_ids: [photo] });
    const message = expectError(
      await c.asDriver(token, 'POST', attemptPath(started.id, waypointId), again),
      400,
      9002,
    );
    expect(message).toContain('proof-visit-1');
  });

  it('names a proof of a waypoint after an earlier waypoint of the route was cancelled', async () => {
    // Rows keep the sequence they were imported with: waypoint 2 stays 2 once waypoint 0 is gone.
    const revised = routeOf('proofs-revised', { waypoints: 3, driverId });
    await c.importRoute('dc-1', revised);
    const cancelled = nth(revised.waypoints, 0).id;
    expectSuccess(
      await c.asAccount('DELETE', `/dcs/dc-1/routes/${revised.id}/waypoints/${cancelled}`),
      routes.cancelWaypoint,
    );
    await c.driverStart(token, revised.id, at(10));
    const waypointId = nth(revised.waypoints, 2).id;
    const bytes = imageBytes('image/png', 128);
    const body = { type: 'SIGNATURE', content_type: 'image/png', size_bytes: bytes.length };
    const proof = await askUpload(waypointId, body, revised.id);
    expect((await put(proof.upload_url, bytes, 'image/png')).status).toBe(200);
    await waitUntil(`proof ${proof.id} checked`, async () =>
      (await proofsOf(waypointId, revised.id)).find(
        (candidate) => candidate.id === proof.id && candidate.status === 'AVAILABLE',
      ),
    );
    const attempt = await c.driverAttempt(
      token,
      revised.id,
      waypointId,
      visit('proof-visit-revised', { proof_ids: [proof.id], signer_name: 'Zoë Ålund' }) as never,
    );
    expect(attempt.proof_ids).toEqual([proof.id]);
    expect(nth(await proofsOf(waypointId, revised.id), 0).attempt_id).toBe('proof-visit-revised');
  });

  it("refuses another waypoint's proof with 9001, and a proof not AVAILABLE with 9002, writing nothing", async () => {
    const elsewhere = await availableProof(wp(0));
    const pending = await askUpload(wp(1), { type: 'PHOTO', content_type: 'image/jpeg', size_bytes: 10 });
    const onOther = visit('proof-visit-3', { proof_ids: [elsewhere] });
    expectError(await c.asDriver(token, 'POST', attemptPath(started.id, wp(1)), onOther), 400, 9001);
    const notUploaded = visit('proof-visit-4', { proof_ids: [pending.id] });
    const message = expectError(
      await c.asDriver(token, 'POST', attemptPath(started.id, wp(1)), notUploaded),
      400,
      9002,
    );
    expect(message).toContain('PENDING_UPLOAD');
    const attempts = (await c.readWaypoint('dc-1', started.id, wp(1))).attempts.map((attempt) => attempt.id);
    expect(attempts).not.toContain('proof-visit-3');
    expect(attempts).not.toContain('proof-visit-4');
  });

  it('refuses a proof id of another shape, one listed twice, and a blank signer with 1006 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ proof_ids: ['not-a-proof'] }, 'proof_ids.0'],
      [{ proof_ids: ['prf_0000000000000001', 'prf_0000000000000001'] }, 'proof_ids.1'],
      [{ signer_name: '  ' }, 'signer_name'],
    ];
    for (const [extra, field] of cases) {
      const response = await c.asDriver(
        token,
        'POST',
        attemptPath(started.id, wp(1)),
        visit('proof-visit-5', extra),
      );
      expect(expectError(response, 400, 1006)).toContain(field);
    }
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}/proofs', () => {
  it('lists a waypoint without proofs as empty', async () => {
    expect(await proofsOf(nth(notStarted.waypoints, 0).id, notStarted.id)).toEqual([]);
  });

  it("refuses another account's DC with 403 (1002)", async () => {
    // dc-2 is Acme's; Globex has only a dc-1 of its own.
    const response = await c.request('GET', listPath(started.id, wp(0), 'dc-2'), { key: globex.key });
    expectError(response, 403, 1002);
  });

  it('refuses a route not in the DC with 404 (3003), and a waypoint not on it with 3013', async () => {
    expectError(await c.asAccount('GET', listPath('no-such-route', wp(0))), 404, 3003);
    expectError(await c.asAccount('GET', listPath(started.id, 'no-such-waypoint')), 400, 3013);
  });

  it('refuses a call without an API key with 401 (1001)', async () => {
    expectError(await c.request('GET', listPath(started.id, wp(0))), 401, 1001);
  });
});
