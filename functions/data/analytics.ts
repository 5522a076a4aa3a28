import { deleteAll, type Item, queryItems } from './client';
import { codec } from './codec';
import { cutToBudget, type Page, queryPrefix, type SizedPageRequest } from './pagination';
import type { TableKey } from './table-schema';

export type AnalyticsType = 'ROUTE_ANALYTICS' | 'ATTEMPT_ANALYTICS';
export type AnalyticsRow = Record<string, string | number | null>;

/**
 * A finished route's analytics live in the partition of its DC and DC-local service date, so an export
 * of a DC and a date range is one paginated query per date, already in order:
 *   ROUTE#<route id>                  the route record (written last: its presence means "computed")
 *   ATTEMPT#<route id>#<seq 6>        the attempt records, in attempt order
 */
const partition = (accountId: string, dcId: string, localDate: string) =>
  `ANALYTICS#${accountId}/${dcId}/${localDate}`;
const PREFIX: Record<AnalyticsType, string> = { ROUTE_ANALYTICS: 'ROUTE#', ATTEMPT_ANALYTICS: 'ATTEMPT#' };

export interface AnalyticsPlace {
  accountId: string;
  dcId: string;
  localDate: string;
  routeId: string;
}

export const analyticsKeys = {
  route: (place: AnalyticsPlace): TableKey => ({
    pk: partition(place.accountId, place.dcId, place.localDate),
    sk: `${PREFIX.ROUTE_ANALYTICS}${place.routeId}`,
  }),
  attempt: (place: AnalyticsPlace, sequence: number): TableKey => ({
    pk: partition(place.accountId, place.dcId, place.localDate),
    sk: `${PREFIX.ATTEMPT_ANALYTICS}${place.routeId}#${String(sequence).padStart(6, '0')}`,
  }),
};

/** A record of either type: its route, and its row as exports write it. */
interface AnalyticsRecord {
  routeId: string;
  row: AnalyticsRow;
}

const recordCodec = codec<AnalyticsRecord>({ routeId: {}, row: {} });

export function analyticsItem(key: TableKey, type: AnalyticsType, routeId: string, row: AnalyticsRow) {
  return { ...key, entity: type, ...recordCodec.toItem({ routeId, row }) };
}

/** One route's records of a type (its attempts in order), from its DC-date partition. */
export async function listRouteAnalytics(
  place: AnalyticsPlace,
  type: AnalyticsType,
): Promise<AnalyticsRow[]> {
  return (await queryRouteAnalytics(place, type)).items;
}

/** One page of a route's attempt records, in attempt order, cut to the byte budget. */
export const listAttemptAnalytics = (place: AnalyticsPlace, page: SizedPageRequest<AnalyticsRow>) =>
  queryRouteAnalytics(place, 'ATTEMPT_ANALYTICS', page);

async function queryRouteAnalytics(
  place: AnalyticsPlace,
  type: AnalyticsType,
  page?: SizedPageRequest<AnalyticsRow>,
): Promise<Page<AnalyticsRow>> {
  const pk = partition(place.accountId, place.dcId, place.localDate);
  const prefix =
    type === 'ROUTE_ANALYTICS'
      ? analyticsKeys.route(place).sk
      : `${PREFIX.ATTEMPT_ANALYTICS}${place.routeId}#`;
  const { items, nextToken } = await queryPrefix(pk, prefix, page);
  // Ids may contain '#': the prefix of route 'r1' also matches route 'r1#2', so the route id decides
  // (a page may then hold fewer than `limit` records).
  const ofRoute = items.filter(
    (item) => item.entity === type && recordCodec.fromItem(item).routeId === place.routeId,
  );
  const rowOf = (item: Item) => recordCodec.fromItem(item).row;
  const read = { items: ofRoute, nextToken };
  const kept = page
    ? cutToBudget(
        read,
        (item) => page.bytesOf(rowOf(item)),
        (item) => ({ pk: item.pk, sk: item.sk }),
      )
    : read;
  return { items: kept.items.map(rowOf), nextToken: kept.nextToken };
}

/** The ids of the routes of a DC's date whose route record is stored: one query for the whole date. */
export async function routesWithAnalytics(
  accountId: string,
  dcId: string,
  localDate: string,
): Promise<Set<string>> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': partition(accountId, dcId, localDate),
      ':prefix': PREFIX.ROUTE_ANALYTICS,
    },
    ProjectionExpression: 'route_id',
    ConsistentRead: true,
  });
  return new Set(items.map((item) => recordCodec.fromItem(item).routeId));
}

/**
 * Every record of a type of a DC's date that belongs to one of `routeIds`, page by page (an export streams
 * them; none is held for long). Route records are ordered by route id; attempts by route id, then attempt
 * order. The next page is read while the caller writes this one's rows, so an export takes about as long as
 * its reads, not its reads plus its writing.
 */
export async function* analyticsOfDate(
  accountId: string,
  dcId: string,
  localDate: string,
  type: AnalyticsType,
  routeIds: ReadonlySet<string>,
): AsyncGenerator<AnalyticsRow[]> {
  const readPage = (startKey: Record<string, unknown> | undefined) =>
    queryItems(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partition(accountId, dcId, localDate), ':prefix': PREFIX[type] },
        ExclusiveStartKey: startKey,
        // The export may have just computed a route's records: read them back consistently.
        ConsistentRead: true,
      },
      1000,
    );
  let next: ReturnType<typeof readPage> | undefined = readPage(undefined);
  try {
    while (next) {
      const page: Awaited<ReturnType<typeof readPage>> = await next;
      next = page.lastKey ? readPage(page.lastKey) : undefined;
      const rows = page.items
        .map(recordCodec.fromItem)
        .filter((record) => routeIds.has(record.routeId))
        .map((record) => record.row);
      if (rows.length > 0) yield rows;
    }
  } finally {
    // A caller that stops early (its upload failed) leaves the read ahead unawaited: its failure is not news.
    next?.catch(() => undefined);
  }
}

/** Deletes a route's analytics records (the route is being deleted). */
export async function deleteRouteAnalytics(place: AnalyticsPlace): Promise<void> {
  const keysOf = async (prefix: string) => {
    const { items } = await queryItems({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': analyticsKeys.route(place).pk, ':prefix': prefix },
      ProjectionExpression: 'pk, sk, route_id',
      ConsistentRead: true,
    });
    return items
      .filter((item) => recordCodec.fromItem(item).routeId === place.routeId)
      .map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
  };
  // The route record first: without it, a half-deleted route no longer counts as computed.
  await deleteAll(await keysOf(analyticsKeys.route(place).sk));
  await deleteAll(await keysOf(`${PREFIX.ATTEMPT_ANALYTICS}${place.routeId}#`));
}
