/**
 * A route in the import model with every field set, sized by the options: the tests' and the bench's
 * import bodies (ids derive from the route id, so two routes never share one).
 */
export function sampleRoute(
  id: string,
  options: {
    waypoints?: number;
    invoicesPerWaypoint?: number;
    itemsPerInvoice?: number;
    driverId?: string;
    startTime?: number;
    /** Items with only their required fields: 50,000 of them make a 5.6 MB body. */
    leanItems?: boolean;
    /** Names, addresses and units as long as a real ERP's (a 50,000-item route is then about 11 MB). */
    realisticText?: boolean;
  } = {},
) {
  const {
    waypoints = 2,
    invoicesPerWaypoint = 1,
    itemsPerInvoice = 2,
    startTime = Date.UTC(2026, 10, 23, 13, 0),
  } = options;
  const text = (short: string, realistic: string) => (options.realisticText ? realistic : short);
  return {
    id,
    name: `Route ${id}`,
    driver_id: options.driverId,
    start_time: startTime,
    activate_after_successful_import: true,
    start_warehouse: {
      id: 'wh-1',
      name: 'Main warehouse',
      address: '1 Dock St',
      location: { latitude: 41.85, longitude: -87.65 },
    },
    end_warehouse: {
      id: 'wh-1',
      name: 'Main warehouse',
      address: '1 Dock St',
      location: { latitude: 41.85, longitude: -87.65 },
    },
    vehicle: { id: `truck-${id}` },
    waypoints: Array.from({ length: waypoints }, (_, w) => ({
      id: `${id}-wp-${w}`,
      customer_id: `customer-${w}`,
      name: text(`Customer ${w}`, `Lakeview Family Grocery & Deli #${w}`),
      address: text(`${w} Main St`, `${w} North Lincoln Avenue, Loading Dock B, Chicago, IL 60614`),
      location: { latitude: 41.88 + w / 1000, longitude: -87.63 - w / 1000 },
      service_time_minutes: 10,
      time_windows: [{ start: startTime + 3_600_000, end: startTime + 7_200_000 }],
      invoices: Array.from({ length: invoicesPerWaypoint }, (_, i) => ({
        id: `${id}-inv-${w}-${i}`,
        payment_method: i % 2 === 0 ? 'CASH' : 'CREDIT',
        invoice_name_attributes: [{ key: 'invoice_number', value: `INV-${w}-${i}` }],
        items: Array.from({ length: itemsPerInvoice }, (_, t) => ({
          id: `${id}-item-${w}-${i}-${t}`,
          ...(options.leanItems
            ? {}
            : {
                sku: text(`SKU-${t}`, `SKU-0049-${String(t).padStart(5, '0')}`),
                name: text(`Product ${t}`, `Whole grain sandwich bread, 24 oz loaf, 12 per case (${t})`),
                display_unit_of_measure: text('CASE', 'CASE OF 12'),
              }),
          quantity: 1.5 + t,
          total_price_cents: 1299 + t,
          currency: 'USD',
        })) as {
          id: string;
          sku?: string;
          name?: string;
          quantity: number;
          display_unit_of_measure?: string;
          total_price_cents: number;
          currency: string;
        }[],
      })),
    })),
  };
}

export type SampleRoute = ReturnType<typeof sampleRoute>;
