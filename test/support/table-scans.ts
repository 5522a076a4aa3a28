import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName } from '../../functions/data/client';

/**
 * The items of a table whose attributes equal `where`'s (every item when it names none), read consistently
 * and page after page: a scan page stops at 1 MB. Tests read what the service wrote this way; the service
 * itself never scans.
 */
export async function scanItems(where: Record<string, unknown> = {}, table = tableName()): Promise<Item[]> {
  const names = Object.keys(where);
  const filter =
    names.length === 0
      ? {}
      : {
          FilterExpression: names.map((_, i) => `#a${i} = :v${i}`).join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, where[name]])),
        };
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: startKey, ...filter }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
