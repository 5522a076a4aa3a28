import { describe, expect, it } from 'vitest';
import type { WaypointRow } from '../../functions/data/route-rows';
import { attemptAnalytics } from '../../functions/domain/analytics';
import { DESIGN_ATTEMPT_COLUMNS } from '../support/analytics-columns';
import { attempt, CHICAGO_IDENTITY, chicagoFacts, TOKYO_IDENTITY, tokyoFacts } from '../support/route-facts';

// Every expected number below is worked out by hand: test/support/route-facts.ts says how.

/** The columns of an attempt without proofs, PIN, age check or recorded arrival. */
const NO_PROOF_PIN_AGE_CHECK_OR_ARRIVAL = {
  proof_count: 0,
  signer_name: null,
  pin_verified: 'FALSE',
  age_check_result: null,
  arrival_epoch_ms: null,
  dwell_seconds: null,
  arrival_timeliness: null,
};

describe('attemptAnalytics', () => {
  /** wp-3's windows, sorted by start. */
  const WINDOWS_WP3 =
    '2025-06-02T09:00:00-05:00/2025-06-02T09:30:00-05:00; 2025-06-02T10:00:00-05:00/2025-06-02T11:00:00-05:00';

  it('computes every column of every attempt, in attempt order', () => {
    const rows = attemptAnalytics(chicagoFacts());
    for (const row of rows) expect(Object.keys(row)).toEqual(DESIGN_ATTEMPT_COLUMNS);
    expect(rows).toStrictEqual([
      {
        ...CHICAGO_IDENTITY,
        waypoint_id: 'wp-1',
        customer_id: 'c-1',
        customer_name: 'Ace Grocery',
        attempt_id: 'at-1',
        attempt_number: 1,
        visit_start_timestamp: '2025-06-02T08:10:00-05:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 13, 10),
        visit_meters_from_customer: 11, // 0.0001° = 11.12 m
        aggregate_visit_status: 'SUCCESSFUL',
        waypoint_time_windows: '',
        visit_timeliness: 'NO_WINDOW',
        items_successful: 2,
        items_failed: 0,
        proof_count: 2,
        signer_name: 'Zoë Ålund',
        pin_verified: 'TRUE',
        age_check_result: 'OLD_ENOUGH',
        arrival_epoch_ms: Date.UTC(2025, 5, 2, 13, 7),
        dwell_seconds: 420,
        arrival_timeliness: 'NO_WINDOW',
      },
      {
        ...CHICAGO_IDENTITY,
        waypoint_id: 'wp-2',
        customer_id: 'c-2',
        customer_name: 'Bay Market',
        attempt_id: 'at-2',
        attempt_number: 1,
        visit_start_timestamp: '2025-06-02T08:50:00-05:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 13, 50),
        visit_meters_from_customer: null,
        aggregate_visit_status: 'MIXED',
        waypoint_time_windows: '2025-06-02T09:00:00-05:00/2025-06-02T10:00:00-05:00',
        visit_timeliness: 'EARLY',
        items_successful: 1,
        items_failed: 2,
        proof_count: 0,
        signer_name: null,
        pin_verified: 'FALSE',
        age_check_result: null,
        arrival_epoch_ms: Date.UTC(2025, 5, 2, 13, 48),
        dwell_seconds: 450,
        arrival_timeliness: 'EARLY',
      },
      {
        ...CHICAGO_IDENTITY,
        waypoint_id: 'wp-3',
        customer_id: 'c-3',
        customer_name: 'Cove Deli',
        attempt_id: 'at-3',
        attempt_number: 1,
        visit_start_timestamp: '2025-06-02T09:40:00-05:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 14, 40),
        visit_meters_from_customer: 0,
        aggregate_visit_status: 'VISIT_LATER',
        waypoint_time_windows: WINDOWS_WP3,
        visit_timeliness: 'LATE',
        items_successful: 0,
        items_failed: 0,
        proof_count: 0,
        signer_name: null,
        pin_verified: 'FALSE',
        age_check_result: null,
        arrival_epoch_ms: Date.UTC(2025, 5, 2, 14, 38),
        dwell_seconds: 420,
        arrival_timeliness: 'LATE',
      },
      {
        ...CHICAGO_IDENTITY,
        waypoint_id: 'wp-3',
        customer_id: 'c-3',
        customer_name: 'Cove Deli',
        attempt_id: 'at-4',
        attempt_number: 2,
        visit_start_timestamp: '2025-06-02T10:05:00-05:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 15, 5),
        visit_meters_from_customer: 56, // 0.0005° = 55.60 m
        aggregate_visit_status: 'SUCCESSFUL',
        waypoint_time_windows: WINDOWS_WP3,
        visit_timeliness: 'ON_TIME',
        items_successful: 1,
        items_failed: 0,
        proof_count: 0,
        signer_name: null,
        pin_verified: 'FALSE',
        age_check_result: null,
        arrival_epoch_ms: Date.UTC(2025, 5, 2, 15, 2),
        dwell_seconds: null,
        arrival_timeliness: 'ON_TIME',
      },
    ]);
  });

  it('computes every column without driver, customer fields or same-day windows', () => {
    expect(attemptAnalytics(tokyoFacts())).toStrictEqual([
      {
        ...TOKYO_IDENTITY,
        waypoint_id: 't-1',
        customer_id: 'k-1',
        customer_name: 'Kiosk One',
        attempt_id: 'ta-1',
        attempt_number: 1,
        visit_start_timestamp: '2025-06-02T09:15:30+09:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 0, 15, 30),
        visit_meters_from_customer: 0,
        aggregate_visit_status: 'FAILED',
        waypoint_time_windows: '',
        visit_timeliness: 'NO_WINDOW',
        items_successful: 0,
        items_failed: 2,
        ...NO_PROOF_PIN_AGE_CHECK_OR_ARRIVAL,
      },
      {
        ...TOKYO_IDENTITY,
        waypoint_id: 't-2',
        customer_id: null,
        customer_name: null,
        attempt_id: 'ta-2',
        attempt_number: 1,
        visit_start_timestamp: '2025-06-02T09:40:00+09:00',
        visit_start_epoch_ms: Date.UTC(2025, 5, 2, 0, 40),
        visit_meters_from_customer: null,
        aggregate_visit_status: 'VISIT_LATER',
        waypoint_time_windows: '2025-06-02T22:00:00+09:00/2025-06-03T02:00:00+09:00',
        visit_timeliness: 'EARLY',
        items_successful: 1,
        items_failed: 0,
        ...NO_PROOF_PIN_AGE_CHECK_OR_ARRIVAL,
      },
    ]);
  });

  it('is empty for a route without attempts', () => {
    const facts = chicagoFacts();
    facts.attempts = [];
    expect(attemptAnalytics(facts)).toEqual([]);
  });

  it('writes each window as an ISO 8601 interval whose ends carry their own offsets', () => {
    const facts = chicagoFacts();
    const wp1 = facts.waypoints[0] as WaypointRow;
    wp1.timeWindows = [
      // 00:30 CDT -> 03:00 CST on the fall-back day: the offset changes inside the window.
      { start: Date.UTC(2025, 10, 2, 5, 30), end: Date.UTC(2025, 10, 2, 9, 0) },
      // 23:45 CDT -> 00:30 CDT the next day.
      { start: Date.UTC(2025, 5, 3, 4, 45), end: Date.UTC(2025, 5, 3, 5, 30) },
    ];
    const [row] = attemptAnalytics(facts);
    expect(row?.waypoint_time_windows).toBe(
      [
        '2025-06-02T23:45:00-05:00/2025-06-03T00:30:00-05:00',
        '2025-11-02T00:30:00-05:00/2025-11-02T03:00:00-06:00',
      ].join('; '),
    );
  });

  it('classifies timeliness at the window edges: start inclusive, end exclusive', () => {
    const facts = chicagoFacts();
    const open = Date.UTC(2025, 5, 2, 14, 0);
    const close = Date.UTC(2025, 5, 2, 15, 0);
    facts.attempts = [open - 1, open, close - 1, close].map((at, index) =>
      attempt(`e-${index}`, 'wp-2', at, 'VISIT_LATER'),
    );
    expect(attemptAnalytics(facts).map((row) => row.visit_timeliness)).toEqual([
      'EARLY',
      'ON_TIME',
      'ON_TIME',
      'LATE',
    ]);
    expect(attemptAnalytics(facts).map((row) => row.attempt_number)).toEqual([1, 2, 3, 4]);
  });
});
