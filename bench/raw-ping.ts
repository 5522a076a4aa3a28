import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from '../functions/data/table-schema';

/**
 * The raw UpdateItem of a ping that the driver_location bench measures the handler against: the driver's
 * latest location, on condition that the item still holds the token and the ping is newer (the new item
 * returned, the old one on a failed condition), as the handler writes it.
 */
export function latestLocationUpdate(
  tableName: string,
  driverKey: TableKey,
  ping: { timestamp: number },
  loginToken: string,
): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: driverKey,
    UpdateExpression: 'SET #location = :location',
    ConditionExpression:
      'login_token = :token AND (attribute_not_exists(#location) OR #location.#timestamp < :timestamp)',
    ExpressionAttributeNames: { '#location': 'location', '#timestamp': 'timestamp' },
    ExpressionAttributeValues: { ':location': ping, ':timestamp': ping.timestamp, ':token': loginToken },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
