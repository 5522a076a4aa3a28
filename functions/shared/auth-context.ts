/**
 * What the authorizer learned about the caller, passed to handlers in `requestContext.authorizer`.
 * API Gateway only carries string/number/boolean context values, so lists travel as JSON.
 */
export interface AccountCaller {
  kind: 'apiKey';
  accountId: string;
  dcIds: readonly string[];
}

/** A driver, authenticated by its login token on the driver app's paths. */
export interface DriverCaller {
  kind: 'driverToken';
  accountId: string;
  dcId: string;
  driverId: string;
  /** The token the driver signed in with: writes that trust a cached lookup re-check it. Never logged. */
  loginToken: string;
}

export type Caller = AccountCaller | DriverCaller | { kind: 'none' };

export type AuthorizerContext = Record<string, string>;

export function accountCallerContext(caller: Omit<AccountCaller, 'kind'>): AuthorizerContext {
  return { account_id: caller.accountId, dc_ids: JSON.stringify(caller.dcIds) };
}

export function readAccountCaller(context: Record<string, unknown> | null | undefined): AccountCaller {
  const accountId = context?.account_id;
  const dcIds = context?.dc_ids;
  if (typeof accountId !== 'string' || typeof dcIds !== 'string') {
    throw new Error('authorizer context is missing account_id or dc_ids');
  }
  return { kind: 'apiKey', accountId, dcIds: JSON.parse(dcIds) as string[] };
}
