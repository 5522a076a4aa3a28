/**
 * Operator CLI for accounts, DCs and API keys (there is no public sign-up endpoint).
 *
 *   npm run admin -- create-account --name <name> --dc <id>:<IANA zone>[:<name>] [--dc ...]
 *   npm run admin -- register-usage-key --account <account_id>
 *   npm run admin -- add-dc --account <account_id> --dc <id>:<IANA zone>[:<name>]
 *   npm run admin -- create-api-key --account <account_id>
 *   npm run admin -- revoke-api-key --account <account_id> --key-id <key_id>
 *   npm run admin -- set-eta-speed --account <account_id> --dc <dc_id> --kmh <km/h>
 *   npm run admin -- backfill-driver-routes   (once, for routes assigned before drivers kept route sets)
 *
 * Targets the local stack of `npm start` (found through <LOCAL_STATE_DIR>/stack.json), or a deployed
 * table with `--table <name>` [--region <region>] and the usual AWS credentials. Prints JSON.
 *
 * create-account also registers the account's usage key with API Gateway (an API key in the accounts'
 * usage plan, `--usage-plan <UsagePlanId output>` on AWS), without which API Gateway refuses the account's
 * requests (403, 1009); register-usage-key finishes a registration that failed, or registers an account
 * made before usage plans. Both are safe to repeat.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as accounts from '../functions/domain/accounts';
import * as usageKeys from '../functions/domain/usage-keys';
import { config, configure } from '../functions/shared/config';

const USAGE = `usage: npm run admin -- <command> [options]
  create-account --name <name> --dc <id>:<IANA zone>[:<name>] [--dc ...]
  register-usage-key --account <account_id>
  add-dc         --account <account_id> --dc <id>:<IANA zone>[:<name>]
  create-api-key --account <account_id>
  revoke-api-key --account <account_id> --key-id <key_id>
  set-eta-speed  --account <account_id> --dc <dc_id> --kmh <average km/h for the DC's ETAs, default 30>
  backfill-driver-routes   puts routes assigned before drivers kept their route sets into those sets (once)
options: --table <name> [--region <region>] --usage-plan <UsagePlanId> to target AWS (the API stack's
  outputs); otherwise the local stack (LOCAL_STATE_DIR, default .local)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    dc: { type: 'string', multiple: true },
    account: { type: 'string' },
    'key-id': { type: 'string' },
    kmh: { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    'usage-plan': { type: 'string' },
  },
});

function parseDc(spec: string) {
  const [dcId, timeZone, ...name] = spec.split(':');
  if (!dcId || !timeZone) fail(`--dc '${spec}' is not <id>:<IANA zone>[:<name>]`);
  return { dcId, timeZone, name: name.length ? name.join(':') : undefined };
}

function required(option: 'name' | 'account' | 'key-id' | 'kmh'): string {
  const value = values[option];
  if (!value) fail(`--${option} is required`);
  return value;
}

/** Points the service's code at the chosen table (its configuration, read on first use). */
function selectTarget(): void {
  if (values.table) {
    configure({
      TABLE_NAME: values.table,
      ...(values.region ? { AWS_REGION: values.region } : {}),
      ...(values['usage-plan'] ? { USAGE_PLAN_ID: values['usage-plan'] } : {}),
    });
    return;
  }
  const stackFile = join(resolve(process.env.LOCAL_STATE_DIR ?? '.local'), 'stack.json');
  if (!existsSync(stackFile))
    fail(`no local stack found at ${stackFile}: run npm start, or pass --table for AWS`);
  const stack = JSON.parse(readFileSync(stackFile, 'utf8'));
  // The SDK's reminder that this machine runs Node 20 (Lambda runs 22) is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  configure({
    TABLE_NAME: stack.table_name,
    AWS_REGION: stack.region,
    AWS_ENDPOINT_URL_DYNAMODB: stack.dynamodb_endpoint,
    AWS_ENDPOINT_URL_API_GATEWAY: stack.aws_endpoint ?? stack.dynamodb_endpoint,
    ...(stack.usage_plan_id ? { USAGE_PLAN_ID: stack.usage_plan_id } : {}),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
}

const [command] = positionals;
if (!command) fail('a command is required');
selectTarget();

/** The usage plan, before anything is written: create-account registers the new account's key in it. */
function usagePlan(): string {
  const id = config().usagePlanId;
  if (!id) fail('--usage-plan <id> is required (the API stack’s UsagePlanId output)');
  return id;
}

try {
  switch (command) {
    case 'create-account': {
      const dcs = (values.dc ?? []).map(parseDc);
      if (dcs.length === 0) fail('create-account needs at least one --dc');
      const planId = usagePlan();
      const created = await accounts.createAccount({ name: required('name'), dcs });
      const printed = {
        account_id: created.accountId,
        api_key: created.apiKey,
        key_id: created.keyId,
        dc_ids: created.dcIds,
      };
      try {
        await usageKeys.registerUsageKey(created.accountId, planId);
      } catch (error) {
        // The account and its key exist: print them (shown once), then say how to finish.
        console.log(JSON.stringify(printed, null, 2));
        throw new usageKeys.UsageKeyNotRegisteredError(created, error);
      }
      console.log(JSON.stringify(printed, null, 2));
      break;
    }
    case 'register-usage-key': {
      const registered = await usageKeys.registerUsageKey(required('account'), usagePlan());
      console.log(
        JSON.stringify(
          {
            account_id: registered.accountId,
            usage_plan_id: registered.usagePlanId,
            api_gateway_key_id: registered.apiKeyId,
          },
          null,
          2,
        ),
      );
      break;
    }
    case 'add-dc': {
      const [spec, ...extra] = values.dc ?? [];
      if (!spec || extra.length) fail('add-dc takes exactly one --dc');
      const dc = parseDc(spec);
      await accounts.addDc(required('account'), dc);
      console.log(JSON.stringify({ account_id: values.account, dc_id: dc.dcId }, null, 2));
      break;
    }
    case 'create-api-key': {
      const issued = await accounts.issueApiKey(required('account'));
      console.log(
        JSON.stringify(
          { account_id: issued.accountId, api_key: issued.apiKey, key_id: issued.keyId },
          null,
          2,
        ),
      );
      break;
    }
    case 'revoke-api-key': {
      await accounts.revokeApiKey(required('account'), required('key-id'));
      console.log(JSON.stringify({ account_id: values.account, revoked_key_id: values['key-id'] }, null, 2));
      break;
    }
    case 'set-eta-speed': {
      const [dcId, ...extra] = values.dc ?? [];
      if (!dcId || extra.length) fail('set-eta-speed takes exactly one --dc <dc_id>');
      const kmh = Number(required('kmh'));
      await accounts.setEtaSpeed(required('account'), dcId, kmh);
      console.log(JSON.stringify({ account_id: values.account, dc_id: dcId, eta_speed_kmh: kmh }, null, 2));
      break;
    }
    case 'backfill-driver-routes': {
      const { backfillDriverRouteSets } = await import('../functions/domain/drivers');
      console.log(JSON.stringify(await backfillDriverRouteSets(), null, 2));
      break;
    }
    default:
      fail(`unknown command '${command}'`);
  }
} catch (error) {
  console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
