import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Color,
  Dashboard,
  GraphWidget,
  type IWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { EndpointDefinition } from '../../functions/api/define';
import * as channels from '../../functions/models/channels';
import { allChannels } from '../../functions/models/channels';
import type { Channel } from '../../functions/shared/channel';
import type { BusinessMetric } from '../../functions/shared/observability';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import { ALARM_PERIOD, WATCHES, type Watch } from '../watches';
import { groupBy } from './endpoint-group';
import type { ServiceResources } from './stateful-imports';

export interface ServiceDashboardProps {
  readonly dashboardName: string;
  readonly stage: Stage;
  /** The stage's access log group (JSON lines with resourcePath, status, responseLatency). */
  readonly accessLogs: ILogGroup;
  readonly endpoints: readonly EndpointDefinition[];
  /** Every function of the service, by its graph (an endpoint group, the authorizers, the consumers), by name. */
  readonly functions: ReadonlyMap<string, ReadonlyMap<string, IFunction>>;
  /** The import worker and the export worker, whose durations are graphed. */
  readonly workers: { readonly imports?: IFunction; readonly exports?: IFunction };
  /** The stateful stack's queues, dead-letter queues and the event pipe's, as this stack imports them. */
  readonly resources: ServiceResources;
}

const WIDTH = 8;
const HEIGHT = 6;

/**
 * The operators' picture of the service, one CloudWatch dashboard: every alarm's metric, from the same
 * definition as the alarm (WATCHES in lib/watches.ts) with its threshold drawn across, and around them what
 * explains an alarm: requests, 4xx and 5xx, latency and status by endpoint group (Logs Insights over the
 * stage's access logs), queue ages, import and export durations, imports and webhook deliveries.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage, resources } = props;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });

    this.dashboard.addWidgets(
      new TextWidget({
        width: 24,
        height: 2,
        markdown:
          '# Delivery Route Service\nA red line is an alarm’s threshold: the alarm and its graph come from one ' +
          'definition (`lib/watches.ts`). The endpoint-group tables query the stage’s access logs (Logs ' +
          'Insights, charged by the data each view scans).',
      }),
    );

    this.section('API', [
      watchGraph(WATCHES.apiServerErrorRate, [{ label: '5xx rate (%)', resource: stage }]),
      watchGraph(WATCHES.apiLatency, [{ label: 'p99 latency', resource: stage }]),
      graph('API: requests, 4xx and 5xx (per 5 minutes)', [
        stage.metricCount({ period: ALARM_PERIOD, statistic: 'SampleCount', label: 'requests' }),
        stage.metricClientError({ period: ALARM_PERIOD, statistic: 'Sum', label: '4xx' }),
        stage.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum', label: '5xx' }),
      ]),
    ]);

    this.section(
      'API by endpoint group',
      [...groupBy(props.endpoints, (endpoint) => endpoint.tag)].map(
        ([tag, endpoints]) =>
          new LogQueryWidget({
            title: `${tag}: requests and latency (ms) by status`,
            logGroupNames: [props.accessLogs.logGroupName],
            view: LogQueryVisualizationType.TABLE,
            queryLines: [
              `filter resourcePath in ${JSON.stringify([...new Set(endpoints.map((e) => e.path))])}`,
              'stats count(*) as requests, pct(responseLatency, 50) as p50, pct(responseLatency, 99) as p99 by status',
              'sort status asc',
            ],
            width: WIDTH,
            height: HEIGHT,
          }),
      ),
    );

    const deadLetterGraph = (graphed: readonly Channel[]) =>
      graphed.map((channel) => ({
        label: `${channel.name} DLQ`,
        resource: resources.deadLetterQueue(channel),
      }));
    const consumed = allChannels.filter((channel) => channel.consumedDeadLetters);
    this.section('Queues', [
      watchGraph(WATCHES.deadLetters, [
        ...deadLetterGraph(allChannels.filter((channel) => !consumed.includes(channel))),
        { label: 'event pipe DLQ', resource: resources.eventPipeDeadLetterQueue },
        { label: 'feed pipe DLQ', resource: resources.feedPipeDeadLetterQueue },
      ]),
      watchGraph(WATCHES.consumedDeadLetters, deadLetterGraph(consumed)),
      watchGraph(WATCHES.importBacklog, [
        { label: channels.imports.name, resource: resources.queue(channels.imports) },
      ]),
      graph(
        'Queues: age of the oldest message, seconds',
        allChannels.map((channel) =>
          resources.queue(channel).metricApproximateAgeOfOldestMessage({
            period: ALARM_PERIOD,
            statistic: 'Maximum',
            label: channel.name,
          }),
        ),
      ),
    ]);

    const workerDurations = Object.entries(props.workers).flatMap(([work, fn]) =>
      fn
        ? (['p50', 'Maximum'] as const).map((statistic) =>
            fn.metricDuration({ period: ALARM_PERIOD, statistic, label: `${work} ${statistic}` }),
          )
        : [],
    );
    const deliveries = {
      succeeded: businessMetric('WebhookDeliveriesSucceeded'),
      failed: businessMetric('WebhookDeliveriesFailed'),
    };
    this.section('Work', [
      graph('Import and export durations, ms (one import or export per invocation)', workerDurations),
      graph(
        'Imports (per 5 minutes)',
        (['ImportsAccepted', 'ImportUploadsStarted', 'ImportsSucceeded', 'ImportsFailed'] as const).map(
          (name) => businessMetric(name),
        ),
      ),
      new GraphWidget({
        title: 'Webhook deliveries: attempts answered 2xx, %',
        left: [
          new MathExpression({
            label: 'success rate (%)',
            // A period with failures only has no Succeeded datapoint: 0 there, not a gap.
            expression: '100 * FILL(succeeded, 0) / (FILL(succeeded, 0) + FILL(failed, 0))',
            usingMetrics: deliveries,
            period: ALARM_PERIOD,
          }),
        ],
        right: [deliveries.succeeded, deliveries.failed],
        leftYAxis: { min: 0, max: 100 },
        width: WIDTH,
        height: HEIGHT,
      }),
    ]);

    this.section(
      'Throttled invocations',
      [...props.functions].map(([title, functions]) =>
        watchGraph(
          WATCHES.functionThrottles,
          [...functions].map(([label, resource]) => ({ label, resource })),
          `${title}: ${WATCHES.functionThrottles.title}`,
        ),
      ),
    );
  }

  /** A heading and its widgets, WIDTH columns each, three to a row. */
  private section(heading: string, widgets: IWidget[]): void {
    this.dashboard.addWidgets(new TextWidget({ markdown: `## ${heading}`, width: 24, height: 1 }));
    for (let start = 0; start < widgets.length; start += 24 / WIDTH)
      this.dashboard.addWidgets(...widgets.slice(start, start + 24 / WIDTH));
  }
}

/** The graph of a watch: its metric on each watched resource, the alarm's threshold drawn across. */
function watchGraph<R>(
  watch: Watch<R>,
  watched: readonly { label: string; resource: R }[],
  title: string = watch.title,
): GraphWidget {
  return new GraphWidget({
    title,
    left: watched.map(({ label, resource }) => {
      const metric = watch.metric(resource);
      return metric instanceof Metric || metric instanceof MathExpression ? metric.with({ label }) : metric;
    }),
    leftAnnotations: [{ value: watch.condition.threshold, label: 'alarm', color: Color.RED }],
    width: WIDTH,
    height: HEIGHT,
  });
}

function graph(title: string, metrics: Metric[]): GraphWidget {
  return new GraphWidget({ title, left: metrics, width: WIDTH, height: HEIGHT });
}

/** A business metric of the functions (EMF, functions/shared/observability.ts), summed per period. */
function businessMetric(name: BusinessMetric): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME },
    statistic: 'Sum',
    period: ALARM_PERIOD,
    label: name,
  });
}
