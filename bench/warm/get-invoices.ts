import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext, type WarmPaths } from './lambda-context';

/**
 * get_invoices (bench/route-import.ts): `routes/invoices` invoked, page after page of the largest limit, with the
 * events API Gateway sends it for the imported route, against the reads it must make: a consistent, paginated
 * Query of the route's invoice and item rows, shard after shard, as the service reads them.
 */

export interface GetInvoicesInput {
  /** The first page's event; the next pages add `next_token`. */
  event: APIGatewayProxyEvent;
  limit: number;
  invoices: number;
  items: number;
  table: string;
  /** The route's partitions holding its rows (its shards), in the order the service reads them. */
  partitions: string[];
  /** The sort-key prefix of the invoice and item rows. */
  prefix: string;
}

interface InvoicesPage {
  data?: { invoices?: { id: string; items?: unknown[] }[]; next_token?: string };
}

export const warmPaths: WarmPaths<GetInvoicesInput> = async (handler, input) => {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  let invocation = 0;
  const page = async (nextToken: string | undefined): Promise<InvoicesPage['data']> => {
    invocation++;
    const event = {
      ...input.event,
      queryStringParameters: { limit: String(input.limit), ...(nextToken ? { next_token: nextToken } : {}) },
      requestContext: { ...input.event.requestContext, requestId: `bench-request-${invocation}` },
    };
    const response = (await handler(event, lambdaContext(invocation, 29_000))) as APIGatewayProxyResult;
    const data = (JSON.parse(response?.body ?? '{}') as InvoicesPage).data;
    if (response?.statusCode !== 200 || !data?.invoices)
      throw new Error(
        `the handler answered ${response?.statusCode}: ${String(response?.body).slice(0, 300)}`,
      );
    return data;
  };
  return {
    // Every page, as a client reads the route: an invoice cut by a page boundary shows on both pages.
    handler: async () => {
      const invoiceIds = new Set<string>();
      let items = 0;
      let nextToken: string | undefined;
      do {
        const data = await page(nextToken);
        for (const invoice of data?.invoices ?? []) {
          invoiceIds.add(invoice.id);
          items += invoice.items?.length ?? 0;
        }
        nextToken = data?.next_token;
      } while (nextToken);
      if (invoiceIds.size !== input.invoices || items !== input.items)
        throw new Error(`GET invoices returned ${invoiceIds.size} invoices with ${items} items`);
    },
    raw: async () => {
      let rows = 0;
      for (const pk of input.partitions) {
        const pages = paginateQuery(
          { client: raw },
          {
            TableName: input.table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': pk, ':prefix': input.prefix },
            ConsistentRead: true,
          },
        );
        for await (const { Items = [] } of pages) rows += Items.length;
      }
      if (rows !== input.invoices + input.items) throw new Error(`the raw Query returned ${rows} rows`);
    },
  };
};
