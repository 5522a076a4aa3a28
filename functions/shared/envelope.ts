import type { APIGatewayProxyResult } from 'aws-lambda';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function successResponse(statusCode: number, data: unknown): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify({ status: 'success', data }) };
}

export function errorResponse(
  statusCode: number,
  code: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ status: 'error', data: { code, message } }),
  };
}
