import { DcParams } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

export const Dc = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    time_zone: z.withMeta(z.string(), { description: 'IANA time zone' }),
  }),
  { id: 'Dc' },
);

/** The DC rows: an API key's and read-only. */
export const dcsEndpoint = endpointGroup({ tag: 'DCs' });

const meters = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));

/** The settings' rules: a radius GPS error (±25 m) cannot cross, a dwell a pass-by cannot reach. */
const SETTING_FIELDS = {
  arrival_detection: z.withMeta(z.boolean(), {
    description: 'whether arrivals and departures are detected from the driver app’s pings (default true)',
  }),
  arrival_radius_meters: z.withMeta(meters(25, 1000), {
    description: 'a stop is arrived at once the driver stays this close to it (default 100)',
  }),
  arrival_dwell_seconds: z.withMeta(z.int().check(z.minimum(10), z.maximum(1800)), {
    description: 'for this long (default 60)',
  }),
  departure_margin_meters: z.withMeta(meters(10, 1000), {
    description: 'and left once farther than the radius plus this (default 50)',
  }),
  approaching_minutes: z.withMeta(z.int().check(z.minimum(1), z.maximum(120)), {
    description: 'WAYPOINT_APPROACHING goes out once a stop’s ETA is this close (default 10)',
  }),
};

export const DcSettings = z.withMeta(z.object(SETTING_FIELDS), {
  id: 'DcSettings',
  description:
    'arrival detection and approach settings of the DC, defaults filled in (docs/api.md, Arrivals and departures)',
});

export const UpdateDcSettingsBody = z.withMeta(
  z
    .object({
      arrival_detection: z.optional(SETTING_FIELDS.arrival_detection),
      arrival_radius_meters: z.optional(SETTING_FIELDS.arrival_radius_meters),
      arrival_dwell_seconds: z.optional(SETTING_FIELDS.arrival_dwell_seconds),
      departure_margin_meters: z.optional(SETTING_FIELDS.departure_margin_meters),
      approaching_minutes: z.optional(SETTING_FIELDS.approaching_minutes),
    })
    .check(
      z.refine((body) => Object.values(body).some((value) => value !== undefined), {
        path: ['arrival_radius_meters'],
        message: 'give at least one setting',
      }),
    ),
  { id: 'UpdateDcSettingsRequest', description: 'the settings to change; the others keep their values' },
);

export const DcSettingsData = z.object({ settings: DcSettings });

/** The settings of one DC: its params. */
export const dcSettingsEndpoint = endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
});
export const dcSettingsChangeEndpoint = endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
  access: { table: 'readWrite' },
});
