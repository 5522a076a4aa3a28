import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PDFDocument, PDFName, type PDFNumber, PDFRawStream } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { db, queryItems, tableName } from '../../functions/data/client';
import { proofKey } from '../../functions/data/proofs';
import { routeKeys } from '../../functions/data/routes';
import { PROOF_LIMITS } from '../../functions/shared/limits';
import { DELIVERY_NOTES_PREFIX, PROOF_RETENTION_DAYS_DEFAULT } from '../../functions/shared/resources';
import type * as z from '../../functions/shared/zod';
import { at, type DriverAppClient, driverAppClient, nth, routeOf } from '../support/driver-app';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { waitUntil } from '../support/webhook-receiver';

/*
 * The evidence of an invoice: what was recorded about its delivery, and a PDF delivery note drawn from it,
 * stored beside the proofs and handed out through presigned links.
 */

const fx = useTestApi('evidence');
let c: DriverAppClient;
let globex: TestAccount;

type Evidence = z.infer<typeof routes.InvoiceEvidence>;

const driverId = 'evidence-driver';
const token = strongToken('evidence-driver-login-token1');
const route = routeOf('evidence', { waypoints: 2, invoicesPerWaypoint: 2, driverId });
const doomed = routeOf('evidence-doomed', { waypoints: 1, driverId });
const waypoint = nth(route.waypoints, 0);
const invoice = nth(waypoint.invoices, 0);
const unvisited = nth(nth(route.waypoints, 1).invoices, 1);
const SIGNER = 'Zoë Ålund';

const evidencePath = (routeId: string, invoiceId: string, dcId = 'dc-1') =>
  `/dcs/${dcId}/routes/${routeId}/invoices/${encodeURIComponent(invoiceId)}/evidence`;

/** A real PNG (grey, 8-bit): a signature the note can show. */
function pngImage(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8 bits, greyscale, deflate, no filter, no interlace
  const rows = Array.from({ length: height }, (_, y) =>
    Buffer.from([0, ...Array.from({ length: width }, (_, x) => ((x + y) % 7 === 0 ? 0 : 255))]),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An AVAILABLE proof of the waypoint: asked for, uploaded and checked by the worker. */
async function uploadedProof(
  routeId: string,
  waypointId: string,
  type: 'PHOTO' | 'SIGNATURE',
  bytes: Buffer,
  contentType: string,
): Promise<string> {
  const asked = await c.asDriver(token, 'POST', `/driver/routes/${routeId}/waypoints/${waypointId}/proofs`, {
    type,
    content_type: contentType,
    size_bytes: bytes.length,
  });
  const proof = (
    expectSuccess(asked, driverApp.createDriverProof) as { proof: { id: string; upload_url: string } }
  ).proof;
  const put = await fetch(proof.upload_url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': contentType, 'If-None-Match': '*' },
  });
  expect(put.status).toBe(200);
  await waitUntil(`proof ${proof.id} checked`, async () => {
    const listed = await c.asAccount('GET', `/dcs/dc-1/routes/${routeId}/waypoints/${waypointId}/proofs`);
    const proofs = (
      expectSuccess(listed, routes.listWaypointProofs) as { proofs: { id: string; status: string }[] }
    ).proofs;
    return proofs.find((candidate) => candidate.id === proof.id && candidate.status === 'AVAILABLE');
  });
  return proof.id;
}

async function evidenceOf(routeId: string, invoiceId: string): Promise<Evidence> {
  const response = await c.asAccount('GET', evidencePath(routeId, invoiceId));
  return (expectSuccess(response, routes.getInvoiceEvidence) as { evidence: Evidence }).evidence;
}

/** The evidence's delivery note, which every read within the evidence's retention has. */
function noteOf(evidence: Evidence): NonNullable<Evidence['delivery_note']> {
  if (!evidence.delivery_note) throw new Error('the evidence has no delivery note');
  return evidence.delivery_note;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function pdfText(pdf: Buffer): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
  return text;
}

/** The widths and heights of the images the PDF holds. */
async function pdfImages(pdf: Buffer): Promise<{ width: number; height: number }[]> {
  const doc = await PDFDocument.load(pdf);
  const size = (stream: PDFRawStream, name: string) =>
    (stream.dict.get(PDFName.of(name)) as PDFNumber).asNumber();
  return doc.context
    .enumerateIndirectObjects()
    .flatMap(([, object]) =>
      object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')
        ? [{ width: size(object, 'Width'), height: size(object, 'Height') }]
        : [],
    );
}

/** The bucket key a presigned path-style link points at. */
const keyOfLink = (link: string) => decodeURIComponent(new URL(link).pathname.split('/').slice(2).join('/'));

const DAY_MS = 86_400_000;

const renders = () => fx.api.logs.filter(({ line }) => line.includes('delivery note rendered')).length;

const signature = pngImage(60, 24);
let signatureId: string;
let photoId: string;

beforeAll(async () => {
  c = driverAppClient(fx.api, await fx.account());
  globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
  await c.createDriver('dc-1', driverId, token);
  await c.importRoute('dc-1', route);
  await c.importRoute('dc-1', doomed);
  await c.driverStart(token, route.id, at(10));
  signatureId = await uploadedProof(route.id, waypoint.id, 'SIGNATURE', signature, 'image/png');
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);
  photoId = await uploadedProof(route.id, waypoint.id, 'PHOTO', jpeg, 'image/jpeg');
  // Asked for and never uploaded: no evidence.
  expectSuccess(
    await c.asDriver(token, 'POST', `/driver/routes/${route.id}/waypoints/${waypoint.id}/proofs`, {
      type: 'PHOTO',
      content_type: 'image/jpeg',
      size_bytes: 10,
    }),
    driverApp.createDriverProof,
  );
  expectSuccess(
    await c.asDriver(token, 'POST', `/driver/routes/${route.id}/accounting`, {
      id: 'evidence-cash-1',
      cash_received_cents: 4200,
      cash_container_id: 'bag A',
    }),
    driverApp.addDriverAccountingRecord,
  );
  await c.driverAttempt(token, route.id, waypoint.id, {
    id: 'evidence-visit-1',
    timestamp: at(30),
    status: 'SUCCESSFUL',
    location: { latitude: 41.881, longitude: -87.631 },
    items: [
      {
        id: nth(invoice.items, 1).id,
        status: 'FAILED',
        reason: { code: 'DAMAGED', message: 'crushed case' },
      },
    ],
    proof_ids: [signatureId, photoId],
    signer_name: SIGNER,
  } as never);
});

describe('GET /dcs/{dc_id}/routes/{route_id}/invoices/{invoice_id}/evidence', () => {
  it('answers the invoice with its item statuses, the waypoint, attempts, cash records, AVAILABLE proofs and the signer', async () => {
    const evidence = await evidenceOf(route.id, invoice.id);
    expect(evidence.route).toMatchObject({ id: route.id, name: route.name });
    expect(evidence.waypoint).toMatchObject({ id: waypoint.id, sequence: 0, status: 'SUCCESSFUL' });
    const [first, second] = [nth(invoice.items, 0), nth(invoice.items, 1)];
    expect(evidence.invoice.id).toBe(invoice.id);
    expect(evidence.invoice.items).toEqual([
      expect.objectContaining({
        id: first.id,
        quantity: first.quantity,
        display_unit_of_measure: 'CASE',
        status: { status: 'SUCCESSFUL', timestamp: at(30) },
      }),
      expect.objectContaining({
        id: second.id,
        quantity: second.quantity,
        status: {
          status: 'FAILED',
          timestamp: at(30),
          reason: { code: 'DAMAGED', message: 'crushed case' },
        },
      }),
    ]);
    expect(evidence.attempts).toEqual([
      expect.objectContaining({
        id: 'evidence-visit-1',
        timestamp: at(30),
        location: { latitude: 41.881, longitude: -87.631 },
        signer_name: SIGNER,
      }),
    ]);
    expect(evidence.cash_records).toEqual([
      { id: 'evidence-cash-1', driver_id: driverId, cash_received_cents: 4200, cash_container_id: 'bag A' },
    ]);
    // The pending proof is left out; the others carry their hashes and working links.
    expect(evidence.proofs.map((proof) => [proof.id, proof.status])).toEqual([
      [signatureId, 'AVAILABLE'],
      [photoId, 'AVAILABLE'],
    ]);
    const served = nth(evidence.proofs, 0);
    expect(served.sha256).toBe(createHash('sha256').update(signature).digest('hex'));
    expect(await download(served.download_link as string)).toEqual(signature);
    expect(evidence.signer).toEqual({ name: SIGNER, attempt_id: 'evidence-visit-1', timestamp: at(30) });
  });

  it('hands out a PDF delivery note that prints the signer, the items with quantity and unit, and shows the signature', async () => {
    const before = Date.now();
    const note = noteOf(await evidenceOf(route.id, invoice.id));
    expect(note.signature_proof_id).toBe(signatureId);
    expect(note.expiration_timestamp).toBeGreaterThan(before);
    expect(note.expiration_timestamp).toBeLessThanOrEqual(
      Date.now() + PROOF_LIMITS.downloadLinkSeconds * 1000,
    );
    expect(keyOfLink(note.download_link).startsWith(DELIVERY_NOTES_PREFIX)).toBe(true);
    const pdf = await download(note.download_link);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(createHash('sha256').update(pdf).digest('hex')).toBe(note.sha256);
    const text = await pdfText(pdf);
    const [first, second] = [nth(invoice.items, 0), nth(invoice.items, 1)];
    expect(text).toContain(SIGNER);
    expect(text).toContain(first.id);
    expect(text).toContain(`${first.quantity} CASE`);
    expect(text).toContain(second.id);
    expect(text).toContain(`${second.quantity} CASE`);
    expect(text).toContain('DAMAGED: crushed case');
    expect(text).toContain(waypoint.id);
    expect(text).toContain(route.id);
    expect(await pdfImages(pdf)).toEqual([{ width: 60, height: 24 }]);
  });

  it('draws a note once for the same evidence, and a new one when the evidence changes', async () => {
    const first = noteOf(await evidenceOf(route.id, invoice.id));
    const drawn = renders();
    const again = noteOf(await evidenceOf(route.id, invoice.id));
    expect(keyOfLink(again.download_link)).toBe(keyOfLink(first.download_link));
    expect(again.sha256).toBe(first.sha256);
    expect(renders()).toBe(drawn);

    const other = nth(route.waypoints, 1);
    await c.driverAttempt(token, route.id, other.id, {
      id: 'evidence-visit-2',
      timestamp: at(40),
      status: 'VISIT_LATER',
    } as never);
    // Another waypoint's attempt is not this invoice's evidence.
    expect(keyOfLink(noteOf(await evidenceOf(route.id, invoice.id)).download_link)).toBe(
      keyOfLink(first.download_link),
    );
    const before = keyOfLink(noteOf(await evidenceOf(route.id, unvisited.id)).download_link);
    await c.driverAttempt(token, route.id, other.id, {
      id: 'evidence-visit-3',
      timestamp: at(50),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'shop closed' },
    } as never);
    const changed = await evidenceOf(route.id, unvisited.id);
    expect(keyOfLink(noteOf(changed).download_link)).not.toBe(before);
    expect(await pdfText(await download(noteOf(changed).download_link))).toContain('CLOSED: shop closed');
  });

  it('answers an invoice without signer or signature with a note that has no image', async () => {
    const evidence = await evidenceOf(doomed.id, nth(nth(doomed.waypoints, 0).invoices, 0).id);
    expect(evidence).toMatchObject({ attempts: [], proofs: [], cash_records: [], signer: null });
    expect(evidence.waypoint.status).toBe('PENDING');
    expect(noteOf(evidence).signature_proof_id).toBeNull();
    const pdf = await download(noteOf(evidence).download_link);
    expect(await pdfText(pdf)).toContain('not attempted');
    expect(await pdfImages(pdf)).toEqual([]);
  });

  it("refuses another account's DC with 403 (1002)", async () => {
    // dc-2 is Acme's; Globex has only a dc-1 of its own.
    const response = await c.request('GET', evidencePath(route.id, invoice.id, 'dc-2'), { key: globex.key });
    expectError(response, 403, 1002);
    // In Globex's own dc-1, Acme's route does not exist.
    expectError(await c.request('GET', evidencePath(route.id, invoice.id), { key: globex.key }), 404, 3003);
  });

  it("refuses a driver's login token with 401 (1001): drivers read no evidence", async () => {
    expectError(await c.asDriver(token, 'GET', evidencePath(route.id, invoice.id)), 401, 1001);
    expectError(await c.request('GET', evidencePath(route.id, invoice.id)), 401, 1001);
  });

  it('refuses an unknown route with 404 (3003), an invoice not on the route with 404 (1003), and a malformed id with 400 (1006)', async () => {
    expectError(await c.asAccount('GET', evidencePath('no-such-route', invoice.id)), 404, 3003);
    const unknown = expectError(
      await c.asAccount('GET', evidencePath(route.id, 'no-such-invoice')),
      404,
      1003,
    );
    expect(unknown).toContain('invoice_id');
    const elsewhere = nth(nth(doomed.waypoints, 0).invoices, 0).id;
    expectError(await c.asAccount('GET', evidencePath(route.id, elsewhere)), 404, 1003);
    const malformed = expectError(
      await c.asAccount('GET', evidencePath(route.id, 'x'.repeat(2000))),
      400,
      1006,
    );
    expect(malformed).toContain('invoice_id');
  });
});

describe('deleting a route', () => {
  it('keeps its proofs and delivery notes in the bucket (until proofRetentionDays ends)', async () => {
    const doomedWaypoint = nth(doomed.waypoints, 0);
    await c.driverStart(token, doomed.id, at(10));
    const proofId = await uploadedProof(doomed.id, doomedWaypoint.id, 'SIGNATURE', signature, 'image/png');
    const evidence = await evidenceOf(doomed.id, nth(doomedWaypoint.invoices, 0).id);
    const proofKey = keyOfLink(nth(evidence.proofs, 0).download_link as string);
    expect(proofKey).toContain(proofId);
    const noteKey = keyOfLink(noteOf(evidence).download_link);
    await c.driverFinish(token, doomed.id, at(60));
    expectSuccess(await c.asAccount('DELETE', `/dcs/dc-1/routes/${doomed.id}`), routes.deleteRoute);
    // The deletion worker removes the route's rows, its proofs' included.
    await waitUntil('the route rows removed', async () => {
      const { items } = await queryItems({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': routeKeys.route(c.account.accountId, doomed.id).pk },
        ConsistentRead: true,
      });
      return items.length === 0 ? true : undefined;
    });
    const s3 = new S3Client({ forcePathStyle: true });
    try {
      for (const key of [proofKey, noteKey]) {
        const head = await s3.send(new HeadObjectCommand({ Bucket: fx.api.resources.bucketName, Key: key }));
        expect(head.ContentLength).toBeGreaterThan(0);
      }
    } finally {
      s3.destroy();
    }
  });
});

describe('past the proofs’ retention', () => {
  it('a proof is gone for every read from its expiry on, before DynamoDB’s TTL deletes it; the note drawn before is still served', async () => {
    const note = noteOf(await evidenceOf(route.id, invoice.id));
    const drawn = renders();
    // The photo's record as DynamoDB holds it once its object's expiry passed: TTL deletes it days later.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: proofKey(c.account.accountId, route.id, 0, photoId),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const listed = await c.asAccount('GET', `/dcs/dc-1/routes/${route.id}/waypoints/${waypoint.id}/proofs`);
    const ids = (expectSuccess(listed, routes.listWaypointProofs) as { proofs: { id: string }[] }).proofs.map(
      (proof) => proof.id,
    );
    expect(ids).toContain(signatureId);
    expect(ids).not.toContain(photoId);
    const evidence = await evidenceOf(route.id, invoice.id);
    expect(evidence.proofs.map((proof) => proof.id)).toEqual([signatureId]);
    // The note shows no photo: the one drawn for this evidence is served as it was, and none is drawn.
    expect(noteOf(evidence).sha256).toBe(note.sha256);
    expect(renders()).toBe(drawn);
  });

  it('past the bucket’s expiry the proofs are gone with their objects, and no note is drawn again without them', async () => {
    const before = await evidenceOf(route.id, invoice.id);
    expect(noteOf(before).signature_proof_id).toBe(signatureId);
    const objects = [nth(before.proofs, 0).download_link as string, noteOf(before).download_link].map(
      keyOfLink,
    );
    const drawn = renders();
    // A day after the bucket's lifecycle rule expired them, as S3 and DynamoDB's TTL will have by then.
    const expired = await fx.api.cloud.expire(Date.now() + (PROOF_RETENTION_DAYS_DEFAULT + 2) * DAY_MS);
    expect(expired.objects[fx.api.resources.bucketName]).toBeGreaterThanOrEqual(3);
    expect(expired.items[fx.api.tableName]).toBeGreaterThanOrEqual(2);

    const listed = await c.asAccount('GET', `/dcs/dc-1/routes/${route.id}/waypoints/${waypoint.id}/proofs`);
    expect(expectSuccess(listed, routes.listWaypointProofs)).toEqual({ proofs: [] });
    const after = await evidenceOf(route.id, invoice.id);
    expect(after.proofs).toEqual([]);
    expect(after.delivery_note).toBeNull();
    expect(renders()).toBe(drawn);
    const s3 = new S3Client({ forcePathStyle: true });
    try {
      for (const key of objects) {
        const head = s3.send(new HeadObjectCommand({ Bucket: fx.api.resources.bucketName, Key: key }));
        await expect(head, key).rejects.toMatchObject({ name: 'NotFound' });
      }
    } finally {
      s3.destroy();
    }
    // What was recorded about the visit stays with the route: the attempt still names its proofs.
    expect(after.attempts).toEqual(before.attempts);
    expect(after.signer).toEqual(before.signer);
  });
});
