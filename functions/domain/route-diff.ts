import type { Claim } from '../data/claims';
import type { InvoiceRow, StoredRecipient, WaypointRow } from '../data/route-rows';
import type { EventDetails } from '../models/event-catalog';
import type { ImportedRoute } from '../models/import-model';
import { ConflictError } from '../shared/errors';
import { camelFields } from '../shared/field-names';
import { quote } from '../shared/quote';

/** What a change of a route's waypoints did (ROUTE_UPDATED's `changes`): ids added, removed and changed. */
export type RouteChanges = EventDetails<'ROUTE_UPDATED'>['changes'];

const noIds = () => ({ added: [], removed: [], changed: [] });

/** The changes of a revision that changed nothing. */
export const noChanges = (): RouteChanges => ({ waypoints: noIds(), invoices: noIds(), items: noIds() });

/** A waypoint's row with its invoices (each holding its items), as stored. */
export interface StoredWaypoint {
  waypoint: WaypointRow;
  invoices: InvoiceRow[];
}

/**
 * The rows of a route body's waypoints as they are stored (fields named as on the wire), in the body's order;
 * each waypoint's sequence is `sequenceOf` its position, its recipient the sealed one of `recipients`
 * (functions/domain/recipients.ts; never the body's plain one).
 */
export function storedWaypointsOf(
  route: ImportedRoute,
  sequenceOf: (position: number) => number = (position) => position,
  recipients: ReadonlyMap<string, StoredRecipient> = new Map(),
): StoredWaypoint[] {
  return route.waypoints.map(({ invoices, recipient: _plain, ...waypoint }, position) => {
    const recipient = recipients.get(waypoint.id);
    return {
      waypoint: {
        sequence: sequenceOf(position),
        ...camelFields(waypoint),
        invoiceIds: invoices.map((invoice) => invoice.id),
        ...(recipient ? { recipient } : {}),
      },
      invoices: invoices.map(({ invoice_name_attributes, items, ...invoice }) => ({
        ...camelFields(invoice),
        waypointId: waypoint.id,
        nameAttributes: invoice_name_attributes,
        items: items.map(camelFields),
      })),
    };
  });
}

export function waypointVisited(waypointId: string, what = ''): ConflictError {
  return new ConflictError(
    'WAYPOINT_VISITED',
    `waypoint_id: waypoint ${quote(waypointId)} was visited (it has an attempt); it${what} cannot be removed or changed`,
  );
}

/** What a revision does to a route's waypoints, invoices and items. */
export interface RevisionPlan {
  changes: RouteChanges;
  /** Waypoints of the body not on the route, under their new sequences (after every sequence used). */
  added: StoredWaypoint[];
  /** Waypoints of the route the body no longer has. */
  removed: StoredWaypoint[];
  /** Waypoints on both whose rows differ (their own fields, invoices or items): before and after. */
  rewritten: { before: StoredWaypoint; after: StoredWaypoint }[];
  /** The route's waypoints afterwards, in visiting order, and their sequences. */
  waypointIds: string[];
  waypointSequences: number[];
  /** True when the waypoints kept are visited in another order than before. */
  orderChanged: boolean;
  nextWaypointSequence: number;
  /** Ids the route takes (claimed as at import) and ids it frees. */
  addedClaims: Claim[];
  removedClaims: Claim[];
}

/**
 * JSON's view of a value: fields that are undefined are no fields (a stored row and a body's compare equal).
 * An unset value stays unset (JSON.stringify gives no text for it, which JSON.parse would refuse): a route
 * without a vehicle or warehouses compares equal to itself.
 */
const asJson = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

/**
 * Deep equality of two values JSON.parse made (null, booleans, numbers, strings, arrays, plain objects).
 * Not node:util's isDeepStrictEqual: importing node:util added about 7 ms to the import worker's cold start.
 */
function jsonValuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, index) => jsonValuesEqual(value, b[index]));
  }
  const aFields = Object.keys(a);
  if (aFields.length !== Object.keys(b).length) return false;
  return aFields.every(
    (field) =>
      Object.hasOwn(b, field) &&
      jsonValuesEqual((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]),
  );
}

/** Equal as JSON: fields in any order, undefined ones absent. */
export const sameAsJson = (a: unknown, b: unknown) => jsonValuesEqual(asJson(a), asJson(b));
const same = sameAsJson;

/**
 * A waypoint's fields as a revision compares them: its recipient by digest only (each sealing is new bytes),
 * and its masked form, since two recipients may share one.
 */
const withoutSequence = ({ sequence: _, recipient, ...waypoint }: WaypointRow) => ({
  ...waypoint,
  ...(recipient ? { recipient: recipient.digest ?? recipient.sealed } : {}),
});
const invoiceFields = ({ items, ...invoice }: InvoiceRow) => ({
  ...invoice,
  itemIds: items.map((i) => i.id),
});
/** An item as a body gives it, with the invoice it belongs to (an item moved to another invoice changed). */
const itemFields = (invoiceId: string, { status: _, ...item }: InvoiceRow['items'][number]) => ({
  ...item,
  invoiceId,
});

/** A waypoint's rows as a body gives them: the items' statuses (its attempts wrote them) left out. */
const comparable = (stop: StoredWaypoint) => ({
  waypoint: withoutSequence(stop.waypoint),
  sequence: stop.waypoint.sequence,
  invoices: stop.invoices.map((invoice) => ({
    ...invoiceFields(invoice),
    items: invoice.items.map((item) => itemFields(invoice.id, item)),
  })),
});

interface Listed<T> {
  id: string;
  fields: T;
}

/** Ids added, removed and changed from `before` to `after`, each list in the order of its side. */
function idChanges<T>(before: Listed<T>[], after: Listed<T>[]) {
  const old = new Map(before.map((entry) => [entry.id, entry.fields]));
  const next = new Set(after.map((entry) => entry.id));
  return {
    added: after.filter((entry) => !old.has(entry.id)).map((entry) => entry.id),
    removed: before.filter((entry) => !next.has(entry.id)).map((entry) => entry.id),
    changed: after
      .filter((entry) => old.has(entry.id) && !same(old.get(entry.id), entry.fields))
      .map((entry) => entry.id),
  };
}

const invoicesListed = (waypoints: StoredWaypoint[]) =>
  waypoints.flatMap((stop) =>
    stop.invoices.map((invoice) => ({ id: invoice.id, fields: invoiceFields(invoice) })),
  );
const itemsListed = (waypoints: StoredWaypoint[]) =>
  waypoints.flatMap((stop) =>
    stop.invoices.flatMap((invoice) =>
      invoice.items.map((item) => ({ id: item.id, fields: itemFields(invoice.id, item) })),
    ),
  );
const claimsOfStops = (waypoints: StoredWaypoint[]): Claim[] =>
  waypoints.flatMap((stop) => [
    { kind: 'WAYPOINT' as const, id: stop.waypoint.id },
    ...stop.invoices.flatMap((invoice) => [
      { kind: 'INVOICE' as const, id: invoice.id },
      ...invoice.items.map((item) => ({ kind: 'ITEM' as const, id: item.id })),
    ]),
  ]);

/**
 * Plans a revision of a route whose waypoints are `current` (in visiting order) into `route`'s, refusing:
 * - moving a waypoint whose visit is done (`done` holds their sequences): compared with the route's order less
 *   the waypoints the body removes, it keeps its place among the waypoints kept (3100);
 * - a new waypoint listed before a waypoint whose visit is done (3101): new waypoints go after the visited
 *   ones. Waypoints still to visit may be listed in any order, and new ones anywhere after the visited ones:
 *   kept waypoints keep their sequences (the keys of their rows, attempts and proofs) and new ones take the
 *   next, after every sequence the route ever used; the order is the header's list, so nothing else moves;
 * - removing or changing a visited waypoint (`visited` holds their sequences: any attempt), its invoices or
 *   items, or moving an invoice or item to or from it (3100).
 */
export function planRevision(
  current: StoredWaypoint[],
  route: ImportedRoute,
  visited: ReadonlySet<number>,
  done: ReadonlySet<number>,
  nextSequence: number,
  recipients: ReadonlyMap<string, StoredRecipient> = new Map(),
): RevisionPlan {
  const positionOf = new Map(current.map((stop, position) => [stop.waypoint.id, position]));
  checkOrderOfDone(current, route, done);

  let sequence = nextSequence;
  const sequences = route.waypoints.map((waypoint) => {
    const position = positionOf.get(waypoint.id);
    return position === undefined ? sequence++ : (current[position] as StoredWaypoint).waypoint.sequence;
  });
  const revised = storedWaypointsOf(route, (position) => sequences[position] as number, recipients);
  const revisedIds = new Set(revised.map((stop) => stop.waypoint.id));
  const removed = current.filter((stop) => !revisedIds.has(stop.waypoint.id));
  const added = revised.filter((stop) => !positionOf.has(stop.waypoint.id));
  const rewritten = revised.flatMap((after) => {
    const position = positionOf.get(after.waypoint.id);
    if (position === undefined) return [];
    const before = current[position] as StoredWaypoint;
    return same(comparable(before), comparable(after)) ? [] : [{ before, after }];
  });
  for (const { waypoint } of [...removed, ...rewritten.map((change) => change.before)]) {
    if (visited.has(waypoint.sequence)) throw waypointVisited(waypoint.id);
  }

  const changes: RouteChanges = {
    waypoints: idChanges(
      current.map((stop) => ({ id: stop.waypoint.id, fields: withoutSequence(stop.waypoint) })),
      revised.map((stop) => ({ id: stop.waypoint.id, fields: withoutSequence(stop.waypoint) })),
    ),
    invoices: idChanges(invoicesListed(current), invoicesListed(revised)),
    items: idChanges(itemsListed(current), itemsListed(revised)),
  };
  const freed = new Set([
    ...changes.waypoints.removed.map((id) => `WAYPOINT/${id}`),
    ...changes.invoices.removed.map((id) => `INVOICE/${id}`),
    ...changes.items.removed.map((id) => `ITEM/${id}`),
  ]);
  const taken = new Set([
    ...changes.waypoints.added.map((id) => `WAYPOINT/${id}`),
    ...changes.invoices.added.map((id) => `INVOICE/${id}`),
    ...changes.items.added.map((id) => `ITEM/${id}`),
  ]);
  return {
    changes,
    added,
    removed,
    rewritten,
    waypointIds: revised.map((stop) => stop.waypoint.id),
    waypointSequences: sequences,
    orderChanged: orderChanged(current, revised),
    nextWaypointSequence: sequence,
    addedClaims: claimsOfStops(revised).filter((claim) => taken.has(`${claim.kind}/${claim.id}`)),
    removedClaims: claimsOfStops(current).filter((claim) => freed.has(`${claim.kind}/${claim.id}`)),
  };
}

/**
 * The order rules of a revision (planRevision): each waypoint whose visit is done keeps its place among the
 * waypoints kept, and no new waypoint comes before the last of them.
 */
function checkOrderOfDone(current: StoredWaypoint[], route: ImportedRoute, done: ReadonlySet<number>): void {
  const listed = new Set(route.waypoints.map((waypoint) => waypoint.id));
  const keptBefore = current.filter((stop) => listed.has(stop.waypoint.id));
  const onRoute = new Set(current.map((stop) => stop.waypoint.id));
  const keptAfter = route.waypoints
    .map((waypoint, index) => ({ id: waypoint.id, index }))
    .filter((waypoint) => onRoute.has(waypoint.id));
  let lastDoneIndex = -1;
  keptBefore.forEach((stop, rank) => {
    if (!done.has(stop.waypoint.sequence)) return;
    const now = keptAfter[rank] as { id: string; index: number };
    if (now.id !== stop.waypoint.id)
      throw new ConflictError(
        'WAYPOINT_VISITED',
        `route.waypoints.${now.index}.id: waypoint ${quote(stop.waypoint.id)} was visited (its visit is done); it keeps its place in the route's order, where ${quote(now.id)} is listed`,
      );
    lastDoneIndex = now.index;
  });
  const firstNew = route.waypoints.findIndex(
    (waypoint, index) => index < lastDoneIndex && !onRoute.has(waypoint.id),
  );
  if (firstNew >= 0)
    throw new ConflictError(
      'WAYPOINT_ORDER_CHANGED',
      `route.waypoints.${firstNew}.id: new waypoint ${quote((route.waypoints[firstNew] as { id: string }).id)} is listed before ${quote((route.waypoints[lastDoneIndex] as { id: string }).id)}, whose visit is done; new waypoints go after the visited ones`,
    );
}

/** True when the waypoints on both lists come in another order in `after` than in `before`. */
function orderChanged(before: StoredWaypoint[], after: StoredWaypoint[]): boolean {
  const inAfter = new Set(after.map((stop) => stop.waypoint.id));
  const inBefore = new Set(before.map((stop) => stop.waypoint.id));
  const kept = before.filter((stop) => inAfter.has(stop.waypoint.id)).map((stop) => stop.waypoint.id);
  const keptAfter = after.filter((stop) => inBefore.has(stop.waypoint.id)).map((stop) => stop.waypoint.id);
  return kept.some((id, index) => keptAfter[index] !== id);
}

/** True when the plan changes no row. */
export const changesNoRow = (plan: RevisionPlan) =>
  plan.added.length === 0 && plan.removed.length === 0 && plan.rewritten.length === 0;
