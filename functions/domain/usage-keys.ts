/**
 * Accounts' usage keys: each account has one API Gateway API key, whose value is stored on the account item
 * and returned by the API key authorizer as the usage identifier; the key belongs to the accounts' usage plan,
 * whose throttle therefore holds per account, whichever of the account's own API keys a client sends.
 *
 * Operator code (admin CLI, `npm start`'s demo account, tests): it calls API Gateway's control plane
 * (functions/data/api-gateway-keys.ts) with the operator's credentials. The plan's id is the API stack's
 * UsagePlanId output (USAGE_PLAN_ID; the local stack writes it to stack.json).
 */
import { getAccount, setUsageKeyOnce } from '../data/accounts';
import { addKeyToUsagePlan, createApiKey, findApiKeys } from '../data/api-gateway-keys';
import { config } from '../shared/config';
import { createAccount, newUsageKey } from './accounts';

export interface RegisteredUsageKey {
  accountId: string;
  usagePlanId: string;
  /** The API Gateway API key's id (its value stays on the account item and is never printed). */
  apiKeyId: string;
}

/** The usage plan of USAGE_PLAN_ID, the API stack's UsagePlanId output. */
export function usagePlanFromEnvironment(): string {
  const id = config().usagePlanId;
  if (!id)
    throw new Error('USAGE_PLAN_ID is not set: pass the API stack’s UsagePlanId output (--usage-plan)');
  return id;
}

/**
 * Makes sure the account's usage key exists in API Gateway and belongs to the usage plan: gives the account a
 * usage key value if it has none (accounts made before usage plans), creates the API key named after the
 * account with that value unless it exists, and adds it to the plan unless it is there. Safe to repeat; a
 * failed registration is finished by running it again. Requests of the account pass once it is done (an
 * authorizer result cached before, without the key, lasts up to the authorizer's cache TTL).
 */
export async function registerUsageKey(
  accountId: string,
  usagePlanId: string = usagePlanFromEnvironment(),
): Promise<RegisteredUsageKey> {
  const account = await getAccount(accountId);
  if (!account) throw new Error(`account '${accountId}' does not exist`);
  const value = account.usageKey ?? (await setUsageKeyOnce(accountId, newUsageKey()));
  if (!value) throw new Error(`account '${accountId}' does not exist`);
  const name = accountId;
  const existing = (await findApiKeys(name)).find((key) => key.name === name && key.value === value);
  const key =
    existing ??
    (await createApiKey({
      name,
      value,
      description: `Delivery Route Service: usage key of account ${accountId}`,
    }));
  // False when the key is in the plan already: the registration was done before.
  await addKeyToUsagePlan(usagePlanId, key.id);
  return { accountId, usagePlanId, apiKeyId: key.id };
}

/**
 * createAccount, then registerUsageKey: an account whose requests pass. When the registration fails, the
 * error names the account (it exists, with its key) and the command that finishes it.
 */
export async function createAccountWithUsageKey(
  input: Parameters<typeof createAccount>[0],
  usagePlanId: string = usagePlanFromEnvironment(),
) {
  const created = await createAccount(input);
  try {
    const registered = await registerUsageKey(created.accountId, usagePlanId);
    return { ...created, usageKeyId: registered.apiKeyId };
  } catch (error) {
    throw new UsageKeyNotRegisteredError(created, error);
  }
}

/** The account was created but its usage key is not in the usage plan yet. */
export class UsageKeyNotRegisteredError extends Error {
  constructor(
    readonly created: Awaited<ReturnType<typeof createAccount>>,
    cause: unknown,
  ) {
    super(
      `account '${created.accountId}' was created, but its usage key is not registered with API Gateway ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); until it is, API Gateway refuses its ` +
        `requests: npm run --silent admin -- register-usage-key --account ${created.accountId}`,
      { cause },
    );
    this.name = 'UsageKeyNotRegisteredError';
  }
}
