import { NestedStack, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  AwsIntegration,
  type IAuthorizer,
  Method,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { checkedByGateway } from '../../functions/api/authorizers';
import type { AuthKind, EndpointDefinition } from '../../functions/api/define';
import type { ResourceAccess } from '../../functions/shared/access';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import { functionId } from '../naming';
import { sliceOf } from '../slices';
import type { StatefulExports } from '../stateful-stack';
import { ServiceFunction } from './service-function';
import { StatefulImports } from './stateful-imports';

export interface EndpointGroupProps {
  /** The API the methods join; its resources (paths) and deployment stay in the parent stack. */
  readonly api: RestApi;
  /** The endpoints this group serves; one function per slice (distinct `module`). */
  readonly endpoints: readonly EndpointDefinition[];
  /** The authorizer of every auth kind (other than 'none') the endpoints use. */
  readonly authorizers: Partial<Record<AuthKind, IAuthorizer>>;
  /** The stateful stack's exports: the group imports what its functions may use itself. */
  readonly stateful: StatefulExports;
  /** The API's base URL, given as API_URL to the functions of endpoints that link to the API (`linksToApi`). */
  readonly apiUrl: string;
  readonly logRetention?: RetentionDays;
  /** Bundle the X-Ray SDK into the group's functions (ServiceFunctionProps.xraySdk). */
  readonly xraySdk?: boolean;
}

/**
 * A domain's endpoints in a nested stack of their own: one Lambda per slice, granted
 * exactly the resource access its endpoints declare, with a throttles alarm, and one API Gateway method
 * per endpoint. Nested stacks keep every template far from CloudFormation's 500-resource limit; the
 * parent keeps the API, its paths, authorizers and deployment.
 */
export class EndpointGroup extends NestedStack {
  /** The function of each slice, by its name, e.g. `drivers/list`. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** The API Gateway method of each endpoint, by operationId. */
  readonly methods: ReadonlyMap<string, Method>;

  constructor(scope: Construct, id: string, props: EndpointGroupProps) {
    super(scope, id, { description: `Delivery Route Service: ${id}` });
    const resources = new StatefulImports(this, 'Stateful', props.stateful);
    const functions = new Map<string, ServiceFunction>();
    const methods = new Map<string, Method>();

    for (const [moduleUrl, served] of groupBy(props.endpoints, (endpoint) => endpoint.module)) {
      const slice = sliceOf(moduleUrl);
      const access = resourceAccessOf(slice.name, served);
      const fn = new ServiceFunction(this, functionId(slice.name), {
        slice,
        description: truncate(`${slice.name}: ${served.map((e) => e.operationId).join(', ')}`, 256),
        logRetention: props.logRetention,
        bundledFiles: bundledFilesOf(served),
        xraySdk: props.xraySdk,
      });
      fn.bindAccess(access, resources);
      if (served.some((endpoint) => endpoint.linksToApi))
        fn.addEnvironment(RESOURCE_ENV.apiUrl, props.apiUrl);
      fn.alarmOnThrottles(resources.alarmTopic);
      functions.set(slice.name, fn);

      // A Lambda proxy integration, with one invoke permission per function for the whole API, made here in
      // the nested stack (LambdaIntegration would add it to the parent stack, next to the API).
      const integration = new AwsIntegration({
        proxy: true,
        service: 'lambda',
        path: `2015-03-31/functions/${fn.functionArn}/invocations`,
      });
      fn.addPermission('ApiInvokePermission', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: props.api.arnForExecuteApi('*', '/*', '*'),
      });
      for (const endpoint of served) {
        const method = new Method(this, `${endpoint.operationId}Method`, {
          resource: props.api.root.resourceForPath(endpoint.path),
          httpMethod: endpoint.method,
          integration,
          options: {
            operationName: endpoint.operationId,
            ...authorization(endpoint, props.authorizers),
            apiKeyRequired: apiKeyRequired(endpoint),
          },
        });
        methods.set(endpoint.operationId, method);
        if (endpoint.auth === 'none') {
          Validations.of(method).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${endpoint.method} ${endpoint.path} is public by design (auth 'none' in the endpoint list).`,
          });
        } else if (!checkedByGateway(endpoint.auth)) {
          Validations.of(method).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason:
              `${endpoint.method} ${endpoint.path} takes a driver login token, which its handler looks up on ` +
              'every request so that deleting a driver revokes the token at once (no authorizer cache).',
          });
        }
      }
    }
    this.functions = functions;
    this.methods = methods;
  }
}

/**
 * Whether API Gateway needs the caller's usage key in the accounts' usage plan: on every method that takes an
 * account key, whose authorizer names the account's usage key, so each account is throttled on its own.
 * Driver-token methods have no authorizer (the handler checks the token on every request so that deleting a
 * driver revokes it at once), hence no usage key: the stage and method throttling cover them, as it does the
 * public methods (auth 'none').
 */
export function apiKeyRequired(endpoint: Pick<EndpointDefinition, 'auth'>): boolean {
  return endpoint.auth === 'apiKey';
}

/** The items by key, each group in the items' order: endpoints by slice, or by tag. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Endpoints of one slice share a function: it ships every file any of them reads. */
function bundledFilesOf(served: readonly EndpointDefinition[]): string[] {
  return [...new Set(served.flatMap((endpoint) => endpoint.bundledFiles ?? []))].sort();
}

/** Endpoints of one slice share a function, so they must agree on what it may do. */
function resourceAccessOf(sliceName: string, served: readonly EndpointDefinition[]): ResourceAccess {
  const accesses = new Set(served.map((e) => accessKey(e.access)));
  if (accesses.size > 1) {
    throw new Error(
      `endpoints of slice ${sliceName} declare different access (${[...accesses].join(' vs ')}); ` +
        'they share one Lambda, so give them the same access',
    );
  }
  return served[0]?.access ?? {};
}

/** The same string for the same grants, whatever the key order or the order of `sendTo`. */
function accessKey({
  table,
  tableInserts,
  bucket,
  bucketKeyPrefixes,
  bucketWriteKeyPrefix,
  signLinks,
  sendTo,
}: ResourceAccess): string {
  return JSON.stringify({
    table,
    tableInserts,
    bucket,
    bucketKeyPrefixes: [...(bucketKeyPrefixes ?? [])].sort(),
    bucketWriteKeyPrefix,
    signLinks: signLinks && [signLinks.access, signLinks.keyPrefix, signLinks.createOnly ?? false],
    sendTo: [...new Set((sendTo ?? []).map((channel) => channel.name))].sort(),
  });
}

function authorization(
  endpoint: EndpointDefinition,
  authorizers: Partial<Record<AuthKind, IAuthorizer>>,
): { authorizationType: AuthorizationType; authorizer?: IAuthorizer } {
  if (!checkedByGateway(endpoint.auth)) return { authorizationType: AuthorizationType.NONE };
  const authorizer = authorizers[endpoint.auth];
  if (!authorizer) {
    throw new Error(`no authorizer for auth kind '${endpoint.auth}' (endpoint ${endpoint.operationId})`);
  }
  return { authorizationType: AuthorizationType.CUSTOM, authorizer };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
