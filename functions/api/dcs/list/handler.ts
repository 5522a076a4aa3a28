import { listDcs } from '../../../domain/dcs';
import { httpHandler } from '../../http-handler';
import { listDcs as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ caller }) => {
  const dcs = await listDcs(caller.accountId);
  return { dcs: dcs.map((dc) => ({ id: dc.dcId, name: dc.name, time_zone: dc.timeZone })) };
});
