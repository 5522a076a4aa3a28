import { describe, expect, it } from 'vitest';
import { inQuietHours } from '../../functions/domain/notifications';

/** Quiet hours (docs/api.md, Customer notifications): `HH:MM` in the DC's zone, past midnight when end < start. */
describe('inQuietHours', () => {
  // 2026-11-29 22:30 UTC is 16:30 in Chicago (CST, UTC-6).
  const at = Date.UTC(2026, 10, 29, 22, 30);

  it('is false without quiet hours', () => {
    expect(inQuietHours(at, 'UTC', undefined)).toBe(false);
  });

  it('reads the time in the DC’s zone, start included and end not', () => {
    expect(inQuietHours(at, 'America/Chicago', { start: '16:30', end: '17:00' })).toBe(true);
    expect(inQuietHours(at, 'America/Chicago', { start: '16:00', end: '16:30' })).toBe(false);
    expect(inQuietHours(at, 'UTC', { start: '16:00', end: '17:00' })).toBe(false);
    expect(inQuietHours(at, 'UTC', { start: '22:00', end: '23:00' })).toBe(true);
  });

  it('runs past midnight when end comes first', () => {
    const night = { start: '21:30', end: '07:00' };
    expect(inQuietHours(Date.UTC(2026, 10, 29, 23, 0), 'UTC', night)).toBe(true);
    expect(inQuietHours(Date.UTC(2026, 10, 29, 3, 0), 'UTC', night)).toBe(true);
    expect(inQuietHours(Date.UTC(2026, 10, 29, 7, 0), 'UTC', night)).toBe(false);
    expect(inQuietHours(Date.UTC(2026, 10, 29, 12, 0), 'UTC', night)).toBe(false);
  });
});
