import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext } from '../../lib/app-context';
import { DEFAULT_CONFIG, readConfig } from '../../lib/delivery-routes';
import { synthesizeApp } from '../../local/cloud/synth';
import { resourcesOf, synthesize } from './synth';

/** CloudFormation allows 500 resources per stack; stay well clear so one more domain never breaks a deploy. */
const MAX_RESOURCES_PER_STACK = 450;

const { app, assembly, stateful, api, statefulTemplate, apiTemplate } = synthesize();
const stacks = app.node.children.filter(Stack.isStack);
/** The stateful stack, the API stack and the API's nested stacks (one per domain, one for consumers). */
const allTemplates: [string, Template][] = [
  ['stateful', statefulTemplate],
  ['api', apiTemplate],
  ...[...api.endpointGroups.values(), api.consumers].map(
    (nested) => [`api/${nested.node.id}`, Template.fromStack(nested)] as [string, Template],
  ),
];

interface Output {
  Export?: { Name?: unknown };
}

function allConstructs(root: IConstruct): IConstruct[] {
  return [root, ...root.node.children.flatMap(allConstructs)];
}

describe('app', () => {
  it('has the stateful and the API stack', () => {
    expect(stacks.map((s) => s.stackName).sort()).toEqual(['DeliveryRoutes-Api', 'DeliveryRoutes-Stateful']);
  });

  it.each(allTemplates)(
    `the %s stack stays below ${MAX_RESOURCES_PER_STACK} resources`,
    (_name, template) => {
      expect(Object.keys(resourcesOf(template)).length).toBeLessThan(MAX_RESOURCES_PER_STACK);
    },
  );

  it('the API stack deploys after the stateful stack it imports the table, bucket and queues from', () => {
    expect(api.dependencies).toContain(stateful);
  });

  it('the API stack imports only fixed export names of the stateful stack', () => {
    const imported = new Set<string>();
    for (const [, template] of allTemplates.filter(([name]) => name !== 'stateful')) {
      JSON.stringify(template.toJSON(), (key, value) => {
        if (key === 'Fn::ImportValue') imported.add(value);
        return value;
      });
    }
    const exported = Object.values(statefulTemplate.toJSON().Outputs as Record<string, Output>)
      .map((o) => o.Export?.Name)
      .filter((name): name is string => typeof name === 'string');
    const fixed = [
      stateful.exports.table.tableArnExportName,
      stateful.exports.bucket.bucketArnExportName,
      ...Object.values(stateful.exports.queues).flatMap((q) => [
        q.queueArnExportName,
        q.queueUrlExportName,
        q.deadLetterArnExportName,
        q.deadLetterUrlExportName,
      ]),
      stateful.exports.alarmTopicArnExportName,
      stateful.exports.webhookSecretsKeyArnExportName,
      stateful.exports.eventPipeDeadLetterArnExportName,
      stateful.exports.feedPipeDeadLetterArnExportName,
    ];
    expect(imported.size).toBeGreaterThan(0);
    for (const name of imported) {
      expect(exported, name).toContain(name);
      expect(fixed, name).toContain(name);
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  const report = new AwsSolutionsChecks().validateScope(app);
  const findings = (severity: string) =>
    report.violations
      .filter((v) => v.severity === severity)
      .map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);

  it('reports no unacknowledged errors', () => {
    expect(findings('error')).toEqual([]);
  });

  it('reports no unacknowledged warnings', () => {
    expect(findings('warning')).toEqual([]);
  });

  it('every acknowledgment carries a reason', () => {
    const acknowledgments = allConstructs(app).flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>)),
    );
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgments) expect(reason.trim().length, id).toBeGreaterThan(30);
  });
});

/**
 * Feature flags cdk.json sets to another value than the one a new CDK app gets (`cdk init`), each with its
 * reason: a new behaviour that would replace a resource holding data, or drop a protection the app relies on.
 */
const FLAGS_KEPT_AT_OLD_VALUE: Record<string, string> = {
  '@aws-cdk/core:defaultCrossStackReferences':
    'strong (Fn::ImportValue of an export), not weak (Fn::GetStackOutput): CloudFormation then refuses to remove or change a table, bucket or queue of the stateful stack while a function of the API stack still uses it, as it does for the fixed exports StatefulImports reads; a weak reference would let it go and leave the function pointing at nothing.',
};

interface FeatureFlag {
  userValue?: unknown;
  recommendedValue?: unknown;
  unconfiguredBehavesLike?: { v2?: unknown };
}

/** Flags whose value (cdk.json's, else the default) is not the one recommended for new apps. */
function flagsNotAsRecommended(manifestFile: string): string[] {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { flags?: Record<string, FeatureFlag> } }>;
  };
  const reports = Object.values(manifest.artifacts).filter((a) => a.type === 'cdk:feature-flag-report');
  expect(reports.length).toBeGreaterThan(0);
  return reports.flatMap((report) =>
    Object.entries(report.properties?.flags ?? {})
      .filter(([name]) => !(name in FLAGS_KEPT_AT_OLD_VALUE))
      .filter(([, flag]) => {
        const value = 'userValue' in flag ? flag.userValue : (flag.unconfiguredBehavesLike?.v2 ?? false);
        return JSON.stringify(value) !== JSON.stringify(flag.recommendedValue ?? false);
      })
      .map(([name, flag]) => `${name}: ${JSON.stringify(flag.userValue)}`),
  );
}

describe('feature flags', () => {
  // The feature-flag report `cdk synth` reads to warn of flags "not configured", from each way the app is made.
  it("sets every flag as a new CDK app does (cdk.json), in the CDK tests' synth", () => {
    expect(flagsNotAsRecommended(join(assembly.directory, 'manifest.json'))).toEqual([]);
  });

  it("sets every flag as a new CDK app does (cdk.json), in the local runtime's synth", async () => {
    const directory = await synthesizeApp();
    try {
      expect(flagsNotAsRecommended(join(directory, 'manifest.json'))).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('keeps a flag at another value only explicitly, in cdk.json, with a reason', () => {
    const context = cdkJsonContext();
    for (const [name, reason] of Object.entries(FLAGS_KEPT_AT_OLD_VALUE)) {
      expect(context, name).toHaveProperty([name]);
      expect(reason.trim().length, name).toBeGreaterThan(30);
    }
  });
});

describe('CDK annotations', () => {
  it.each(stacks.map((s) => [s.stackName, s] as const))('%s has no warnings or errors', (_name, stack) => {
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });
});

describe('config from context', () => {
  it('defaults when no context is given', () => {
    expect(readConfig(new App())).toMatchObject({
      throttlingRateLimit: DEFAULT_CONFIG.throttlingRateLimit,
      throttlingBurstLimit: DEFAULT_CONFIG.throttlingBurstLimit,
      logRetention: DEFAULT_CONFIG.logRetention,
    });
  });

  it('reads command-line context (strings) as numbers', () => {
    const context = { throttlingRateLimit: '250', throttlingBurstLimit: '500', logRetentionDays: '14' };
    expect(readConfig(new App({ context }))).toMatchObject({
      throttlingRateLimit: 250,
      throttlingBurstLimit: 500,
      logRetention: RetentionDays.TWO_WEEKS,
    });
  });

  it('reads alarmEmail, and has none by default', () => {
    expect(readConfig(new App()).alarmEmail).toBeUndefined();
    expect(readConfig(new App({ context: { alarmEmail: 'ops@example.com' } })).alarmEmail).toBe(
      'ops@example.com',
    );
  });

  it('refuses an alarmEmail that is not an email address', () => {
    expect(() => readConfig(new App({ context: { alarmEmail: 'ops-at-example' } }))).toThrow(/alarmEmail/);
  });

  it('reads webhookRetryDelaysSeconds as a list of seconds, and has none by default', () => {
    expect(readConfig(new App()).webhookRetryDelaysSeconds).toBeUndefined();
    const context = { webhookRetryDelaysSeconds: '1, 2,5' };
    expect(readConfig(new App({ context })).webhookRetryDelaysSeconds).toEqual([1, 2, 5]);
  });

  it.each(['1,x', '-1', '1.5', '90000', ''])('refuses webhookRetryDelaysSeconds=%j unless empty', (value) => {
    const read = () => readConfig(new App({ context: { webhookRetryDelaysSeconds: value } }));
    if (value === '') expect(read().webhookRetryDelaysSeconds).toBeUndefined();
    else expect(read).toThrow(/webhookRetryDelaysSeconds/);
  });

  it('gives the webhook delivery worker, and no other function, the retry schedule it is configured with', () => {
    const environmentOf = (routes: ReturnType<typeof synthesize>) =>
      [...routes.api.consumerFunctions.entries()].map(([id, fn]) => {
        const resource = Template.fromStack(Stack.of(fn)).toJSON().Resources[
          Stack.of(fn).getLogicalId(fn.node.defaultChild as never)
        ];
        return [id, resource.Properties.Environment.Variables.WEBHOOK_RETRY_DELAYS_SECONDS];
      });
    expect(environmentOf(synthesize({ webhookRetryDelaysSeconds: [1, 2] }))).toEqual([
      ['importRoutes', undefined],
      ['endDeadLetteredImports', undefined],
      ['endOverdueImports', undefined],
      ['fanOutEvents', undefined],
      ['appendToFeed', undefined],
      ['deliverWebhooks', '1,2'],
      ['deleteRoutes', undefined],
      ['exportAnalytics', undefined],
      ['checkProofs', undefined],
      ['optimizeRoutes', undefined],
      ['sendNotifications', undefined],
      ['recordMessageOutcomes', undefined],
    ]);
    expect(environmentOf(synthesize()).every(([, delays]) => delays === undefined)).toBe(true);
  });

  it('lets the notifications worker, and no other function, send with exactly the configured senders', () => {
    const policiesOf = (routes: ReturnType<typeof synthesize>) =>
      [...routes.api.consumerFunctions.entries()].map(([id, fn]) => {
        const template = JSON.stringify(Template.fromStack(Stack.of(fn)).findResources('AWS::IAM::Policy'));
        const variables = Template.fromStack(Stack.of(fn)).toJSON().Resources[
          Stack.of(fn).getLogicalId(fn.node.defaultChild as never)
        ].Properties.Environment.Variables;
        return { id, template, variables };
      });
    const configured = policiesOf(
      synthesize({
        messageSenders: {
          email: {
            identity: 'example.com',
            from: 'deliveries@example.com',
            configurationSet: 'customer-mail',
          },
          sms: { originationIdentity: 'pool-0123', configurationSet: 'customer-sms' },
        },
      }),
    );
    const worker = configured.find((f) => f.id === 'sendNotifications');
    expect(worker?.template).toContain('ses:SendEmail');
    expect(worker?.template).toContain(':identity/example.com');
    expect(worker?.template).toContain(':configuration-set/customer-mail');
    expect(worker?.template).toContain('sms-voice:SendTextMessage');
    expect(worker?.template).toContain(':pool/pool-0123');
    expect(worker?.template).toContain(':configuration-set/customer-sms');
    expect(worker?.variables).toMatchObject({
      NOTIFY_EMAIL_FROM: 'deliveries@example.com',
      NOTIFY_EMAIL_CONFIGURATION_SET: 'customer-mail',
      NOTIFY_SMS_ORIGINATION_IDENTITY: 'pool-0123',
      NOTIFY_SMS_CONFIGURATION_SET: 'customer-sms',
    });
    // The nested stack of the consumers holds every consumer's policy: only the worker's names the senders.
    expect(configured.filter((f) => f.variables.NOTIFY_EMAIL_FROM !== undefined).map((f) => f.id)).toEqual([
      'sendNotifications',
    ]);
    const unconfigured = policiesOf(synthesize()).find((f) => f.id === 'sendNotifications');
    expect(unconfigured?.template).not.toContain('ses:');
    expect(unconfigured?.template).not.toContain('sms-voice:');
    expect(unconfigured?.variables.NOTIFY_EMAIL_FROM).toBeUndefined();
  });

  it('refuses a domain email identity without a From address', () => {
    expect(() => readConfig(new App({ context: { notificationEmailIdentity: 'example.com' } }))).toThrow(
      /notificationEmailFrom/,
    );
  });

  it('refuses a log retention CloudWatch does not offer', () => {
    expect(() => readConfig(new App({ context: { logRetentionDays: '10' } }))).toThrow(/logRetentionDays/);
  });
});
