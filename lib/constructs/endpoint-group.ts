import { Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  type IAuthorizer,
  LambdaIntegration,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { checkedByGateway } from '../../functions/endpoints/authorizers';
import type { AuthKind, EndpointDefinition, ResourceAccess } from '../../functions/endpoints/define';
import { functionId } from '../naming';
import { ServiceFunction } from './service-function';
import type { ServiceResources } from './stateful-imports';

export interface EndpointGroupProps {
  readonly api: RestApi;
  /** The endpoints this group serves; one function per distinct `handler`. */
  readonly endpoints: readonly EndpointDefinition[];
  /** The authorizer of every auth kind (other than 'none') the endpoints use. */
  readonly authorizers: Partial<Record<AuthKind, IAuthorizer>>;
  /** What the endpoints' `access` may name: the table, the bucket and the queues. */
  readonly resources: ServiceResources;
  readonly logRetention?: RetentionDays;
}

/**
 * A group of endpoints: one Lambda per distinct handler module, granted exactly the resource access its
 * endpoints declare, and one API Gateway method per endpoint. Everything a group creates hangs off the
 * group, so a domain's endpoints can move to their own (nested) stack when the API outgrows one stack.
 */
export class EndpointGroup extends Construct {
  /** The function of each handler module, e.g. `drivers/list`. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: EndpointGroupProps) {
    super(scope, id);
    const functions = new Map<string, ServiceFunction>();

    for (const [handlerModule, served] of groupByHandler(props.endpoints)) {
      const access = resourceAccessOf(handlerModule, served);
      const fn = new ServiceFunction(this, functionId(handlerModule), {
        handlerModule,
        description: truncate(`${handlerModule}: ${served.map((e) => e.operationId).join(', ')}`, 256),
        logRetention: props.logRetention,
      });
      fn.bindAccess(access, props.resources);
      functions.set(handlerModule, fn);

      // One integration per function; scopePermissionToMethod: false makes all its methods share a single
      // lambda:InvokeFunction permission scoped to this API, instead of two permissions per method.
      const integration = new LambdaIntegration(fn, { scopePermissionToMethod: false });
      for (const endpoint of served) {
        const method = props.api.root.resourceForPath(endpoint.path).addMethod(endpoint.method, integration, {
          operationName: endpoint.operationId,
          ...authorization(endpoint, props.authorizers),
        });
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
  }
}

function groupByHandler(endpoints: readonly EndpointDefinition[]): Map<string, EndpointDefinition[]> {
  const groups = new Map<string, EndpointDefinition[]>();
  for (const endpoint of endpoints) {
    const group = groups.get(endpoint.handler);
    if (group) group.push(endpoint);
    else groups.set(endpoint.handler, [endpoint]);
  }
  return groups;
}

/** Endpoints sharing a handler share a function, so they must agree on what it may do. */
function resourceAccessOf(handlerModule: string, served: readonly EndpointDefinition[]): ResourceAccess {
  const accesses = new Set(served.map((e) => accessKey(e.access)));
  if (accesses.size > 1) {
    throw new Error(
      `endpoints of handler ${handlerModule} declare different access (${[...accesses].join(' vs ')}); ` +
        'they share one Lambda, so give them the same access',
    );
  }
  return served[0]?.access ?? {};
}

/** The same string for the same grants, whatever the key order or the order of `sendTo`. */
function accessKey({ table, bucket, sendTo }: ResourceAccess): string {
  return JSON.stringify({ table, bucket, sendTo: [...new Set(sendTo ?? [])].sort() });
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
