import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3';
import { lifecycleExpiry } from '../../functions/shared/resources';
import { LOCAL_CREDENTIALS } from '../services';
import type { BucketSpec, Deployment, TableSpec } from './model';
import { LOCAL_REGION } from './model';

/**
 * What AWS does to a deployment's data as days pass, and DynamoDB Local and fauxqs do not: S3's lifecycle
 * rules expire objects, DynamoDB's TTL deletes items. Applied here as of a moment given (`at`, epoch ms): a
 * test moves it days ahead to see what the service makes of data past its retention, and `npm start`
 * applies it at the present time, on start and every hour.
 *
 * Everything due by `at` goes at once. AWS is later and less regular about both: S3 removes an object
 * some time after its expiry (which lifecycleExpiry computes, as S3 does, from the object's creation
 * time), and DynamoDB an item some time within days after its TTL. The service must already treat both as
 * gone from their expiry on (its reads filter expired items out): applying them at once is the strict end.
 */
export interface Expired {
  /** Objects deleted, per bucket. */
  objects: Record<string, number>;
  /** Items deleted, per table. */
  items: Record<string, number>;
}

export async function expireAsOf(deployment: Deployment, endpoint: string, at: number): Promise<Expired> {
  const config = { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const dynamodb = new DynamoDBClient(config);
  try {
    const expired: Expired = { objects: {}, items: {} };
    for (const bucket of deployment.buckets)
      expired.objects[bucket.name] = await expireObjects(s3, bucket, at);
    for (const table of deployment.tables)
      if (table.ttlAttribute) expired.items[table.name] = await expireItems(dynamodb, table, at);
    return expired;
  } finally {
    s3.destroy();
    dynamodb.destroy();
  }
}

/** When the bucket's rules expire an object (the earliest of the rules whose prefix it has), if any does. */
export function objectExpiry(
  rules: BucketSpec['expirationRules'],
  key: string,
  createdAt: number,
): number | undefined {
  const expiries = rules
    .filter((rule) => key.startsWith(rule.prefix))
    .map((rule) => lifecycleExpiry(createdAt, rule.expireAfterDays));
  return expiries.length > 0 ? Math.min(...expiries) : undefined;
}

async function expireObjects(s3: S3Client, bucket: BucketSpec, at: number): Promise<number> {
  if (bucket.expirationRules.length === 0) return 0;
  let deleted = 0;
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket.name })) {
    const due = (page.Contents ?? []).flatMap(({ Key, LastModified }) => {
      if (Key === undefined || LastModified === undefined) return [];
      const expiry = objectExpiry(bucket.expirationRules, Key, LastModified.getTime());
      return expiry !== undefined && expiry <= at ? [{ Key }] : [];
    });
    if (due.length === 0) continue;
    const { Errors = [] } = await s3.send(
      new DeleteObjectsCommand({ Bucket: bucket.name, Delete: { Objects: due, Quiet: true } }),
    );
    if (Errors.length > 0)
      throw new Error(`expired objects of ${bucket.name} not deleted: ${JSON.stringify(Errors.slice(0, 3))}`);
    deleted += due.length;
  }
  return deleted;
}

/**
 * Deletes the items whose TTL attribute (epoch seconds, a number) is at or before `at`, as DynamoDB's TTL:
 * each on condition that it still is (a write may have moved it on since the scan read it).
 */
async function expireItems(dynamodb: DynamoDBClient, table: TableSpec, at: number): Promise<number> {
  const keyNames = [table.partitionKey.name, ...(table.sortKey ? [table.sortKey.name] : [])];
  const names = {
    '#ttl': table.ttlAttribute as string,
    ...Object.fromEntries(keyNames.map((name, index) => [`#k${index}`, name])),
  };
  const values = { ':at': { N: String(Math.floor(at / 1000)) } };
  let deleted = 0;
  const pages = paginateScan(
    { client: dynamodb },
    {
      TableName: table.name,
      FilterExpression: '#ttl <= :at',
      ProjectionExpression: keyNames.map((_, index) => `#k${index}`).join(', '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  );
  for await (const page of pages) {
    for (const key of page.Items ?? []) {
      try {
        await dynamodb.send(
          new DeleteItemCommand({
            TableName: table.name,
            Key: key,
            ConditionExpression: '#ttl <= :at',
            ExpressionAttributeNames: { '#ttl': names['#ttl'] },
            ExpressionAttributeValues: values,
          }),
        );
        deleted++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }
  return deleted;
}
