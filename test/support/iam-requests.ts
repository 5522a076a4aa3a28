import type { AuthorizationCheck, RequestScope } from '../../local/iam/actions';

/** The scope and resources the local IAM unit tests (test/unit/local-iam*.test.ts) ask about. */
export const scope: RequestScope = { region: 'us-east-1', accountId: '000000000000' };
export const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/routes';
export const other = 'arn:aws:dynamodb:us-east-1:000000000000:table/other';
export const stream = `${table}/stream/2026-01-01T00:00:00.000`;
export const queue = 'arn:aws:sqs:us-east-1:000000000000:imports';
export const queueUrl = 'http://127.0.0.1:4566/000000000000/imports';
export const object = 'arn:aws:s3:::exports/analytics/a b.csv';
export const bucket = 'arn:aws:s3:::exports';

export const check = (action: string, resource: string): AuthorizationCheck => ({ action, resource });
