import { type Dc, getDc } from '../data/accounts';
import {
  bucketKeys,
  getObjectText,
  ObjectTooLargeError,
  presignedUploadLink,
  putJsonObject,
} from '../data/bucket';
import {
  type Claim,
  ClaimConflict,
  type ClaimKind,
  findHeldClaims,
  releaseClaims,
  takeClaims,
} from '../data/claims';
import { conditionFailedAt, deleteAll, putAll, writeTransaction } from '../data/client';
import { driverRoutesItem, getDriver } from '../data/drivers';
import { putEventItem } from '../data/events';
import {
  finishImportItem,
  getImport,
  type ImportRecord,
  importKeys,
  markUploadReceived,
  putPendingImport,
} from '../data/imports';
import { routeEtasItem } from '../data/route-etas';
import { type InvoiceRow, listRouteRows, routeRowItems, type WaypointRow } from '../data/route-rows';
import { putNewHeaderItem, type RouteHeader } from '../data/routes';
import { countWorkerAttempt } from '../data/worker-attempts';
import type { EventOf } from '../models/event-catalog';
import { type ImportedRoute, ImportRouteBody } from '../models/import-model';
import { randomId } from '../shared/crypto';
import type { ErrorCodeName } from '../shared/error-codes';
import { ERROR_CODES } from '../shared/error-codes';
import { ApiError, ConflictError, ValidationError } from '../shared/errors';
import { camelFields } from '../shared/field-names';
import { MAX_UPLOAD_BYTES } from '../shared/limits';
import { logger } from '../shared/observability';
import { sendToQueue } from '../shared/queues';
import { quote } from '../shared/quote';
import { parseJsonText, parsePart } from '../shared/request-parsing';
import { IMPORT_UPLOADS_PREFIX, QUEUES } from '../shared/resources';
import { localDateOf } from '../shared/time';
import { plannedEtas } from './route-etas';
import { claimsOf } from './route-ids';

const CODE_OF_KIND: Record<ClaimKind, ErrorCodeName> = {
  ROUTE: 'ROUTE_ID_TAKEN',
  WAYPOINT: 'WAYPOINT_ID_TAKEN',
  INVOICE: 'INVOICE_ID_TAKEN',
  ITEM: 'ITEM_ID_TAKEN',
  ACCOUNTING_RECORD: 'ACCOUNTING_ID_TAKEN',
};

/** The message the import queue carries: the payload itself waits in the bucket (claim-check). */
export interface ImportMessage {
  account_id: string;
  dc_id: string;
  txid: string;
}

/** 3006/3008/3009 for an id that appears twice in the body, naming where. */
function rejectRepeatedIds(route: ImportedRoute): void {
  const seen = new Map<string, string>();
  const check = (kind: ClaimKind, id: string, path: string) => {
    const key = `${kind}/${id}`;
    const first = seen.get(key);
    if (first) {
      throw new ConflictError(
        CODE_OF_KIND[kind],
        `${path}: ${kind.toLowerCase()} id ${quote(id)} already appears at ${first}`,
      );
    }
    seen.set(key, path);
  };
  route.waypoints.forEach((waypoint, w) => {
    check('WAYPOINT', waypoint.id, `route.waypoints.${w}.id`);
    waypoint.invoices.forEach((invoice, i) => {
      check('INVOICE', invoice.id, `route.waypoints.${w}.invoices.${i}.id`);
      invoice.items.forEach((item, t) => {
        check('ITEM', item.id, `route.waypoints.${w}.invoices.${i}.items.${t}.id`);
      });
    });
  });
}

function takenError(claim: Claim): ConflictError {
  const what = claim.kind === 'ROUTE' ? 'was already imported' : 'is already used by another route';
  return new ConflictError(
    CODE_OF_KIND[claim.kind],
    `${claim.kind.toLowerCase()} id ${quote(claim.id)} ${what}`,
  );
}

async function requireDriverOfDc(
  accountId: string,
  dcId: string,
  driverId: string | undefined,
): Promise<void> {
  if (driverId !== undefined && !(await getDriver(accountId, dcId, driverId))) {
    throw driverNotInDc(dcId, driverId);
  }
}

function driverNotInDc(dcId: string, driverId: string | undefined): ConflictError {
  return new ConflictError(
    'DRIVER_NOT_IN_DC',
    `route.driver_id: ${quote(driverId ?? '')} is not a driver of DC ${quote(dcId)}`,
  );
}

/**
 * Accepts a route import:
 * 1. rejects ids repeated inside the body (3006/3008/3009) and a driver outside the DC (3010);
 * 2. rejects ids the account already uses (3005/3006/3008/3009);
 * 3. stores the body in the bucket, records the import as PENDING and queues it.
 * The worker claims the ids for real; this check only spares clients an asynchronous failure.
 */
export async function acceptImport(accountId: string, dcId: string, route: ImportedRoute): Promise<string> {
  rejectRepeatedIds(route);
  await requireDriverOfDc(accountId, dcId, route.driver_id);
  const [taken] = await findHeldClaims(accountId, claimsOf(route));
  if (taken) throw takenError(taken);

  const txid = randomId('imp_');
  const payloadKey = bucketKeys.importPayload(accountId, txid);
  const now = Date.now();
  await putJsonObject(payloadKey, JSON.stringify({ route }));
  await putPendingImport({
    accountId,
    dcId,
    txid,
    routeId: route.id,
    status: 'PENDING',
    payloadKey,
    createdAt: now,
  });
  try {
    await sendToQueue('imports', { account_id: accountId, dc_id: dcId, txid } satisfies ImportMessage);
  } catch (error) {
    await finishImport(
      { accountId, dcId, txid, routeId: route.id },
      { failure: internalFailure('the import could not be queued; send it again') },
    );
    throw error;
  }
  return txid;
}

export interface AcceptedUpload {
  txid: string;
  uploadUrl: string;
  /** When the link stops working (epoch ms). */
  uploadExpiresAt: number;
}

/**
 * Starts an import whose body the client PUTs to the bucket itself (bodies too large for API Gateway and
 * Lambda): records it as PENDING and returns a presigned PUT link. The object's arrival queues the import
 * (an S3 event notification); one that has not arrived `arrivalGraceSeconds` after the link expired never
 * will be imported (a PUT may start until the link expires and take a while).
 */
export async function acceptUpload(
  accountId: string,
  dcId: string,
  settings: { linkSeconds: number; arrivalGraceSeconds: number },
): Promise<AcceptedUpload> {
  const txid = randomId('imp_');
  const payloadKey = bucketKeys.importUpload(accountId, txid);
  const link = await presignedUploadLink(payloadKey, settings.linkSeconds);
  await putPendingImport({
    accountId,
    dcId,
    txid,
    status: 'PENDING',
    payloadKey,
    createdAt: Date.now(),
    upload: {
      linkExpiresAt: link.expiresAt,
      arrivalDeadline: link.expiresAt + settings.arrivalGraceSeconds * 1000,
    },
  });
  return { txid, uploadUrl: link.url, uploadExpiresAt: link.expiresAt };
}

const UPLOAD_KEY = new RegExp(`^${IMPORT_UPLOADS_PREFIX}([^/]+)/(imp_[^/]+)\\.json$`);

/**
 * The import an uploaded object starts, from its key (S3 event keys come URL-encoded, spaces as `+`):
 * undefined for a key that is no upload, an import no longer pending, or an object that came after the
 * upload's deadline (import-status already reports that import failed).
 */
export async function arrivedUpload(encodedKey: string): Promise<ImportMessage | undefined> {
  const key = decodeURIComponent(encodedKey.replace(/\+/g, ' '));
  const [, accountId, txid] = UPLOAD_KEY.exec(key) ?? [];
  if (!accountId || !txid) return undefined;
  const record = await getImport(accountId, txid);
  if (!record?.upload || record.payloadKey !== key) return undefined;
  if (!(await markUploadReceived(accountId, txid, Date.now()))) return undefined;
  return { account_id: accountId, dc_id: record.dcId, txid };
}

/**
 * The route of an import body, checked as POST .../invoiced-routes checks it, with the same codes and
 * messages: 1005 for malformed JSON, 1006 naming the field, 3006/3008/3009 for a repeated id.
 */
function parseImportBody(text: string): ImportedRoute {
  const { route } = parsePart('body', ImportRouteBody, parseJsonText(text));
  rejectRepeatedIds(route);
  return route;
}

/** The body of an import from the bucket; a POSTed one is well under the upload limit. */
async function readImportBody(record: ImportRecord): Promise<ImportedRoute> {
  try {
    const text = await getObjectText(record.payloadKey, MAX_UPLOAD_BYTES);
    // Only an upload can be empty (S3 stores a 0-byte PUT like any other).
    if (text === '')
      throw new ValidationError(
        'request body: the upload is empty (0 bytes); PUT the {"route": ...} JSON to the link',
      );
    return parseImportBody(text);
  } catch (error) {
    if (!(error instanceof ObjectTooLargeError)) throw error;
    throw new ApiError(
      'BODY_TOO_LARGE',
      `the uploaded body has ${error.size} bytes; an upload may have at most ${MAX_UPLOAD_BYTES}`,
    );
  }
}

/** Runs of the import worker per import (counted on its record); the last ends it FAILED (1000). */
const IMPORT_ATTEMPTS = QUEUES.imports.workerAttempts;

export type ImportOutcome = 'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED';

/**
 * Runs one queued import; safe to run twice for the same message.
 * 1. skips an import that already finished (SQS delivers at least once);
 * 2. reads the body from the bucket (at most 100 MB) and checks it as the POST does (an upload's first check);
 * 3. claims every id for the txid (conditional writes; a retry of the same txid re-takes its own claims);
 * 4. writes waypoints, invoices and items in parallel batches (invisible until the header exists);
 * 5. writes the header, SUCCEEDED and the ROUTE_CREATED event in one transaction.
 * A refused body, a taken id or a driver gone from the DC fails the import with its code, after deleting what it wrote
 * and releasing its claims; so does any other error on the worker's last attempt (1000; its runs are counted on
 * the import's record, not by SQS's receive count, which throttled receives raise too). Earlier, other errors
 * are rethrown for SQS to retry the same txid; a run after the last (the last one timed out) fails it at once.
 */
export async function runImport(message: ImportMessage): Promise<ImportOutcome> {
  const record = await getImport(message.account_id, message.txid);
  if (!record) throw new Error(`import ${message.txid} has no record`);
  if (record.status !== 'PENDING') return 'ALREADY_FINISHED';
  const attempt = await countWorkerAttempt(importKeys.record(record.accountId, record.txid));
  if (attempt === undefined) return 'ALREADY_FINISHED';
  const lastAttempt = attempt >= IMPORT_ATTEMPTS;

  let claims: Claim[] = [];
  let imported = record;
  try {
    const route = await readImportBody(record);
    imported = { ...record, routeId: route.id };
    claims = claimsOf(route);
    // The body is read first even then: the failure releases the claims an earlier run took.
    if (attempt > IMPORT_ATTEMPTS)
      throw new Error(`the import's last attempt (${IMPORT_ATTEMPTS}) did not finish`);
    await takeClaims(record.accountId, claims, record.txid, route.id);
    await requireDriverOfDc(record.accountId, record.dcId, route.driver_id);
    const dc = await getDc(record.accountId, record.dcId);
    if (!dc) throw new Error(`DC ${record.dcId} is gone`);
    const { header, rows } = routeRecords(imported, route, dc);
    await putAll(rows);
    return await finishImport(imported, { header });
  } catch (error) {
    const failure =
      error instanceof ClaimConflict
        ? takenError(error.claim)
        : error instanceof ApiError
          ? error
          : lastAttempt
            ? internalFailure('the import failed; send it again')
            : undefined;
    // A passing failure keeps its claims and rows: SQS retries the same txid, which re-takes and rewrites them.
    if (!failure) throw error;
    if (!(error instanceof ClaimConflict || error instanceof ApiError)) {
      logger.error('import failed on its last attempt', { error, txid: record.txid });
    }
    await discardImport(imported, claims);
    return finishImport(imported, { failure });
  }
}

function internalFailure(message: string): ApiError {
  return new ApiError('INTERNAL', message, ERROR_CODES.INTERNAL.httpStatus);
}

/**
 * Deletes the rows this import wrote and releases the claims it holds. The rows are only ours while we
 * hold the route id: when the route id itself was taken, the partition belongs to the other route.
 */
async function discardImport(record: ImportRecord, claims: Claim[]): Promise<void> {
  const { routeId } = record;
  if (routeId === undefined) return; // an upload whose body was refused: nothing written, nothing claimed
  const [routeClaim] = await findHeldClaims(record.accountId, [{ kind: 'ROUTE', id: routeId }]);
  if (routeClaim?.txid === record.txid)
    await deleteAll((await listRouteRows(record.accountId, routeId)).map((row) => row.key));
  await releaseClaims(record.accountId, claims, record.txid);
}

/** Ends the import once: SUCCEEDED with the header and ROUTE_CREATED, or FAILED with ROUTE_IMPORT_FAILED. */
async function finishImport(
  record: Pick<ImportRecord, 'accountId' | 'dcId' | 'txid' | 'routeId'>,
  outcome: { header: RouteHeader } | { failure: ApiError },
): Promise<ImportOutcome> {
  const now = Date.now();
  const header = 'header' in outcome ? outcome.header : undefined;
  const payload: EventOf<'ROUTE_CREATED'> | EventOf<'ROUTE_IMPORT_FAILED'> =
    'failure' in outcome
      ? {
          type: 'ROUTE_IMPORT_FAILED',
          details: {
            txid: record.txid,
            error: { code: outcome.failure.code, message: outcome.failure.message },
          },
        }
      : {
          type: 'ROUTE_CREATED',
          details: {
            route: {
              id: outcome.header.routeId,
              name: outcome.header.name,
              start_time: outcome.header.startTime,
              driver_id: outcome.header.assignedDriverId ?? null,
              waypoint_count: outcome.header.waypointIds.length,
              is_active: outcome.header.isActive,
            },
          },
        };
  const error = payload.type === 'ROUTE_IMPORT_FAILED' ? payload.details.error : undefined;
  const event = putEventItem({
    accountId: record.accountId,
    dcId: record.dcId,
    routeId: record.routeId,
    ...payload,
    occurredAt: now,
  });
  // A route imported with a driver joins the driver's assigned set, on condition that the driver exists
  // (it may have been deleted since the import checked it).
  const driverId = header?.assignedDriverId;
  const driverItem =
    header && driverId !== undefined
      ? driverRoutesItem({ accountId: header.accountId, dcId: header.dcId, driverId }, header.routeId, {
          assigned: 'add',
        })
      : undefined;
  try {
    await writeTransaction([
      ...(header ? [putNewHeaderItem(header)] : []),
      finishImportItem(record.accountId, record.txid, now, record.routeId, error),
      event,
      ...(driverItem ? [driverItem] : []),
    ]);
  } catch (transactionError) {
    // The import record's condition failing means another delivery of the same message finished first.
    // The header's failing alone means a route with this id is still being deleted: let SQS retry.
    if (conditionFailedAt(transactionError, header ? 1 : 0)) return 'ALREADY_FINISHED';
    if (driverItem && conditionFailedAt(transactionError, 3)) throw driverNotInDc(record.dcId, driverId);
    throw transactionError;
  }
  return header ? 'SUCCEEDED' : 'FAILED';
}

/** The header and rows of an imported route, as stored. */
function routeRecords(record: ImportRecord, route: ImportedRoute, dc: Dc) {
  // The body's records are the stored ones with their fields named as on the wire.
  const waypoints: WaypointRow[] = route.waypoints.map(({ invoices, ...waypoint }, sequence) => ({
    sequence,
    ...camelFields(waypoint),
    invoiceIds: invoices.map((invoice) => invoice.id),
  }));
  const invoices: InvoiceRow[][] = route.waypoints.map((waypoint) =>
    waypoint.invoices.map(({ invoice_name_attributes, items, ...invoice }) => ({
      ...camelFields(invoice),
      waypointId: waypoint.id,
      nameAttributes: invoice_name_attributes,
      items: items.map(camelFields),
    })),
  );
  const header: RouteHeader = {
    accountId: record.accountId,
    dcId: record.dcId,
    routeId: route.id,
    name: route.name ?? route.id,
    startTime: route.start_time,
    localDate: localDateOf(route.start_time, dc.timeZone),
    assignedDriverId: route.driver_id,
    vehicleId: route.vehicle?.id,
    startWarehouse: route.start_warehouse,
    endWarehouse: route.end_warehouse,
    waypointIds: waypoints.map((waypoint) => waypoint.id),
    isActive: route.activate_after_successful_import,
    isFinalized: false,
    version: 1,
    importTxid: record.txid,
    createdAt: Date.now(),
  };
  const etas = routeEtasItem(record.accountId, route.id, plannedEtas(header, waypoints, dc.etaSpeedKmh));
  return { header, rows: [...routeRowItems(record.accountId, route.id, waypoints, invoices), etas] };
}

export type ImportStatusView =
  | { status: 'PENDING' }
  | { status: 'SUCCEEDED'; routeId: string }
  | { status: 'FAILED'; error: { code: number; message: string } };

/**
 * What GET .../import-status answers, for the caller's DC only. An upload whose object the worker has not
 * seen by its arrival deadline has failed (3015): the worker ignores the object from then on, so the answer
 * never changes once given.
 */
export async function importStatus(accountId: string, dcId: string, txid: string): Promise<ImportStatusView> {
  const record = await getImport(accountId, txid);
  if (!record || record.dcId !== dcId)
    throw new ApiError('IMPORT_NOT_FOUND', `no route import ${quote(txid)} in DC ${quote(dcId)}`);
  const { upload } = record;
  if (record.status === 'PENDING' && upload && !upload.receivedAt && Date.now() > upload.arrivalDeadline) {
    const expiredAt = new Date(upload.linkExpiresAt).toISOString();
    return {
      status: 'FAILED',
      error: {
        code: ERROR_CODES.UPLOAD_EXPIRED.code,
        message: `no route body was uploaded before the upload link expired at ${expiredAt}`,
      },
    };
  }
  // A SUCCEEDED record always has its route id: the import that succeeded set it.
  if (record.status === 'SUCCEEDED') return { status: 'SUCCEEDED', routeId: record.routeId as string };
  if (record.status === 'FAILED')
    return { status: 'FAILED', error: record.error ?? internalFailure('unknown error') };
  return { status: 'PENDING' };
}
