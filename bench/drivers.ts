import { readFileSync, statSync } from 'node:fs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { driverKeys } from '../functions/data/drivers';
import { documentClient } from './dynamo';
import { measureHandlerWarm, restProxyEvent } from './handler-warm';
import { ApiClient } from './http';
import { type ComparedPath, compareInterleaved, type Operation, runLoad } from './load';
import type { Scenario } from './scenario';
import { check, median, round } from './stats';
import type { GetDriverInput } from './warm/get-driver';

const HANDLER_WARM_RATIO_TARGET = 1.5;
/** Requests of each path in the in-process measurement (bench/handler-warm.ts), one at a time. */
const HANDLER_RUNS = 2000;

/**
 * The check: the function's bundle invoked warm in-process against a raw GetItem from the same process
 * (bench/handler-warm.ts), what the function adds on AWS. Reported beside it, not checked: `GET
 * /dcs/{dc}/drivers/{id}` through the local runtime as deployed (API Gateway with the authorizer's cache,
 * the function in its own execution environment, its GetItem signed with its role's credentials and checked
 * against its policy by the local AWS endpoint) against the bare GetItem of the same item with ConsistentRead,
 * as the handler reads it, on DynamoDB Local itself: what the API path costs on top of the database. The same
 * GetItem through the local AWS endpoint, and the function's own durations (its REPORT lines), split the cost
 * into its layers.
 */
export const getDriverScenario: Scenario = {
  name: 'get_driver',
  async run({ runtime, demo: { stack, apiKey, accountId, dcId, driverId }, config, abort, log }) {
    // Layers are read from the function's REPORT lines: the runtime prints each one (LOCAL_PLATFORM_LOG=all).
    const key = driverKeys.driver(accountId, dcId, driverId);

    const maxConcurrency = Math.max(...config.concurrencies);
    const api = new ApiClient(stack.api_url, apiKey, maxConcurrency);
    const db = documentClient(stack, stack.emulator_endpoints.dynamodb);
    const viaProxy = documentClient(stack, stack.dynamodb_endpoint);
    const path = `/dcs/${encodeURIComponent(dcId)}/drivers/${encodeURIComponent(driverId)}`;

    const getItem = async (through: DynamoDBDocumentClient) => {
      const { Item } = await through.send(
        new GetCommand({ TableName: stack.table_name, Key: key, ConsistentRead: true }),
      );
      if (Item?.driver_id !== driverId)
        throw new Error(`GetItem returned driver id ${JSON.stringify(Item?.driver_id)}`);
    };
    const paths: Record<'api' | 'proxy' | 'raw', Operation> = {
      api: async () => {
        const { status, body } = await api.get(path);
        const id = (body as { data?: { driver?: { id?: unknown } } } | undefined)?.data?.driver?.id;
        if (status !== 200) throw new Error(`API answered ${status}: ${JSON.stringify(body).slice(0, 200)}`);
        if (id !== driverId) throw new Error(`API answered 200 with driver id ${JSON.stringify(id)}`);
      },
      proxy: () => getItem(viaProxy),
      raw: () => getItem(db),
    };

    try {
      // The first API request imports the authorizer and the handler (the local "cold start").
      const cold = await runLoad(paths.api, { concurrency: 1, count: 1, abort });
      log(`warming up: ${config.warmupRequests} requests per path`);
      const warmup = {
        api: await runLoad(paths.api, { concurrency: maxConcurrency, count: config.warmupRequests, abort }),
        proxy: await runLoad(paths.proxy, {
          concurrency: maxConcurrency,
          count: config.warmupRequests,
          abort,
        }),
        raw: await runLoad(paths.raw, { concurrency: maxConcurrency, count: config.warmupRequests, abort }),
      };
      const warmupErrors = cold.errors + warmup.api.errors + warmup.proxy.errors + warmup.raw.errors;
      if (cold.ok + warmup.api.ok === 0)
        throw new Error(`every API request failed: ${[...cold.errorSamples, ...warmup.api.errorSamples][0]}`);

      const byConcurrency: Record<string, Record<'api' | 'proxy' | 'raw', ComparedPath>> = {};
      const functionDurations: Record<string, number> = {};
      for (const concurrency of config.concurrencies) {
        log(`concurrency ${concurrency}: ${config.seconds} s per path, interleaved`);
        const logOffset = statSync(runtime.logFile).size;
        byConcurrency[concurrency] = await compareInterleaved(paths, {
          concurrency,
          seconds: config.seconds,
          sliceSeconds: config.sliceSeconds,
          abort,
          log,
        });
        functionDurations[concurrency] = median(
          reportedDurations(runtime.logFile, logOffset, 'DriversGetFunction'),
        );
      }

      log(`the handler's bundle in-process: ${HANDLER_RUNS} warm invocations and raw GetItems, interleaved`);
      const input: GetDriverInput = {
        event: restProxyEvent({
          method: 'GET',
          resource: '/dcs/{dc_id}/drivers/{driver_id}',
          path,
          pathParameters: { dc_id: dcId, driver_id: driverId },
          authorizer: { account_id: accountId, dc_ids: JSON.stringify([dcId]), principalId: accountId },
        }),
        driverId,
        table: stack.table_name,
        key,
      };
      const {
        ratio: handlerWarmRatio,
        raw_ms,
        ...inProcess
      } = await measureHandlerWarm({
        functionName: 'drivers/get',
        comparison: 'get-driver',
        stack,
        input,
        runs: HANDLER_RUNS,
        warmup: config.warmupRequests,
        abort,
      });
      log(`  handler p50 ${inProcess.handler_ms.p50} ms, GetItem p50 ${raw_ms.p50} ms`);

      const c1 = byConcurrency[1];
      const c16 = byConcurrency[16];
      const measuredErrors = Object.values(byConcurrency).reduce(
        (total, result) => total + result.api.errors + result.proxy.errors + result.raw.errors,
        0,
      );
      return {
        description:
          'GET /dcs/{dc}/drivers/{id} through the local runtime as deployed (api) vs. a raw GetItem of the same ' +
          'item with ConsistentRead on DynamoDB Local itself (raw), and the same GetItem through the local AWS ' +
          'endpoint with its signature and IAM checks (proxy); closed loop, keep-alive',
        item_key: key,
        errors: warmupErrors + measuredErrors,
        cold_first_api_request_ms: round(cold.latenciesMs[0] ?? Number.NaN),
        warmup: {
          requests_per_path: config.warmupRequests,
          concurrency: maxConcurrency,
          api_errors: warmup.api.errors + cold.errors,
          raw_errors: warmup.raw.errors,
          ...(warmupErrors
            ? {
                error_samples: [...cold.errorSamples, ...warmup.api.errorSamples, ...warmup.raw.errorSamples],
              }
            : {}),
        },
        concurrency: byConcurrency,
        layers_at_concurrency_1_p50_ms: c1
          ? {
              dynamodb_local: round(c1.raw.latency_ms.p50),
              local_aws_endpoint: round(c1.proxy.latency_ms.p50 - c1.raw.latency_ms.p50),
              function_duration: round(functionDurations[1] ?? Number.NaN),
              api_gateway_and_lambda_runtime: round(
                c1.api.latency_ms.p50 - (functionDurations[1] ?? Number.NaN),
              ),
            }
          : undefined,
        function_duration_p50_ms: Object.fromEntries(
          Object.entries(functionDurations).map(([concurrency, ms]) => [concurrency, round(ms)]),
        ),
        handler_in_process: {
          ...inProcess,
          raw_get_item_ms: raw_ms,
          note:
            "the function's bundle (lib/bundling.ts) imported in a fresh node process with its deployed " +
            'environment and invoked warm with the REST proxy event API Gateway sends it (authorizer context ' +
            'included), one request at a time, against a raw consistent GetItem of the same item from the same ' +
            'process, alternating which goes first; both on DynamoDB Local itself',
        },
        end_to_end: {
          api_p50_minus_raw_p50_ms: round(c1 ? c1.api.latency_ms.p50 - c1.raw.latency_ms.p50 : Number.NaN),
          api_throughput_ratio: round(c16 ? c16.api.throughput_rps / c16.raw.throughput_rps : Number.NaN),
          note:
            'reported, not checked: through the local runtime (API Gateway emulation, the Lambda runtime, ' +
            "process hops, SigV4 and IAM checks), which is never deployed, on the bench's shared cores; " +
            'api_p50_minus_raw_p50_ms at concurrency 1, api_throughput_ratio (api req/s / raw req/s) at 16',
        },
        checks: {
          handler_warm_ratio: check(
            handlerWarmRatio,
            '<=',
            HANDLER_WARM_RATIO_TARGET,
            `p50 of ${HANDLER_RUNS} warm in-process invocations of the function's bundle / p50 of as many raw GetItems of the same item from the same process`,
          ),
        },
      };
    } finally {
      api.close();
      db.destroy();
      viaProxy.destroy();
    }
  },
};

/** The Duration of each REPORT line a function wrote to the runtime's log after `offset` (Lambda's, in ms). */
export function reportedDurations(logFile: string, offset: number, functionLabel: string): number[] {
  const text = readFileSync(logFile).subarray(offset).toString('utf8');
  return [
    ...text.matchAll(
      new RegExp(`^${functionLabel} \\| REPORT RequestId: \\S+\\tDuration: ([\\d.]+) ms`, 'gm'),
    ),
  ].map((match) => Number(match[1]));
}
