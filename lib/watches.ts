import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** The period of every alarm metric of the service. */
export const ALARM_PERIOD = Duration.minutes(5);

/** When an alarm fires: its threshold, and how many periods must breach. */
export interface AlarmCondition {
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm?: number;
  readonly treatMissingData: TreatMissingData;
}

/** "This should never happen": any datapoint at or above 1 in a 5-minute period. */
export const ANY_OCCURRENCE: AlarmCondition = {
  threshold: 1,
  evaluationPeriods: 1,
  comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: TreatMissingData.NOT_BREACHING,
};

/**
 * The import worker's backlog alarm: the oldest accepted import has waited this long for a worker. Imports
 * normally start within seconds; 10 minutes means workers are failing or capped far below the arrival rate.
 */
export const IMPORT_QUEUE_MAX_AGE = Duration.minutes(10);

/** The API's own alarms, besides each function's throttles alarm and the queues' alarms. */
export const API_ALARMS = {
  /** Percentage of requests answered 5xx in a 5-minute period; a 500 is a bug, a 502/504 an outage. */
  serverErrorRatePercent: 1,
  /** p99 latency in milliseconds over a 5-minute period; handlers answer in tens of milliseconds. */
  p99LatencyMs: 3000,
  /** Periods (of 5 minutes) that must breach, out of the last three, before the alarm fires. */
  datapointsToAlarm: 2,
} as const;

/** 2 of the last 3 periods above the threshold: a blip does not page, a trend does. */
const SUSTAINED_ABOVE = (threshold: number): AlarmCondition => ({
  threshold,
  evaluationPeriods: 3,
  datapointsToAlarm: API_ALARMS.datapointsToAlarm,
  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  treatMissingData: TreatMissingData.NOT_BREACHING,
});

/**
 * Something the service alarms on, defined once: the metric it watches on a resource (built from the
 * resource as the stack at hand holds or imports it) and when the alarm fires. Every alarm of the service is
 * made from one of WATCHES (`alarmOn`), and the dashboard (lib/constructs/service-dashboard.ts) graphs the same
 * metrics against the same thresholds, so that what notifies an operator is what the dashboard shows.
 */
export interface Watch<R> {
  /** The title of its graph on the dashboard: a line per watched resource, the threshold drawn across. */
  readonly title: string;
  metric(resource: R): IMetric;
  readonly condition: AlarmCondition;
}

/** Everything the service alarms on. */
export const WATCHES = {
  /** A dead-letter queue holds a message: work failed for good and waits for an operator. */
  deadLetters: {
    title: 'Dead-letter queues: messages waiting (alarm at 1)',
    metric: (queue) =>
      queue.metricApproximateNumberOfMessagesVisible({ period: ALARM_PERIOD, statistic: 'Maximum' }),
    condition: ANY_OCCURRENCE,
  } satisfies Watch<IQueue>,
  /**
   * A message reached a dead-letter queue that a consumer empties (the imports DLQ: its consumer ends the
   * import), so its depth stays at zero: counted as SQS hands them out (NumberOfMessagesReceived;
   * NumberOfMessagesSent leaves out the messages redrive moves into a DLQ).
   */
  consumedDeadLetters: {
    title: 'Dead-letter queues a consumer empties: messages received (alarm at 1)',
    metric: (queue) => queue.metricNumberOfMessagesReceived({ period: ALARM_PERIOD, statistic: 'Sum' }),
    condition: ANY_OCCURRENCE,
  } satisfies Watch<IQueue>,
  /** The oldest accepted import has waited IMPORT_QUEUE_MAX_AGE for the import worker. */
  importBacklog: {
    title: `Imports queue: oldest accepted import, seconds (alarm at ${IMPORT_QUEUE_MAX_AGE.toSeconds()})`,
    metric: (queue) =>
      queue.metricApproximateAgeOfOldestMessage({ period: ALARM_PERIOD, statistic: 'Maximum' }),
    condition: {
      threshold: IMPORT_QUEUE_MAX_AGE.toSeconds(),
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    },
  } satisfies Watch<IQueue>,
  /** More than API_ALARMS.serverErrorRatePercent of the stage's requests answered 5xx. */
  apiServerErrorRate: {
    title: `API: requests answered 5xx, % (alarm above ${API_ALARMS.serverErrorRatePercent})`,
    metric: (stage) =>
      new MathExpression({
        label: '5xx rate (%)',
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: stage.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' }),
          requests: stage.metricCount({ period: ALARM_PERIOD, statistic: 'SampleCount' }),
        },
        period: ALARM_PERIOD,
      }),
    condition: SUSTAINED_ABOVE(API_ALARMS.serverErrorRatePercent),
  } satisfies Watch<Stage>,
  /** The stage's p99 latency above API_ALARMS.p99LatencyMs. */
  apiLatency: {
    title: `API: p99 latency, ms (alarm above ${API_ALARMS.p99LatencyMs})`,
    metric: (stage) => stage.metricLatency({ period: ALARM_PERIOD, statistic: 'p99' }),
    condition: SUSTAINED_ABOVE(API_ALARMS.p99LatencyMs),
  } satisfies Watch<Stage>,
  /**
   * Lambda throttled an invocation: the account's concurrency is used up, or a reserved limit is too low.
   * Requests then fail (API) or wait (queues) although nothing is broken.
   */
  functionThrottles: {
    title: 'Throttled invocations (alarm at 1)',
    metric: (fn) => fn.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' }),
    condition: ANY_OCCURRENCE,
  } satisfies Watch<IFunction>,
} as const;

/**
 * The alarm of `watch` on `resource`, notifying `topic` of its state changes (into alarm and back to OK).
 */
export function alarmOn<R>(
  scope: Construct,
  id: string,
  watch: Watch<R>,
  resource: R,
  props: { description: string; topic: ITopic },
): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmDescription: props.description,
    metric: watch.metric(resource),
    ...watch.condition,
  });
  const action = new SnsAction(props.topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}
