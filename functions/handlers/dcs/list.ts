import { listDcs } from '../../data/accounts';
import { listDcs as endpoint } from '../../endpoints/dcs';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ caller }) => {
  const dcs = await listDcs(caller.accountId);
  return { dcs: dcs.map((dc) => ({ id: dc.dcId, name: dc.name, time_zone: dc.timeZone })) };
});
