import { updateDcSettings } from '../../../domain/dc-settings';
import { httpHandler } from '../../http-handler';
import { dcRef } from '../../refs';
import { dcSettingsView } from '../views';
import { updateDcSettings as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const settings = await updateDcSettings(dcRef(caller, params), {
    arrivalDetection: body.arrival_detection,
    radiusMeters: body.arrival_radius_meters,
    dwellSeconds: body.arrival_dwell_seconds,
    marginMeters: body.departure_margin_meters,
    approachingMinutes: body.approaching_minutes,
    deliveryRequirements: body.delivery_requirements,
  });
  return { settings: dcSettingsView(settings) };
});
