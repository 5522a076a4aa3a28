import { type Dc, type DcSettingFields, getDc, setDcSettings } from '../data/accounts';
import {
  type Applied,
  appliedRequirements,
  NO_REQUIREMENTS,
  type Requirements,
} from '../models/delivery-requirements';
import { NotFoundError } from '../shared/errors';
import { quote } from '../shared/quote';
import { type ArrivalSettings, DEFAULT_ARRIVAL_SETTINGS } from './arrival-detection';

/** A DC's settings of arrival detection and approach (docs/api.md, Arrivals and departures), defaults filled in. */
export interface DcSettings extends ArrivalSettings {
  /** Whether arrivals and departures are detected from the pings at all (default on). */
  arrivalDetection: boolean;
  /** WAYPOINT_APPROACHING goes out once a stop's ETA is this close. */
  approachingMinutes: number;
  /** The default delivery rules of the DC's stops (models/delivery-requirements.ts). */
  deliveryRequirements: Applied;
}

/** A change of the settings: the delivery rules given replace the DC's, a rule left out is off. */
export type DcSettingsChange = Partial<Omit<DcSettings, 'deliveryRequirements'>> & {
  deliveryRequirements?: Requirements;
};

export const DEFAULT_APPROACHING_MINUTES = 10;

/** The DC's settings: each its stored value, else its default. */
export function settingsOf(dc: Dc | undefined): DcSettings {
  return {
    arrivalDetection: dc?.arrivalDetection ?? true,
    radiusMeters: dc?.arrivalRadiusMeters ?? DEFAULT_ARRIVAL_SETTINGS.radiusMeters,
    dwellSeconds: dc?.arrivalDwellSeconds ?? DEFAULT_ARRIVAL_SETTINGS.dwellSeconds,
    marginMeters: dc?.departureMarginMeters ?? DEFAULT_ARRIVAL_SETTINGS.marginMeters,
    approachingMinutes: dc?.approachingMinutes ?? DEFAULT_APPROACHING_MINUTES,
    deliveryRequirements: dc?.deliveryRequirements ?? NO_REQUIREMENTS,
  };
}

const dcNotFound = (dcId: string) => new NotFoundError(`dc ${quote(dcId)} not found`);

/** The DC's settings; 404 when the account has no such DC. */
export async function dcSettings(ref: { accountId: string; dcId: string }): Promise<DcSettings> {
  const dc = await getDc(ref.accountId, ref.dcId);
  if (!dc) throw dcNotFound(ref.dcId);
  return settingsOf(dc);
}

/** Changes the settings given, keeps the others; answers them all. */
export async function updateDcSettings(
  ref: { accountId: string; dcId: string },
  change: DcSettingsChange,
): Promise<DcSettings> {
  const fields: DcSettingFields = {
    arrivalDetection: change.arrivalDetection,
    arrivalRadiusMeters: change.radiusMeters,
    arrivalDwellSeconds: change.dwellSeconds,
    departureMarginMeters: change.marginMeters,
    approachingMinutes: change.approachingMinutes,
    deliveryRequirements:
      change.deliveryRequirements && appliedRequirements(undefined, change.deliveryRequirements),
  };
  const dc = await setDcSettings(ref.accountId, ref.dcId, fields);
  if (!dc) throw dcNotFound(ref.dcId);
  return settingsOf(dc);
}
