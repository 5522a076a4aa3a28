import type { Readable } from 'node:stream';
import { errorOfDocument, putObjectBytes, readAtMost, sendObjectRequest, xmlField } from './bucket';
import type { ObjectRequest } from './bucket-requests';

/**
 * Streams `body` into an object of unknown size: one PutObject when it fits in a part, a multipart upload
 * otherwise (5 MB parts, two in flight, as lib-storage's Upload would send them), so memory stays bounded
 * whatever the size. A failed upload is aborted (its parts freed) and its error rethrown; the bucket's
 * lifecycle rule removes what an abort that fails leaves, after a day.
 */
export async function uploadStream(key: string, body: Readable, contentType: string): Promise<void> {
  const parts = partsOf(body)[Symbol.asyncIterator]();
  const first = await parts.next();
  const second = first.done ? first : await parts.next();
  if (second.done) {
    await putObjectBytes(key, first.done ? new Uint8Array() : first.value, contentType, {});
    return;
  }
  const uploadId = await createUpload(key, contentType);
  try {
    const etags: string[] = [];
    const inFlight = new Set<Promise<void>>();
    let partNumber = 0;
    const sendPart = (part: Buffer) => {
      const number = ++partNumber;
      const sent = uploadPart(key, uploadId, number, part).then((etag) => {
        etags[number - 1] = etag;
        inFlight.delete(sent);
      });
      // Awaited by the race or at the end; a part failing after another did is not left unhandled.
      sent.catch(() => undefined);
      inFlight.add(sent);
    };
    sendPart(first.value as Buffer);
    sendPart(second.value);
    for (let next = await parts.next(); !next.done; next = await parts.next()) {
      // A failed part ends the upload: its rejection leaves the race, and the loop with it.
      if (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
      sendPart(next.value);
    }
    await Promise.all(inFlight);
    await completeUpload(key, uploadId, etags);
  } catch (error) {
    await abortUpload(key, uploadId).catch(() => undefined);
    throw error;
  }
}

/** S3's least part size (every part but the last), the size of each part here. */
const PART_BYTES = 5 * 1024 * 1024;
/** Parts sent at once: what a part's round trip overlaps with the reading of the next. */
const PARTS_IN_FLIGHT = 2;

/**
 * The stream in parts of PART_BYTES, the last one shorter; none for an empty stream. Each part is one buffer
 * the stream's chunks are copied into as they come: a part holds no chunk, and no chunk holds a part.
 */
async function* partsOf(body: Readable): AsyncGenerator<Buffer> {
  let part = Buffer.allocUnsafe(PART_BYTES);
  let filled = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    for (let copied = 0; copied < bytes.length; ) {
      const count = bytes.copy(part, filled, copied);
      copied += count;
      filled += count;
      if (filled === PART_BYTES) {
        yield part;
        part = Buffer.allocUnsafe(PART_BYTES);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield part.subarray(0, filled);
}

/** Sends one request of the upload and answers its body's text (S3's XML document, when it sends one). */
async function sendForText(request: ObjectRequest, body?: Uint8Array): Promise<string> {
  const response = await sendObjectRequest(request, body);
  return response.body ? readAtMost(response.body, 64 * 1024) : '';
}

/** CreateMultipartUpload: the upload's id. */
async function createUpload(key: string, contentType: string): Promise<string> {
  const request: ObjectRequest = {
    method: 'POST',
    key,
    query: { uploads: '' },
    headers: { 'content-type': contentType },
  };
  const uploadId = xmlField(await sendForText(request), 'UploadId');
  if (!uploadId) throw new Error(`CreateMultipartUpload of object ${key} answered no UploadId`);
  return uploadId;
}

/** UploadPart: the part's ETag, which CompleteMultipartUpload names it by. */
async function uploadPart(key: string, uploadId: string, partNumber: number, part: Buffer): Promise<string> {
  const request: ObjectRequest = {
    method: 'PUT',
    key,
    query: { partNumber: String(partNumber), uploadId },
  };
  const response = await sendObjectRequest(request, part);
  response.body?.resume();
  const etag = response.headers.etag;
  if (!etag) throw new Error(`UploadPart ${partNumber} of object ${key} answered no ETag`);
  return etag;
}

/**
 * CompleteMultipartUpload. S3 may answer it 200 and still fail, with an error document in the body (S3 API
 * Reference, CompleteMultipartUpload): that is an error here too.
 */
async function completeUpload(key: string, uploadId: string, etags: readonly string[]): Promise<void> {
  const request: ObjectRequest = {
    method: 'POST',
    key,
    query: { uploadId },
    headers: { 'content-type': 'application/xml' },
  };
  const parts = etags.map(
    (etag, index) => `<Part><ETag>${escapeXml(etag)}</ETag><PartNumber>${index + 1}</PartNumber></Part>`,
  );
  const document = `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join('')}</CompleteMultipartUpload>`;
  const answer = await sendForText(request, new TextEncoder().encode(document));
  if (/<Error>/.test(answer)) throw errorOfDocument(request, 200, answer);
}

/** AbortMultipartUpload: frees the parts sent. */
async function abortUpload(key: string, uploadId: string): Promise<void> {
  const response = await sendObjectRequest({ method: 'DELETE', key, query: { uploadId } });
  response.body?.resume();
}

/** Text as an XML element's, escaped as the S3 client's XML builder escapes it (quotes stay). */
const escapeXml = (text: string) =>
  text.replace(/[&<>]/g, (character) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt' }[character]};`);
