import { Stack } from 'aws-cdk-lib';
import type { CfnPolicy, Policy } from 'aws-cdk-lib/aws-iam';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { DeliveryRoutes } from '../../lib/delivery-routes';

/** Every function of the app: authorizers, endpoint handlers and queue consumers. */
export function allFunctions(routes: DeliveryRoutes): ServiceFunction[] {
  const { api } = routes;
  return [
    ...api.authorizerFunctions.values(),
    ...api.endpointFunctions.values(),
    ...api.consumerFunctions.values(),
  ];
}

/** The function built from a handler module (e.g. `workers/deliver-webhooks`). */
export function functionOf(routes: DeliveryRoutes, sliceName: string): ServiceFunction {
  const fn = allFunctions(routes).find((candidate) => candidate.sliceName === sliceName);
  if (!fn) throw new Error(`no function of ${sliceName}`);
  return fn;
}

/**
 * Takes `action` out of the function's role policy, as if CDK had never granted it: the statements are
 * resolved as they will be synthesized, the action removed, and the policy document overridden with the rest.
 */
export function revokeFromRole(fn: ServiceFunction, action: string): void {
  const policy = fn.role?.node.tryFindChild('DefaultPolicy') as Policy | undefined;
  if (!policy) throw new Error(`${fn.sliceName} has no role policy`);
  const document = Stack.of(policy).resolve(policy.document) as {
    Statement: { Action: string | string[] }[];
  };
  const statements = document.Statement.flatMap((statement) => {
    const actions = [statement.Action].flat().filter((candidate) => candidate !== action);
    return actions.length ? [{ ...statement, Action: actions.length === 1 ? actions[0] : actions }] : [];
  });
  if (
    statements.length === document.Statement.length &&
    JSON.stringify(statements) === JSON.stringify(document.Statement)
  )
    throw new Error(`${fn.sliceName}'s role has no ${action} to revoke`);
  (policy.node.defaultChild as CfnPolicy).addPropertyOverride('PolicyDocument', {
    ...document,
    Statement: statements,
  });
}
