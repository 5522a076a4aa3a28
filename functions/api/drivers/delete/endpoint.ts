import { EmptyData } from '../../../models/common';
import { driversEndpoint } from '../schemas';

export const deleteDriver = driversEndpoint('DELETE /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'deleteDriver',
  module: import.meta.url,
  summary: 'Delete a driver (refused while it has active routes); its login token stops working at once',
  access: { table: 'readWrite' },
  responses: { 200: { description: 'deleted', data: EmptyData } },
  errorCodes: [1003, 2001],
});
