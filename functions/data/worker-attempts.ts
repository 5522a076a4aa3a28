import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client';
import type { TableKey } from './table-schema';

/**
 * Counts one more run of a queued job on its own record (an import or a download request) while it is
 * still PENDING, and returns the run's number; undefined when the job has already ended. Workers decide
 * their last attempt from this count, not from SQS's ApproximateReceiveCount: receives the event source
 * spends while the function is throttled raise that count without running anything.
 */
export async function countWorkerAttempt(key: TableKey): Promise<number | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD worker_attempts :one',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':pending': 'PENDING' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.worker_attempts);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
