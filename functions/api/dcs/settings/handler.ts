import { dcSettings } from '../../../domain/dc-settings';
import { httpHandler } from '../../http-handler';
import { dcSettingsView } from '../views';
import { getDcSettings as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  settings: dcSettingsView(await dcSettings({ accountId: caller.accountId, dcId: params.dc_id })),
}));
