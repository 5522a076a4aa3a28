// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the templates below use CloudFormation's Fn::Sub syntax
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_METADATA_KEY } from '../../lib/bundling';
import { readDeployment } from '../../local/cloud/deployment';
import type { DeploymentOptions } from '../../local/cloud/model';
import { NAMING_RULES, physicalName } from '../../local/cloud/physical-ids';

const OPTIONS: DeploymentOptions = { namePrefix: 'unit-cloud', awsEndpoint: 'http://127.0.0.1:4566' };
const scratch = mkdtempSync(join(tmpdir(), 'local-cloud-resolver-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface HandWrittenStack {
  template: Record<string, unknown>;
  /** Nested templates by file name; the parent's TemplateURL ends in `<file>.key`. */
  nested?: Record<string, Record<string, unknown>>;
}

let assemblies = 0;

/** Writes a cloud assembly of `stacks` (manifest, templates, assets manifest) and returns its directory. */
function writeAssembly(stacks: Record<string, HandWrittenStack>): string {
  const dir = join(scratch, `assembly-${assemblies++}`);
  mkdirSync(dir, { recursive: true });
  const artifacts: Record<string, unknown> = {};
  for (const [name, stack] of Object.entries(stacks)) {
    writeFileSync(join(dir, `${name}.template.json`), JSON.stringify(stack.template));
    const files: Record<string, unknown> = {};
    for (const [file, template] of Object.entries(stack.nested ?? {})) {
      writeFileSync(join(dir, file), JSON.stringify(template));
      files[file] = {
        source: { path: file, packaging: 'file' },
        destinations: { current: { bucketName: 'assets', objectKey: `${file}.key` } },
      };
    }
    writeFileSync(join(dir, `${name}.assets.json`), JSON.stringify({ version: '1', files }));
    artifacts[`${name}.assets`] = { type: 'cdk:asset-manifest', properties: { file: `${name}.assets.json` } };
    artifacts[name] = {
      type: 'aws:cloudformation:stack',
      properties: { templateFile: `${name}.template.json` },
    };
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ version: '1', artifacts }));
  return dir;
}

const BUNDLE = { [BUNDLE_METADATA_KEY]: { entry: 'functions/api/x/handler.ts', bundledFiles: [] } };

/** A function resource whose environment variables are `variables` (the resolver's output lands there). */
function fnWith(variables: Record<string, unknown>, properties: Record<string, unknown> = {}) {
  return {
    Type: 'AWS::Lambda::Function',
    Metadata: BUNDLE,
    Properties: {
      Handler: 'index.handler',
      Runtime: 'nodejs22.x',
      Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
      Environment: { Variables: variables },
      ...properties,
    },
  };
}

const LAMBDA_TRUST = {
  Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } }],
};
const ROLE = { Type: 'AWS::IAM::Role', Properties: { AssumeRolePolicyDocument: LAMBDA_TRUST } };

function tableWith(properties: Record<string, unknown>) {
  return {
    Type: 'AWS::DynamoDB::Table',
    Properties: {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      ...properties,
    },
  };
}

function environmentOf(template: Record<string, unknown>, options: Partial<DeploymentOptions> = {}) {
  const deployment = readDeployment(writeAssembly({ Main: { template } }), { ...OPTIONS, ...options });
  return deployment.functions[0]?.environment;
}

describe('usage plans', () => {
  const planTemplate = (plan: Record<string, unknown> = {}) => ({
    Resources: {
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'metered', ApiKeySourceType: 'HEADER' } },
      Stage: {
        Type: 'AWS::ApiGateway::Stage',
        Properties: { RestApiId: { Ref: 'Api' }, StageName: 'v1', DeploymentId: 'd1' },
      },
      Plan: {
        Type: 'AWS::ApiGateway::UsagePlan',
        Properties: {
          ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: 'Stage' }, Throttle: {} }],
          Throttle: { RateLimit: 5, BurstLimit: '10' },
          ...plan,
        },
      },
      Key: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Value: 'k'.repeat(24), Enabled: 'true' } },
      PlanKey: {
        Type: 'AWS::ApiGateway::UsagePlanKey',
        Properties: { KeyId: { Ref: 'Key' }, KeyType: 'API_KEY', UsagePlanId: { Ref: 'Plan' } },
      },
    },
  });
  const apiOf = (template: Record<string, unknown>) =>
    readDeployment(writeAssembly({ Main: { template } }), OPTIONS).restApis[0];

  it('reads the throttle, the stages and the keys the templates put in each plan', () => {
    const api = apiOf(planTemplate());
    expect(api?.apiKeySource).toBe('HEADER');
    expect(api?.usagePlans).toEqual([
      {
        logicalId: 'Plan',
        stackPath: 'Main',
        id: expect.stringMatching(/^[0-9a-f]{6}$/),
        throttle: { rateLimit: 5, burstLimit: 10 },
        stages: ['v1'],
        methodThrottles: [],
        keys: [{ id: expect.stringMatching(/^[0-9a-f]{10}$/), value: 'k'.repeat(24), enabled: true }],
      },
    ]);
  });

  /** The plan template with a GET /x.json method, and `throttle` as the stage's per-method throttle map. */
  const withMethodThrottle = (throttle: Record<string, unknown>) => {
    const template = planTemplate({
      ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: 'Stage' }, Throttle: throttle }],
    });
    Object.assign(template.Resources, {
      Resource: {
        Type: 'AWS::ApiGateway::Resource',
        Properties: {
          RestApiId: { Ref: 'Api' },
          ParentId: { 'Fn::GetAtt': ['Api', 'RootResourceId'] },
          PathPart: 'x.json',
        },
      },
      Method: {
        Type: 'AWS::ApiGateway::Method',
        Properties: {
          RestApiId: { Ref: 'Api' },
          ResourceId: { Ref: 'Resource' },
          HttpMethod: 'GET',
          Integration: { Type: 'MOCK' },
        },
      },
    });
    return template;
  };

  it("reads a plan's per-method throttles, keyed /<resource path>/<HTTP method> as CDK writes them", () => {
    const api = apiOf(withMethodThrottle({ '/x.json/GET': { RateLimit: '0.5', BurstLimit: 3 } }));
    expect(api?.usagePlans[0]?.methodThrottles).toEqual([
      { stage: 'v1', path: '/x.json', httpMethod: 'GET', rateLimit: 0.5, burstLimit: 3 },
    ]);
  });

  it('refuses what the local API Gateway would not enforce: quotas, a throttle without both limits', () => {
    expect(() => apiOf(planTemplate({ Quota: { Limit: 1000, Period: 'DAY' } }))).toThrow(
      /quotas are not enforced/,
    );
    expect(() => apiOf(planTemplate({ Throttle: { RateLimit: 5 } }))).toThrow(
      /both RateLimit and BurstLimit/,
    );
    expect(() => apiOf(withMethodThrottle({ '/x.json/GET': { RateLimit: 1 } }))).toThrow(
      /'\/x.json\/GET' needs a numeric BurstLimit/,
    );
  });

  it('refuses a per-method throttle that names no method of the API, or is not keyed by path and method', () => {
    expect(() => apiOf(withMethodThrottle({ '/x.json/POST': { RateLimit: 1, BurstLimit: 1 } }))).toThrow(
      /'\/x.json\/POST' names no method of REST API Api/,
    );
    expect(() => apiOf(withMethodThrottle({ 'GET /x.json': { RateLimit: 1, BurstLimit: 1 } }))).toThrow(
      /is not \/<resource path>\/<HTTP method>/,
    );
  });
});

describe('the template resolver', () => {
  it('resolves Join, Select, Split, Sub (both forms), Base64 and pseudo parameters', () => {
    const environment = environmentOf({
      Resources: {
        Role: ROLE,
        Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
        Fn: fnWith({
          JOIN: { 'Fn::Join': ['-', ['a', { Ref: 'AWS::Region' }, 3]] },
          SELECT: { 'Fn::Select': ['1', { 'Fn::Split': [':', 'x:y:z'] }] },
          SUB: { 'Fn::Sub': '${AWS::AccountId}/${Queue.QueueName}/${Queue}/${!Literal}' },
          SUB_VARIABLES: { 'Fn::Sub': ['${Name}-${AWS::Partition}', { Name: { Ref: 'AWS::StackName' } }] },
          BASE64: { 'Fn::Base64': 'hello' },
          URL_SUFFIX: { Ref: 'AWS::URLSuffix' },
        }),
      },
    });
    expect(environment).toEqual({
      JOIN: 'a-us-east-1-3',
      SELECT: 'y',
      SUB: `000000000000/jobs/${OPTIONS.awsEndpoint}/000000000000/jobs/\${Literal}`,
      SUB_VARIABLES: 'Main-aws',
      BASE64: Buffer.from('hello').toString('base64'),
      URL_SUFFIX: 'amazonaws.com',
    });
  });

  it('evaluates conditions for Fn::If, drops AWS::NoValue and leaves out resources whose condition fails', () => {
    const template = {
      Parameters: { Mode: { Type: 'String', Default: 'prod' } },
      Conditions: {
        IsProd: { 'Fn::Equals': [{ Ref: 'Mode' }, 'prod'] },
        IsDev: { 'Fn::Not': [{ Condition: 'IsProd' }] },
        Both: {
          'Fn::And': [
            { Condition: 'IsProd' },
            { 'Fn::Or': [{ Condition: 'IsDev' }, { Condition: 'IsProd' }] },
          ],
        },
      },
      Resources: {
        Role: ROLE,
        DevQueue: { Type: 'AWS::SQS::Queue', Condition: 'IsDev' },
        Fn: fnWith(
          {
            STAGE: { 'Fn::If': ['IsProd', 'production', 'development'] },
            BOTH: { 'Fn::If': ['Both', 'yes', 'no'] },
            GONE: { 'Fn::If': ['IsDev', 'dev-only', { Ref: 'AWS::NoValue' }] },
          },
          { MemorySize: { 'Fn::If': ['IsDev', 512, { Ref: 'AWS::NoValue' }] } },
        ),
      },
    };
    const deployment = readDeployment(writeAssembly({ Main: { template } }), OPTIONS);
    expect(deployment.functions[0]?.environment).toEqual({ STAGE: 'production', BOTH: 'yes' });
    expect(deployment.functions[0]?.memorySize).toBe(128);
    expect(deployment.queues).toEqual([]);
  });

  it('imports values other stacks export', () => {
    const deployment = readDeployment(
      writeAssembly({
        Producer: {
          template: {
            Resources: { Table: tableWith({ TableName: 'items' }) },
            Outputs: {
              TableArn: {
                Value: { 'Fn::GetAtt': ['Table', 'Arn'] },
                Export: { Name: { 'Fn::Sub': '${AWS::StackName}-Arn' } },
              },
            },
          },
        },
        Consumer: {
          template: {
            Resources: { Role: ROLE, Fn: fnWith({ TABLE_ARN: { 'Fn::ImportValue': 'Producer-Arn' } }) },
          },
        },
      }),
      OPTIONS,
    );
    expect(deployment.functions[0]?.environment.TABLE_ARN).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/items',
    );
  });

  it("passes a parent's parameters into a nested stack and reads its outputs back", () => {
    const nested = {
      Parameters: { QueueUrl: { Type: 'String' }, Greeting: { Type: 'String', Default: 'hi' } },
      Resources: {
        Role: ROLE,
        Fn: fnWith(
          { QUEUE_URL: { Ref: 'QueueUrl' }, GREETING: { Ref: 'Greeting' } },
          { FunctionName: 'inner' },
        ),
      },
      Outputs: { FunctionArn: { Value: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
    };
    const parent = {
      Resources: {
        Queue: { Type: 'AWS::SQS::Queue' },
        Nested: {
          Type: 'AWS::CloudFormation::Stack',
          Properties: {
            TemplateURL: {
              'Fn::Join': ['', ['https://s3.', { Ref: 'AWS::URLSuffix' }, '/assets/inner.json.key']],
            },
            Parameters: { QueueUrl: { Ref: 'Queue' } },
          },
        },
        Alias: {
          Type: 'AWS::Lambda::EventSourceMapping',
          Properties: {
            FunctionName: { 'Fn::GetAtt': ['Nested', 'Outputs.FunctionArn'] },
            EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          },
        },
      },
    };
    const deployment = readDeployment(
      writeAssembly({ Parent: { template: parent, nested: { 'inner.json': nested } } }),
      OPTIONS,
    );
    const [queue] = deployment.queues;
    expect(deployment.functions[0]).toMatchObject({
      name: 'inner',
      stackPath: 'Parent/Nested',
      environment: { QUEUE_URL: queue?.url, GREETING: 'hi' },
      // Lambda's defaults for what the template leaves out.
      memorySize: 128,
      timeoutSeconds: 3,
      architectures: ['x86_64'],
      logGroupName: '/aws/lambda/inner',
    });
    // SQS event source defaults, and the function named by the ARN a nested output gives.
    expect(deployment.eventSourceMappings[0]).toMatchObject({
      functionName: 'inner',
      eventSourceArn: queue?.arn,
      batchSize: 10,
      maximumBatchingWindowSeconds: 0,
      enabled: true,
      reportBatchItemFailures: false,
    });
  });

  it('gives resources that several templates declare under one logical id names of their own', () => {
    const nestedStack = (parameter: string) => ({
      Type: 'AWS::CloudFormation::Stack',
      Properties: {
        TemplateURL: 'https://s3.amazonaws.com/assets/shared.json.key',
        Parameters: { Label: parameter },
      },
    });
    const shared = {
      Parameters: { Label: { Type: 'String' } },
      Resources: { Role: ROLE, Fn: fnWith({ LABEL: { Ref: 'Label' } }) },
    };
    const assembly = writeAssembly({
      Parent: {
        template: { Resources: { One: nestedStack('one'), Two: nestedStack('two') } },
        nested: { 'shared.json': shared },
      },
    });
    const read = () => readDeployment(assembly, OPTIONS).functions;
    const functions = read();
    expect(functions.map((fn) => [fn.stackPath, fn.environment.LABEL])).toEqual([
      ['Parent/One', 'one'],
      ['Parent/Two', 'two'],
    ]);
    const [one, two] = functions;
    expect(one?.name).not.toBe(two?.name);
    expect(one?.roleArn).not.toBe(two?.roleArn);
    expect(read().map((fn) => fn.name)).toEqual(functions.map((fn) => fn.name));
  });

  it('refuses two resources with the same explicit name', () => {
    const template = {
      Resources: {
        A: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'same' } },
        B: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'same' } },
      },
    };
    expect(() => readDeployment(writeAssembly({ Main: { template } }), OPTIONS)).toThrow(
      'queues: Main/A and Main/B both have the name same',
    );
  });

  it('names an unsupported intrinsic function with the template and the property path', () => {
    const template = {
      Resources: { Role: ROLE, Fn: fnWith({ RANGE: { 'Fn::Cidr': ['10.0.0.0/16', 2, 8] } }) },
    };
    expect(() => environmentOf(template)).toThrow(
      'Main (Main.template.json): Resources.Fn.Properties.Environment.Variables.RANGE: unsupported intrinsic function Fn::Cidr',
    );
  });

  it('fails on a reference to nothing, and on a circular one', () => {
    expect(() => environmentOf({ Resources: { Role: ROLE, Fn: fnWith({ X: { Ref: 'Missing' } }) } })).toThrow(
      'Resources.Fn.Properties.Environment.Variables.X.Ref: no parameter or resource named Missing',
    );
    const circular = {
      Resources: {
        Role: ROLE,
        A: { Type: 'AWS::SQS::Queue', Properties: { QueueName: { 'Fn::GetAtt': ['B', 'QueueName'] } } },
        B: { Type: 'AWS::SQS::Queue', Properties: { QueueName: { 'Fn::GetAtt': ['A', 'QueueName'] } } },
        Fn: fnWith({ X: { Ref: 'A' } }),
      },
    };
    expect(() => environmentOf(circular)).toThrow('circular reference');
  });

  it('makes names within each service rule, deterministic, and lets an explicit name win', () => {
    const longId = `Very${'Long'.repeat(30)}Id`;
    const template = {
      Resources: {
        Role: ROLE,
        [longId]: { Type: 'AWS::SQS::Queue' },
        Bucket: { Type: 'AWS::S3::Bucket' },
        Named: tableWith({ TableName: 'explicit', StreamSpecification: { StreamViewType: 'KEYS_ONLY' } }),
        Fn: fnWith({
          QUEUE: { 'Fn::GetAtt': [longId, 'QueueName'] },
          BUCKET: { Ref: 'Bucket' },
          TABLE: { Ref: 'Named' },
          STREAM: { 'Fn::GetAtt': ['Named', 'StreamArn'] },
        }),
      },
    };
    const environment = environmentOf(template, { tableStreamArns: { Named: 'arn:local:stream/1' } });
    expect(environment?.QUEUE).toHaveLength(80);
    expect(environment?.QUEUE).toMatch(/^unit-cloud-VeryLong[A-Za-z]+-[0-9a-f]{8}$/);
    expect(environment?.QUEUE).toBe(physicalName(OPTIONS.namePrefix, longId, NAMING_RULES.queue));
    expect(environment?.BUCKET).toBe('unit-cloud-bucket');
    expect(environment?.TABLE).toBe('explicit');
    expect(environment?.STREAM).toBe('arn:local:stream/1');
    expect(environmentOf(template)?.QUEUE).toBe(environment?.QUEUE);
  });

  it('refuses a role with an AWS managed policy, naming it', () => {
    const template = {
      Resources: {
        Role: {
          Type: 'AWS::IAM::Role',
          Properties: {
            AssumeRolePolicyDocument: LAMBDA_TRUST,
            ManagedPolicyArns: [
              { 'Fn::Sub': 'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole' },
            ],
          },
        },
        Fn: fnWith({}),
      },
    };
    expect(() => environmentOf(template)).toThrow(
      /ManagedPolicyArns: AWS managed policies .*AWSLambdaBasicExecutionRole/,
    );
  });

  it('collects inline policies and policies of other templates that name the role', () => {
    const statement = (action: string) => ({ Effect: 'Allow', Action: action, Resource: '*' });
    const deployment = readDeployment(
      writeAssembly({
        Roles: {
          template: {
            Resources: {
              Role: {
                Type: 'AWS::IAM::Role',
                Properties: {
                  AssumeRolePolicyDocument: LAMBDA_TRUST,
                  Policies: [{ PolicyName: 'inline', PolicyDocument: { Statement: statement('a:Inline') } }],
                },
              },
            },
            Outputs: { RoleName: { Value: { Ref: 'Role' }, Export: { Name: 'RoleName' } } },
          },
        },
        Grants: {
          template: {
            Resources: {
              Policy: {
                Type: 'AWS::IAM::Policy',
                Properties: {
                  PolicyDocument: { Statement: [statement('b:Attached')] },
                  Roles: [{ 'Fn::ImportValue': 'RoleName' }],
                },
              },
            },
          },
        },
      }),
      OPTIONS,
    );
    expect(deployment.roles[0]?.policies.flatMap((policy) => policy.Statement.map((s) => s.Action))).toEqual([
      'a:Inline',
      'b:Attached',
    ]);
  });

  it('refuses a function without bundle metadata', () => {
    const template = { Resources: { Role: ROLE, Fn: { ...fnWith({}), Metadata: {} } } };
    expect(() => environmentOf(template)).toThrow(`Resources.Fn.Metadata.${BUNDLE_METADATA_KEY}`);
  });
});
