import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { allChannels } from '../../functions/models/channels';
import { METRICS_NAMESPACE } from '../../functions/shared/service-identity';
import { api, nestedStacks, parent, stateful, viewOf } from './api-template';
import { type CfnResource, logicalIdOf, resourcesOf } from './synth';

/**
 * The operators' dashboard against the alarms: every alarm of every template (the stateful stack, the API
 * stack and its nested stacks) has its metric on the dashboard, graphed against its threshold, and the
 * dashboard shows what docs/operations.md says it does.
 */

const statefulTemplate = Template.fromStack(stateful).toJSON() as {
  Outputs: Record<string, { Value: unknown; Export?: { Name: string } }>;
};
const nestedByResourceId = new Map(
  nestedStacks.map((nested) => [
    logicalIdOf(api, { node: { defaultChild: nested.nestedStackResource } }),
    Template.fromStack(nested).toJSON() as { Outputs: Record<string, { Value: unknown }> },
  ]),
);

/**
 * What a dimension value names, the same wherever a template names it: `<template>/<logical id>` of the
 * resource (a function, a queue, the stage), through nested stacks' outputs and the stateful stack's exports.
 */
function identity(value: unknown, template: string): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as Record<string, unknown>;
  if (typeof intrinsic.Ref === 'string') return `${template}/${intrinsic.Ref}`;
  const getAtt = intrinsic['Fn::GetAtt'] as [string, string] | undefined;
  if (getAtt) {
    const [id, attribute] = getAtt;
    if (!attribute.startsWith('Outputs.')) return `${template}/${id}`; // QueueName, Arn: the resource
    const output = nestedByResourceId.get(id)?.Outputs[attribute.slice('Outputs.'.length)];
    if (!output) throw new Error(`no output ${attribute} of ${id}`);
    return identity(output.Value, id);
  }
  // A resource name taken from an imported ARN: Fn::Select(5, Fn::Split(':', Fn::ImportValue(name))).
  const imported = JSON.stringify(value).match(/"Fn::ImportValue":"([^"]+)"/)?.[1];
  const exported = Object.values(statefulTemplate.Outputs).find((o) => o.Export?.Name === imported);
  if (exported) return identity(exported.Value, 'stateful');
  throw new Error(`no identity for ${JSON.stringify(value)}`);
}

interface AlarmMetric {
  Namespace: string;
  MetricName: string;
  Dimensions?: { Name: string; Value: unknown }[];
}

const signature = (metric: AlarmMetric, stat: string, period: number, template: string) =>
  [
    metric.Namespace,
    metric.MetricName,
    ...(metric.Dimensions ?? []).map((d) => `${d.Name}=${identity(d.Value, template)}`).sort(),
    stat,
    period,
  ].join(' ');

/** The metric signatures of an alarm: its metric, or each metric and expression of its math. */
function alarmSignatures(props: Record<string, unknown>, template: string): string[] {
  const metrics = props.Metrics as
    | { Expression?: string; MetricStat?: { Metric: AlarmMetric; Stat: string; Period: number } }[]
    | undefined;
  if (!metrics) {
    const stat = (props.ExtendedStatistic ?? props.Statistic) as string;
    return [signature(props as unknown as AlarmMetric, stat, props.Period as number, template)];
  }
  return metrics.map(({ Expression, MetricStat }) =>
    Expression !== undefined
      ? `expression ${Expression}`
      : signature(
          MetricStat?.Metric as AlarmMetric,
          MetricStat?.Stat as string,
          MetricStat?.Period as number,
          template,
        ),
  );
}

const alarms: { name: string; props: Record<string, unknown>; template: string }[] = [
  ...Object.entries(resourcesOf(Template.fromStack(stateful))).map(([id, r]) => ({
    name: `stateful/${id}`,
    resource: r,
    template: 'stateful',
  })),
  ...Object.entries(parent.resources).map(([id, r]) => ({
    name: `api/${id}`,
    resource: r,
    template: 'parent',
  })),
  ...[...nestedByResourceId.keys()].flatMap((nestedId, index) =>
    Object.entries(viewOf(nestedStacks[index] as (typeof nestedStacks)[number]).resources).map(([id, r]) => ({
      name: `${nestedId}/${id}`,
      resource: r,
      template: nestedId,
    })),
  ),
]
  .filter(({ resource }) => resource.Type === 'AWS::CloudWatch::Alarm')
  .map(({ name, resource, template }) => ({ name, props: resource.Properties ?? {}, template }));

interface Widget {
  type: string;
  properties: {
    title?: string;
    query?: string;
    period?: number;
    metrics?: unknown[][];
    annotations?: { horizontal?: { value: number }[] };
  };
}

/**
 * The dashboard's widgets, its body's tokens (Ref, GetAtt...) put back: as themselves where they stand for a
 * whole string (a dimension value), as their JSON inside a longer one (a query's log group).
 */
function dashboardWidgets(): Widget[] {
  const dashboards = parent.ofType('AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  const [[, dashboard]] = dashboards as [[string, CfnResource]];
  const body = dashboard.Properties?.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const [, parts] = body['Fn::Join'];
  const tokens: unknown[] = [];
  const text = parts
    .map((part) => (typeof part === 'string' ? part : `@@${tokens.push(part) - 1}@@`))
    .join('');
  return JSON.parse(text, (_, value) => {
    if (typeof value !== 'string') return value;
    const whole = value.match(/^@@(\d+)@@$/);
    if (whole) return tokens[Number(whole[1])];
    return value.replace(/@@(\d+)@@/g, (_, index) => JSON.stringify(tokens[Number(index)]));
  }).widgets;
}

const widgets = dashboardWidgets();

/** Each metric and expression the dashboard graphs, by signature, with the thresholds drawn on its graph. */
const graphed = new Map<string, number[]>();
for (const widget of widgets.filter((w) => w.type === 'metric')) {
  const thresholds = (widget.properties.annotations?.horizontal ?? []).map((a) => a.value);
  for (const entry of widget.properties.metrics ?? []) {
    // [namespace, metric name, dimension name, value, ..., options] or [{ expression, ... }]
    const last = entry.at(-1);
    const options = (last !== null && typeof last === 'object' ? last : {}) as Record<string, unknown>;
    const [namespace, metricName, ...pairs] = entry.slice(0, options === last ? -1 : undefined);
    const dimensions: AlarmMetric['Dimensions'] = [];
    for (let i = 0; i < pairs.length; i += 2)
      dimensions.push({ Name: pairs[i] as string, Value: pairs[i + 1] });
    const key =
      typeof options.expression === 'string'
        ? `expression ${options.expression}`
        : signature(
            { Namespace: namespace as string, MetricName: metricName as string, Dimensions: dimensions },
            options.stat as string,
            (options.period ?? widget.properties.period ?? 300) as number,
            'parent',
          );
    graphed.set(key, [...(graphed.get(key) ?? []), ...thresholds]);
  }
}

describe('dashboard', () => {
  it('is one dashboard, in the API stack, named after it (output DashboardName)', () => {
    expect(parent.ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
    expect(Template.fromStack(api).findOutputs('DashboardName').DashboardName?.Value).toEqual({
      Ref: parent.ofType('AWS::CloudWatch::Dashboard')[0]?.[0],
    });
  });

  it('graphs every alarm’s metric against the alarm’s threshold, alarms of every stack included', () => {
    // The throttles of every function, the DLQs (the event pipe's too), the import backlog, 5xx rate, latency.
    expect(alarms.length).toBeGreaterThan(60);
    const missing = alarms.flatMap(({ name, props, template }) =>
      alarmSignatures(props, template)
        .filter((sig) => !(graphed.get(sig) ?? []).includes(props.Threshold as number))
        .map((sig) => `${name}: ${sig} (threshold ${props.Threshold})`),
    );
    expect(missing).toEqual([]);
  });

  it('has a table of requests and latency by status for each endpoint group, from the access logs', () => {
    const tables = widgets.filter((w) => w.type === 'log');
    const tags = [...new Set(endpoints.map((e) => e.tag))];
    expect(tables.map((t) => t.properties.title)).toEqual(
      tags.map((tag) => `${tag}: requests and latency (ms) by status`),
    );
    const accessLogs = JSON.stringify({ Ref: logicalIdOf(api, api.accessLogs) });
    for (const [index, tag] of tags.entries()) {
      const query = tables[index]?.properties.query ?? '';
      expect(query).toContain(`SOURCE '${accessLogs}'`);
      const paths = JSON.parse(query.match(/filter resourcePath in (\[.*?\])\n/)?.[1] ?? '[]');
      expect(paths.sort()).toEqual(
        [...new Set(endpoints.filter((e) => e.tag === tag).map((e) => e.path))].sort(),
      );
      expect(query).toContain('by status');
    }
  });

  it('graphs queue ages, import and export durations, imports and the webhook delivery success rate', () => {
    const titles = widgets.map((w) => w.properties.title ?? '');
    const metricsOf = (title: string) =>
      JSON.stringify(widgets.find((w) => w.properties.title?.startsWith(title))?.properties.metrics);
    const ages = metricsOf('Queues: age of the oldest message');
    expect(ages.match(/ApproximateAgeOfOldestMessage/g)).toHaveLength(allChannels.length);
    const durations = metricsOf('Import and export durations');
    expect(durations.match(/"Duration"/g)).toHaveLength(4);
    expect(metricsOf('Imports (per 5 minutes)')).toContain('ImportsSucceeded');
    const deliveries = metricsOf('Webhook deliveries');
    expect(deliveries).toContain('succeeded');
    expect(deliveries).toContain(METRICS_NAMESPACE);
    expect(deliveries).toContain('WebhookDeliveriesFailed');
    expect(titles).toContain('API: requests, 4xx and 5xx (per 5 minutes)');
  });
});
