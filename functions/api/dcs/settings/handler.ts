import { dcSettings } from '../../../domain/dc-settings';
import { httpHandler } from '../../http-handler';
import { dcRef } from '../../refs';
import { dcSettingsView } from '../views';
import { getDcSettings as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  settings: dcSettingsView(await dcSettings(dcRef(caller, params))),
}));
