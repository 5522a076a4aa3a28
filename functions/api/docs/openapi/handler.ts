import type { APIGatewayProxyResult } from 'aws-lambda';
import { observed } from '../../../shared/observability';
import { endpoints } from '../../index';
import { buildOpenApiDocument } from '../../openapi';
import { getOpenApiDocument } from './endpoint';

// Built once per cold start: the document only changes with a deployment.
let body: string | undefined;

/** Serves the OpenAPI document as it is (no envelope: tools read it directly). */
async function serve(): Promise<APIGatewayProxyResult> {
  body ??= JSON.stringify(buildOpenApiDocument(endpoints));
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body };
}

export const handler = Object.assign(observed(serve), { endpoint: getOpenApiDocument });
