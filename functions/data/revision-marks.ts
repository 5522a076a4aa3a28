import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import { routeKeys, type TransactItem } from './routes';

/**
 * The latest revision applied to a route (or found to change nothing): a revision accepted before it is not
 * applied after it (domain/route-revision-apply.ts). One item beside the header, `REVISION`, written only
 * while the revision holds the route's lock, so its writes never race; deleted with the route's rows. Apart
 * from the header so that a revision that changes nothing leaves the header (and its version) as it was.
 */
export interface RevisionMark {
  txid: string;
  /** When the revision was accepted (its import record's createdAt, epoch ms). */
  acceptedAt: number;
}

const markKey = (accountId: string, routeId: string) => routeKeys.row(accountId, routeId, 'REVISION');

const markCodec = codec<RevisionMark>({ txid: {}, acceptedAt: {} });

export const getRevisionMark = (accountId: string, routeId: string): Promise<RevisionMark | undefined> =>
  getRecord(markKey(accountId, routeId), markCodec.fromItem);

const markItem = (accountId: string, routeId: string, mark: RevisionMark) => ({
  ...markKey(accountId, routeId),
  entity: 'REVISION_MARK',
  ...markCodec.toItem(mark),
});

/** Transaction item recording `mark` as the route's latest revision (in the commit that applies it). */
export const revisionMarkItem = (accountId: string, routeId: string, mark: RevisionMark): TransactItem => ({
  Put: { TableName: tableName(), Item: markItem(accountId, routeId, mark) },
});

/** Records `mark` as the route's latest revision on its own (a revision that changed nothing). */
export async function putRevisionMark(accountId: string, routeId: string, mark: RevisionMark): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: markItem(accountId, routeId, mark) }));
}
