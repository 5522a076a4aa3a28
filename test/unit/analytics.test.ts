import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../functions/data/attempts';
import { attemptAnalytics, type RouteFacts, routeAnalytics } from '../../functions/domain/analytics';
import { ATTEMPT_ANALYSIS_COLUMNS, ROUTE_ANALYSIS_COLUMNS } from '../../functions/domain/analytics-columns';
import { DESIGN_ATTEMPT_COLUMNS, DESIGN_ROUTE_COLUMNS } from '../support/analytics-columns';
import {
  attempt,
  CHI_LNG,
  CHICAGO_IDENTITY,
  chicagoFacts,
  invoice,
  TOKYO_IDENTITY,
  tokyoFacts,
  waypoint,
} from '../support/route-facts';

// Every expected number below is worked out by hand: test/support/route-facts.ts says how.

describe('column definitions', () => {
  it('list the route analytics columns of DESIGN §6 in order', () => {
    expect(Object.keys(ROUTE_ANALYSIS_COLUMNS)).toEqual(DESIGN_ROUTE_COLUMNS);
  });

  it('list the attempt analytics columns of DESIGN §6 in order', () => {
    expect(Object.keys(ATTEMPT_ANALYSIS_COLUMNS)).toEqual(DESIGN_ATTEMPT_COLUMNS);
  });

  it('give every column a distinct human name and a one-sentence description', () => {
    for (const columns of [ROUTE_ANALYSIS_COLUMNS, ATTEMPT_ANALYSIS_COLUMNS]) {
      const definitions = Object.values(columns);
      for (const { column_name, column_description } of definitions) {
        expect(column_name).toMatch(/^[A-Z][A-Za-z ()]+$/);
        expect(column_description).toMatch(/^[A-Z0-9'"].{20,}\.$/);
      }
      expect(new Set(definitions.map((definition) => definition.column_name)).size).toBe(definitions.length);
    }
    expect(ROUTE_ANALYSIS_COLUMNS.dc_id?.column_name).toBe('DC ID');
    expect(ROUTE_ANALYSIS_COLUMNS.planned_route_start_date?.column_name).toBe('Planned route start date');
    expect(ROUTE_ANALYSIS_COLUMNS.planned_driving_meters?.column_description).toMatch(/meters/);
    expect(ROUTE_ANALYSIS_COLUMNS.planned_journey_seconds?.column_description).toMatch(/seconds/);
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(ROUTE_ANALYSIS_COLUMNS)).toBe(true);
    expect(Object.isFrozen(ATTEMPT_ANALYSIS_COLUMNS)).toBe(true);
    expect(Object.isFrozen(ROUTE_ANALYSIS_COLUMNS.dc_id)).toBe(true);
  });
});

describe('routeAnalytics', () => {
  /** The analytics of the Chicago route planned to start, started and finalized at other instants. */
  const chicagoRouteTimed = (
    times: Pick<RouteFacts['route'], 'startTime' | 'startedTimestamp' | 'finalizedTimestamp'>,
  ) => {
    const facts = chicagoFacts();
    Object.assign(facts.route, times);
    return routeAnalytics(facts);
  };

  it('computes every column of a route whose customers were all visited', () => {
    const result = routeAnalytics(chicagoFacts());
    expect(Object.keys(result)).toEqual(DESIGN_ROUTE_COLUMNS);
    expect(result).toStrictEqual({
      ...CHICAGO_IDENTITY,
      planned_route_start_timestamp: '2025-06-02T08:00:00-05:00',
      planned_route_start_epoch_ms: Date.UTC(2025, 5, 2, 13, 0),
      imported_customers_count: 3,
      successful_customers_count: 2, // wp-1, and wp-3 on its second visit
      failed_customers_count: 0,
      try_again_later_customers_count: 0,
      mixed_status_customers_count: 1, // wp-2: B1 delivered, B2 and B3 failed
      total_visited_customers_count: 3,
      total_unvisited_customers_count: 0,
      actual_route_departure_time: '2025-06-02T07:55:00-05:00',
      actual_route_departure_epoch_ms: Date.UTC(2025, 5, 2, 12, 55),
      actual_route_arrival_time: '2025-06-02T10:30:00-05:00',
      actual_route_arrival_epoch_ms: Date.UTC(2025, 5, 2, 15, 30),
      // Legs 0.02° + 0.03° + 0.02° + 0.08° = 0.15° = 16,679.262 m; x 1.3 = 21,683.04 m.
      planned_driving_meters: 21683,
      // Trace 0.05° north then 0.03° south = 0.08° = 8,895.61 m.
      total_driven_meters: 8896,
      // At the DC's 40 km/h: 260,196 + 390,295 + 260,196 + 1,040,786 ms = 1,951.473 s.
      planned_driving_seconds: 1951,
      // wp-1 at 08:04:20.196, leaves 08:09:20.196; wp-2 at 08:15:50.491, waits for 09:00, leaves 09:10;
      // wp-3 at 09:14:20.196 (in 09:00-09:30), no service; end warehouse at 09:31:40.982 -> 5,500.982 s.
      planned_journey_seconds: 5501,
      total_journey_seconds: 9300, // 07:55 -> 10:30
      customers_with_additional_visits: 1,
      total_additional_visits: 1,
      planned_items_count: 6,
      delivered_items_count: 4, // A1, A2, B1, C1
      failed_items_count: 2, // B2, B3
      planned_cash_cents: 2049, // 1000 + 250 + 799; inv-2 is paid by check
      planned_cash_currency: 'USD',
      cash_received_cents: 1800,
      cash_received_currency: 'USD',
    });
  });

  it('computes every column of a route never started, without driver or warehouses', () => {
    const result = routeAnalytics(tokyoFacts());
    expect(Object.keys(result)).toEqual(DESIGN_ROUTE_COLUMNS);
    expect(result).toStrictEqual({
      ...TOKYO_IDENTITY,
      planned_route_start_timestamp: '2025-06-02T08:00:00+09:00',
      planned_route_start_epoch_ms: Date.UTC(2025, 5, 1, 23, 0),
      imported_customers_count: 3,
      successful_customers_count: 0,
      failed_customers_count: 1, // t-1
      try_again_later_customers_count: 1, // t-2
      mixed_status_customers_count: 0,
      total_visited_customers_count: 2,
      total_unvisited_customers_count: 1, // t-3
      actual_route_departure_time: null,
      actual_route_departure_epoch_ms: null,
      actual_route_arrival_time: '2025-06-02T18:00:00+09:00',
      actual_route_arrival_epoch_ms: Date.UTC(2025, 5, 2, 9, 0),
      // From the first customer: 0.03° + 0.02° = 5,559.754 m; x 1.3 = 7,227.68 m; no end warehouse.
      planned_driving_meters: 7228,
      total_driven_meters: 0,
      // At the default 30 km/h: 520,393 + 346,929 ms = 867.322 s.
      planned_driving_seconds: 867,
      // t-2 reached at 08:08:40, waits until 22:00; t-3 at 22:05:46.929, then 15 minutes of service:
      // 14 h + 346.929 s + 900 s = 51,646.929 s.
      planned_journey_seconds: 51647,
      total_journey_seconds: null,
      customers_with_additional_visits: 0,
      total_additional_visits: 0,
      planned_items_count: 4,
      delivered_items_count: 1, // T3, listed by the VISIT_LATER attempt
      failed_items_count: 2, // T1, T2
      planned_cash_cents: 550, // 300 + 200 + 50
      planned_cash_currency: 'USD',
      cash_received_cents: 0,
      cash_received_currency: 'USD',
    });
  });

  it('dates a route starting at 23:30 in Chicago by its local date, not the UTC one', () => {
    const facts = chicagoFacts();
    facts.route.startTime = Date.UTC(2025, 5, 3, 4, 30); // 2025-06-03 04:30 UTC = 2025-06-02 23:30 CDT
    const result = routeAnalytics(facts);
    expect(result.planned_route_start_date).toBe('2025-06-02');
    expect(result.planned_route_start_timestamp).toBe('2025-06-02T23:30:00-05:00');
  });

  it('measures the actual journey in elapsed seconds across the spring-forward DST change', () => {
    const result = chicagoRouteTimed({
      startTime: Date.UTC(2025, 2, 9, 7, 0), // 2025-03-09 01:00 CST
      startedTimestamp: Date.UTC(2025, 2, 9, 7, 30), // 01:30 CST
      finalizedTimestamp: Date.UTC(2025, 2, 9, 8, 30), // 03:30 CDT: clocks jumped 02:00 -> 03:00
    });
    expect(result.planned_route_start_timestamp).toBe('2025-03-09T01:00:00-06:00');
    expect(result.actual_route_departure_time).toBe('2025-03-09T01:30:00-06:00');
    expect(result.actual_route_arrival_time).toBe('2025-03-09T03:30:00-05:00');
    expect(result.total_journey_seconds).toBe(3600); // two hours on the wall clock, one elapsed
  });

  it('tells the two passes of the repeated fall-back hour apart by their offsets, beside the epoch ms', () => {
    const result = chicagoRouteTimed({
      startTime: Date.UTC(2025, 10, 2, 6, 0), // 2025-11-02 01:00 CDT
      startedTimestamp: Date.UTC(2025, 10, 2, 6, 30), // 01:30 CDT
      finalizedTimestamp: Date.UTC(2025, 10, 2, 7, 30), // 01:30 CST: clocks went 02:00 -> 01:00
    });
    expect(result).toMatchObject({
      planned_route_start_timestamp: '2025-11-02T01:00:00-05:00',
      planned_route_start_epoch_ms: Date.UTC(2025, 10, 2, 6, 0),
      actual_route_departure_time: '2025-11-02T01:30:00-05:00',
      actual_route_departure_epoch_ms: Date.UTC(2025, 10, 2, 6, 30),
      actual_route_arrival_time: '2025-11-02T01:30:00-06:00',
      actual_route_arrival_epoch_ms: Date.UTC(2025, 10, 2, 7, 30),
      total_journey_seconds: 3600, // the same wall clock, an hour elapsed
    });
  });

  it("puts the route's cash currency beside both cash columns: the cash items' currency", () => {
    const facts = chicagoFacts();
    // The cheque is in euros; the cash, what the driver collects and hands in, in dollars.
    facts.invoices = [
      invoice('inv-1', 'wp-1', 'CASH', [['A1', 1000]], 'USD'),
      invoice('inv-2', 'wp-2', 'CHECK', [['B1', 500]], 'EUR'),
    ];
    expect(routeAnalytics(facts)).toMatchObject({
      planned_cash_cents: 1000,
      planned_cash_currency: 'USD',
      cash_received_cents: 1800,
      cash_received_currency: 'USD',
    });
  });

  it("takes the items' currency when nothing is paid in cash, and none when there are no items", () => {
    const facts = chicagoFacts();
    facts.invoices = [invoice('inv-2', 'wp-2', 'CHECK', [['B1', 500]], 'EUR')];
    expect(routeAnalytics(facts)).toMatchObject({
      planned_cash_cents: 0,
      planned_cash_currency: 'EUR',
      cash_received_currency: 'EUR',
    });
    facts.invoices = [];
    expect(routeAnalytics(facts)).toMatchObject({
      planned_cash_cents: 0,
      planned_cash_currency: null,
      cash_received_cents: 1800,
      cash_received_currency: null,
    });
  });

  it('adds no cash of different currencies: planned cash and both currencies are empty', () => {
    const facts = chicagoFacts();
    facts.invoices = [
      invoice('inv-1', 'wp-1', 'CASH', [['A1', 1000]], 'USD'),
      invoice('inv-3', 'wp-3', 'CASH', [['C1', 799]], 'CAD'),
    ];
    expect(routeAnalytics(facts)).toMatchObject({
      planned_cash_cents: null,
      planned_cash_currency: null,
      cash_received_cents: 1800,
      cash_received_currency: null,
    });
  });

  it('plans no driving for a route without customers', () => {
    const facts = chicagoFacts();
    facts.waypoints = [];
    facts.invoices = [];
    facts.attempts = [];
    const result = routeAnalytics(facts);
    expect(result.planned_driving_meters).toBe(0);
    expect(result.planned_driving_seconds).toBe(0);
    expect(result.planned_journey_seconds).toBe(0);
    expect(result.imported_customers_count).toBe(0);
    expect(result.total_visited_customers_count).toBe(0);
  });

  it('counts a customer by its items when its latest attempt decided them all the other way', () => {
    const facts = tokyoFacts();
    facts.attempts = [
      // SUCCESSFUL, but both items listed FAILED: a failed customer.
      attempt('x-1', 't-1', Date.UTC(2025, 5, 2, 1, 0), 'SUCCESSFUL', {
        items: [
          { id: 'T1', status: 'FAILED' },
          { id: 'T2', status: 'FAILED' },
        ],
      }),
      // FAILED, but its only item listed SUCCESSFUL: a successful customer.
      attempt('x-2', 't-2', Date.UTC(2025, 5, 2, 2, 0), 'FAILED', {
        items: [{ id: 'T3', status: 'SUCCESSFUL' }],
      }),
    ];
    facts.invoices = facts.invoices.filter((row) => row.waypointId !== 't-3');
    facts.attempts.push(attempt('x-3', 't-3', Date.UTC(2025, 5, 2, 3, 0), 'SUCCESSFUL')); // no items
    const result = routeAnalytics(facts);
    expect(result.successful_customers_count).toBe(2); // t-2 by its item, t-3 by its status
    expect(result.failed_customers_count).toBe(1);
    expect(result.mixed_status_customers_count).toBe(0);
    expect(result.total_visited_customers_count).toBe(3);
    // Per attempt, the status stays the attempt's own: it decided its items one way only.
    expect(attemptAnalytics(facts).map((row) => row.aggregate_visit_status)).toEqual([
      'SUCCESSFUL',
      'FAILED',
      'SUCCESSFUL',
    ]);
  });

  it('counts a VISIT_LATER customer as try-again-later even when an earlier visit split its items', () => {
    const facts = chicagoFacts();
    facts.attempts.push(attempt('at-5', 'wp-2', Date.UTC(2025, 5, 2, 15, 10), 'VISIT_LATER'));
    const result = routeAnalytics(facts);
    expect(result.mixed_status_customers_count).toBe(0);
    expect(result.try_again_later_customers_count).toBe(1);
    expect(result.delivered_items_count).toBe(4); // VISIT_LATER leaves B1-B3 as they were
    expect(result.failed_items_count).toBe(2);
    expect(result.customers_with_additional_visits).toBe(2);
    expect(result.total_additional_visits).toBe(2);
  });

  it('partitions the visited customers and the attempts whatever the attempts say', () => {
    const statuses = fc.constantFrom<Attempt['status']>('SUCCESSFUL', 'FAILED', 'VISIT_LATER');
    const facts = fc
      .record({
        itemCounts: fc.array(fc.nat(3), { minLength: 1, maxLength: 5 }),
        visits: fc.array(
          fc.record({
            stop: fc.nat(4),
            status: statuses,
            listed: fc.array(
              fc.tuple(fc.nat(2), fc.constantFrom<'SUCCESSFUL' | 'FAILED'>('SUCCESSFUL', 'FAILED')),
              {
                maxLength: 3,
              },
            ),
          }),
          { maxLength: 12 },
        ),
      })
      .map(({ itemCounts, visits }): RouteFacts => {
        const base = chicagoFacts();
        const waypoints = itemCounts.map((_, index) =>
          waypoint(index, `w${index}`, 41.8 + index / 100, CHI_LNG),
        );
        const invoices = itemCounts.map((count, index) =>
          invoice(
            `i${index}`,
            `w${index}`,
            'CASH',
            Array.from({ length: count }, (_, item) => [`w${index}-${item}`, 100] as [string, number]),
          ),
        );
        const attempts = visits
          .filter((visit) => visit.stop < itemCounts.length)
          .map((visit, index) => {
            const count = itemCounts[visit.stop] ?? 0;
            const listed = new Map(
              visit.listed
                .filter(([item]) => item < count)
                .map(([item, status]) => [`w${visit.stop}-${item}`, status]),
            );
            return attempt(
              `a${index}`,
              `w${visit.stop}`,
              base.route.startTime + index * 60_000,
              visit.status,
              {
                items: [...listed].map(([id, status]) => ({ id, status })),
              },
            );
          });
        return { ...base, waypoints, invoices, attempts };
      });
    fc.assert(
      fc.property(facts, (route) => {
        const result = routeAnalytics(route);
        const n = (column: string) => result[column] as number;
        const visited = new Set(route.attempts.map((visit) => visit.waypointId)).size;
        expect(
          n('successful_customers_count') +
            n('failed_customers_count') +
            n('mixed_status_customers_count') +
            n('try_again_later_customers_count'),
        ).toBe(n('total_visited_customers_count'));
        expect(n('total_visited_customers_count')).toBe(visited);
        expect(n('total_visited_customers_count') + n('total_unvisited_customers_count')).toBe(
          n('imported_customers_count'),
        );
        expect(n('total_additional_visits')).toBe(route.attempts.length - visited);
        expect(n('delivered_items_count') + n('failed_items_count')).toBeLessThanOrEqual(
          n('planned_items_count'),
        );

        const rows = attemptAnalytics(route);
        expect(rows.map((row) => row.attempt_id)).toEqual(route.attempts.map((visit) => visit.id));
        for (const [index, row] of rows.entries()) {
          expect(Object.keys(row)).toEqual(DESIGN_ATTEMPT_COLUMNS);
          const items = route.invoices.find((row2) => row2.waypointId === row.waypoint_id)?.items.length ?? 0;
          const decided = (row.items_successful as number) + (row.items_failed as number);
          const visit = route.attempts[index] as Attempt;
          // A decisive attempt decides every item of its waypoint; VISIT_LATER only those it lists.
          expect(decided).toBe(visit.status === 'VISIT_LATER' ? visit.items.length : items);
        }
      }),
    );
  });
});
