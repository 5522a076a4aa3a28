import type { DcSettings } from '../../domain/dc-settings';
import { requirementsView } from '../routes/views';

/** The DcSettings resource. */
export const dcSettingsView = (settings: DcSettings) => ({
  arrival_detection: settings.arrivalDetection,
  arrival_radius_meters: settings.radiusMeters,
  arrival_dwell_seconds: settings.dwellSeconds,
  departure_margin_meters: settings.marginMeters,
  approaching_minutes: settings.approachingMinutes,
  delivery_requirements: requirementsView(settings.deliveryRequirements),
});
