import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { driverKeys } from '../functions/data/drivers';
import { tracePointItem } from '../functions/data/location-trace';
import { failureKey } from '../functions/data/sign-in-failures';
import { inParallel, RawTable, type Row } from './dynamo';
import { measureHandlerWarm, restProxyEvent } from './handler-warm';
import { ApiClient } from './http';
import { type ComparedPath, compareInterleaved, type Operation, runLoad } from './load';
import { latestLocationUpdate } from './raw-ping';
import type { Scenario } from './scenario';
import { check, percentile, round } from './stats';
import type { ReportLocationInput } from './warm/report-location';

/** The issue: 50 drivers pinging at concurrency 16. */
const DRIVERS = 50;
const CONCURRENCY = 16;
const SETUP_PARALLELISM = 8;
const HANDLER_WARM_RATIO_TARGET = 1.5;
/** Pings of each path in the in-process measurement (bench/handler-warm.ts), one at a time. */
const HANDLER_RUNS = 2000;

interface Ping {
  timestamp: number;
  latitude: number;
  longitude: number;
}

/** The trace point appendTracePoint writes for the ping. */
const traceItem = (accountId: string, dcId: string, driverId: string, ping: Ping): Row =>
  tracePointItem({ accountId, dcId, driverId }, ping);

interface BenchDriver {
  id: string;
  token: string;
  /** The newest ping sent to this driver by any path (timestamps strictly increase per driver). */
  last?: Ping;
  /** The driver item as stored after creation: the raw path puts it back with the new location. */
  item?: Row;
}

type PathName = 'api' | 'raw' | 'raw_handler_writes';

const isEmptySuccess = (body: unknown) =>
  JSON.stringify(body) === JSON.stringify({ status: 'success', data: {} });

const isConditionFailure = (error: unknown) =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/**
 * The check: the function's bundle invoked warm in-process with a ping's event against the work a ping must
 * do in the table, from the same process (bench/handler-warm.ts, bench/warm/report-location.ts): what the
 * function adds on AWS. Reported beside it, not checked: `POST /driver/location` (driver login token) through
 * the local runtime against raw PutItems of the two items a ping stores (latest location on the driver item,
 * trace point), interleaved at concurrency 16, plus a raw run of everything the handler does against the table
 * per ping: mostly the local runtime's own emulation, which is never deployed.
 */
export const driverLocationScenario: Scenario = {
  name: 'driver_location',
  async run({ demo: { stack, apiKey, accountId, dcId }, config, abort, log }) {
    const tableName = stack.table_name;

    const api = new ApiClient(stack.api_url, apiKey, SETUP_PARALLELISM);
    // One socket pool for all drivers (as a gateway in front would see); each ping sends its driver's token.
    const app = new ApiClient(stack.api_url, apiKey, CONCURRENCY);
    const raw = new RawTable(stack, abort);
    const runId = randomBytes(4).toString('hex');
    const drivers: BenchDriver[] = Array.from({ length: DRIVERS }, (_, i) => {
      const token = `bench-loc-${randomBytes(32).toString('base64url')}`;
      return { id: `bench-loc-${runId}-${String(i).padStart(2, '0')}`, token };
    });
    const dcPath = `/dcs/${encodeURIComponent(dcId)}/drivers`;

    // Every path takes the next driver round-robin and the driver's next timestamp: strictly increasing per
    // driver across all paths (so every trace PutItem inserts a new item, as the API's do), about now.
    let cursor = 0;
    let sequence = 0;
    const pingFor = (driver: BenchDriver): Ping => {
      const n = sequence++;
      const ping: Ping = {
        timestamp: Math.max((driver.last?.timestamp ?? 0) + 1, Date.now()),
        latitude: round(52.3 + ((n * 7919) % 10_000) * 0.00004, 6),
        longitude: round(13.1 + ((n * 104_729) % 10_000) * 0.00006, 6),
      };
      driver.last = ping;
      return ping;
    };
    const nextPing = (): { driver: BenchDriver; ping: Ping } => {
      const driver = drivers[cursor++ % drivers.length] as BenchDriver;
      return { driver, ping: pingFor(driver) };
    };

    const sendApiPing = async (driver: BenchDriver, ping: Ping) => {
      const body = JSON.stringify({
        timestamp: ping.timestamp,
        location: { latitude: ping.latitude, longitude: ping.longitude },
      });
      const { status, body: answer } = await app.post('/driver/location', body, driver.token);
      if (status !== 200 || !isEmptySuccess(answer))
        throw new Error(`API answered ${status}: ${JSON.stringify(answer).slice(0, 200)}`);
    };

    // p95 is not in PathSummary: the API path's successful latencies are also kept here while measuring.
    let recording = false;
    const apiLatenciesMs: number[] = [];
    let conditionFailures = 0;

    const paths: Record<PathName, Operation> = {
      api: async () => {
        const t0 = performance.now();
        const { driver, ping } = nextPing();
        await sendApiPing(driver, ping);
        if (recording) apiLatenciesMs.push(performance.now() - t0);
      },
      // "Raw PutItem of the same items": the two items a ping stores, put whole, in parallel as the
      // handler writes them: the driver item with its new latest location, and the trace point.
      raw: async () => {
        const { driver, ping } = nextPing();
        await Promise.all([
          raw.db.send(new PutCommand({ TableName: tableName, Item: { ...driver.item, location: ping } })),
          raw.db.send(
            new PutCommand({ TableName: tableName, Item: traceItem(accountId, dcId, driver.id, ping) }),
          ),
        ]);
      },
      // Informative: what the handler does against the table per ping once its process has looked the
      // token up (a 30 s cache): the Query of the address's failed sign-ins, the UpdateItem of the latest
      // location, conditional on the driver item holding the token and on the ping being newer, then the
      // trace PutItem.
      raw_handler_writes: async () => {
        const { driver, ping } = nextPing();
        const failures = failureKey('127.0.0.1', Date.now());
        await raw.db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk >= :since',
            ExpressionAttributeValues: { ':pk': failures.pk, ':since': failures.sk },
          }),
        );
        await raw.db
          .send(
            new UpdateCommand(
              latestLocationUpdate(
                tableName,
                driverKeys.driver(accountId, dcId, driver.id),
                ping,
                driver.token,
              ),
            ),
          )
          .catch((error: unknown) => {
            // An older ping arriving late: the handler ignores it too.
            if (!isConditionFailure(error)) throw error;
            conditionFailures++;
          });
        await raw.db.send(
          new PutCommand({ TableName: tableName, Item: traceItem(accountId, dcId, driver.id, ping) }),
        );
      },
    };

    try {
      log(`creating ${DRIVERS} drivers (${drivers[0]?.id} ...) in DC ${dcId}`);
      await inParallel(drivers, SETUP_PARALLELISM, abort, async (driver) => {
        const { status, body } = await api.post(
          dcPath,
          JSON.stringify({
            driver_id: driver.id,
            driver_name: `Bench ${driver.id}`,
            login_token: driver.token,
          }),
        );
        if (status !== 200)
          throw new Error(`creating driver ${driver.id}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
      });

      for (const driver of drivers) {
        driver.item = await raw.get(driverKeys.driver(accountId, dcId, driver.id));
        if (!driver.item) throw new Error(`driver ${driver.id} is not in the table after its creation`);
      }

      // The first ping imports the driver-app handler (the local "cold start").
      const cold = await runLoad(paths.api, { concurrency: 1, count: 1, abort });
      log(`warming up: ${config.warmupRequests} requests per path at concurrency ${CONCURRENCY}`);
      const warmup = {} as Record<PathName, Awaited<ReturnType<typeof runLoad>>>;
      for (const name of Object.keys(paths) as PathName[])
        warmup[name] = await runLoad(paths[name], {
          concurrency: CONCURRENCY,
          count: config.warmupRequests,
          abort,
        });
      const warmupErrors = cold.errors + Object.values(warmup).reduce((total, run) => total + run.errors, 0);
      if (cold.ok + warmup.api.ok === 0)
        throw new Error(`every API request failed: ${[...cold.errorSamples, ...warmup.api.errorSamples][0]}`);

      log(`concurrency ${CONCURRENCY}: ${config.seconds} s per path, interleaved`);
      recording = true;
      const measured: Record<PathName, ComparedPath> = await compareInterleaved(paths, {
        concurrency: CONCURRENCY,
        seconds: config.seconds,
        sliceSeconds: config.sliceSeconds,
        abort,
        log,
      });
      recording = false;
      const measuredErrors = Object.values(measured).reduce((total, path) => total + path.errors, 0);

      // One last ping per driver through the API, after everything else: each driver's latest location
      // must then be exactly that ping, and its trace point must be the item the raw path writes.
      log('verifying: one final API ping per driver, then GET .../location of each');
      const verifyErrors: string[] = [];
      await inParallel(drivers, CONCURRENCY, abort, async (driver) => {
        try {
          await sendApiPing(driver, pingFor(driver));
        } catch (error) {
          verifyErrors.push(`final ping of ${driver.id}: ${error instanceof Error ? error.message : error}`);
        }
      });
      await inParallel(drivers, SETUP_PARALLELISM, abort, async (driver) => {
        const { status, body } = await api.get(`${dcPath}/${encodeURIComponent(driver.id)}/location`);
        const stored = (body as { data?: { driver_location?: unknown } } | undefined)?.data?.driver_location;
        const last = driver.last as Ping;
        const expected = {
          timestamp: last.timestamp,
          location: { latitude: last.latitude, longitude: last.longitude },
        };
        if (status !== 200 || JSON.stringify(stored) !== JSON.stringify(expected))
          verifyErrors.push(
            `${driver.id}: GET location answered ${status} ${JSON.stringify(body).slice(0, 200)}, ` +
              `expected driver_location ${JSON.stringify(expected)}`,
          );
      });
      const sample = drivers[0] as BenchDriver;
      const expectedTrace = traceItem(accountId, dcId, sample.id, sample.last as Ping);
      const storedTrace = await raw.get({ pk: expectedTrace.pk, sk: expectedTrace.sk });
      const sorted = (row: Row | undefined) =>
        JSON.stringify(row && Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
      if (sorted(storedTrace) !== sorted(expectedTrace))
        verifyErrors.push(
          `trace point written by the API ${sorted(storedTrace)} differs from the raw path's ${sorted(expectedTrace)}`,
        );

      // The handler on its own: a driver of its own, pinged only in-process.
      const warmDriver = {
        id: `bench-loc-${runId}-warm`,
        token: `bench-loc-${randomBytes(32).toString('base64url')}`,
      };
      const created = await api.post(
        dcPath,
        JSON.stringify({
          driver_id: warmDriver.id,
          driver_name: 'Bench warm',
          login_token: warmDriver.token,
        }),
      );
      if (created.status !== 200)
        throw new Error(
          `creating driver ${warmDriver.id}: ${created.status} ${JSON.stringify(created.body)}`,
        );
      log(
        `the handler's bundle in-process: ${HANDLER_RUNS} warm pings and the raw work of as many, interleaved`,
      );
      const input: ReportLocationInput = {
        event: restProxyEvent({
          method: 'POST',
          resource: '/driver/location',
          path: '/driver/location',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${warmDriver.token}` },
        }),
        table: tableName,
        driver: { accountId, dcId, driverId: warmDriver.id, loginToken: warmDriver.token },
      };
      const { ratio: handlerWarmRatio, ...inProcess } = await measureHandlerWarm({
        functionName: 'driver-app/location',
        comparison: 'report-location',
        stack,
        input,
        runs: HANDLER_RUNS,
        warmup: config.warmupRequests,
        abort,
      });
      log(`  handler p50 ${inProcess.handler_ms.p50} ms, raw work p50 ${inProcess.raw_ms.p50} ms`);

      const ratio = measured.api.throughput_rps / measured.raw.throughput_rps;
      const sortedLatencies = Float64Array.from(apiLatenciesMs).sort();
      const latencyList = Array.from(sortedLatencies);
      return {
        description:
          `POST /driver/location (driver login token, round-robin over ${DRIVERS} new drivers, strictly ` +
          `increasing timestamps per driver) through the local HTTP runtime (api) vs. raw PutItem of the items a ` +
          'ping stores (raw: the driver item with its new location and the trace point, two PutItems in ' +
          'parallel per ping) on the same DynamoDB Local, interleaved at concurrency ' +
          `${CONCURRENCY}, closed loop, keep-alive. raw_handler_writes (informative, not checked) does what the ` +
          'handler does against the table per ping after its first (its process caches the token lookup for 30 s): ' +
          'the Query of the caller address’s failed sign-ins, the UpdateItem of the location, conditional on the ' +
          'driver item holding the token, then the trace PutItem. The ' +
          'bench drivers have no started routes, so no ping refreshes ETAs.',
        run_id: runId,
        drivers: DRIVERS,
        concurrency: CONCURRENCY,
        errors: warmupErrors + measuredErrors + verifyErrors.length,
        cold_first_api_request_ms: round(cold.latenciesMs[0] ?? Number.NaN),
        warmup: {
          requests_per_path: config.warmupRequests,
          concurrency: CONCURRENCY,
          errors: Object.fromEntries(
            (Object.keys(warmup) as PathName[]).map((name) => [
              name,
              warmup[name].errors + (name === 'api' ? cold.errors : 0),
            ]),
          ),
          ...(warmupErrors
            ? {
                error_samples: [
                  ...cold.errorSamples,
                  ...Object.values(warmup).flatMap((run) => run.errorSamples),
                ],
              }
            : {}),
        },
        pings_per_s: {
          api: measured.api.throughput_rps,
          raw: measured.raw.throughput_rps,
          raw_handler_writes: measured.raw_handler_writes.throughput_rps,
        },
        api_over_raw_ratio: round(ratio),
        api_over_raw_handler_writes_ratio: round(
          measured.api.throughput_rps / measured.raw_handler_writes.throughput_rps,
        ),
        api_latency_ms: {
          p50: round(percentile(latencyList, 50)),
          p95: round(percentile(latencyList, 95)),
          p99: round(percentile(latencyList, 99)),
          samples: latencyList.length,
        },
        raw_handler_writes_condition_failures: conditionFailures,
        measured,
        verification: {
          checked_drivers: DRIVERS,
          errors: verifyErrors.length,
          note:
            'after the measurement one more API ping per driver; GET /dcs/{dc}/drivers/{id}/location must ' +
            'answer exactly that ping, and the last trace point of the first driver must equal the item the raw path ' +
            'would write for it',
          ...(verifyErrors.length ? { error_samples: verifyErrors.slice(0, 5) } : {}),
        },
        handler_in_process: {
          ...inProcess,
          note:
            "the function's bundle (lib/bundling.ts) imported in a fresh node process with its deployed " +
            'environment and invoked warm with the REST proxy event API Gateway sends it for a ping (a driver of ' +
            'its own, timestamps increasing), one at a time, against the raw work of a ping from the same ' +
            'process: the Query of the address’s failed sign-ins, the conditional UpdateItem of the location, the ' +
            'trace PutItem, one after another; alternating which goes first; both on DynamoDB Local itself',
        },
        end_to_end: {
          api_throughput_ratio: round(ratio),
          note:
            'reported, not checked: through the local runtime (API Gateway emulation, the Lambda runtime, process ' +
            "hops, SigV4 and IAM checks), which is never deployed, on the bench's shared cores: api pings/s / raw " +
            `pings/s (PutItem of the driver item and the trace point) at concurrency ${CONCURRENCY}`,
        },
        checks: {
          ping_handler_warm_ratio: check(
            handlerWarmRatio,
            '<=',
            HANDLER_WARM_RATIO_TARGET,
            `p50 of ${HANDLER_RUNS} warm in-process pings of the function's bundle / p50 of as many runs of a ping's raw work from the same process`,
          ),
        },
      };
    } finally {
      api.close();
      app.close();
      raw.destroy();
    }
  },
};
