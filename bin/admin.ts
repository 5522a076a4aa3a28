/**
 * Operator CLI for accounts, DCs and API keys (there is no public sign-up endpoint): USAGE below lists its
 * commands and options. Prints JSON on stdout, run as `npm run --silent admin -- ...` so that npm's own
 * lines stay out of it and it pipes into jq.
 *
 * Targets the local stack of `npm start` (found through <LOCAL_STATE_DIR>/stack.json), or a deployed
 * table with `--table <name>` [--region <region>] and the usual AWS credentials.
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
import { ADMIN_COMMANDS } from './admin-commands';

const USAGE = `Operator CLI for accounts, DCs and API keys. Prints JSON on stdout.

usage: npm run --silent admin -- <command> [options]

commands:
  create-account          --name <name> --dc <id>:<IANA zone>[:<name>] [--dc ...]
                          an account, its first API key (shown once) and its DCs
  register-usage-key      --account <account_id>
                          puts the account's usage key in the usage plan (safe to repeat)
  add-dc                  --account <account_id> --dc <id>:<IANA zone>[:<name>]
  create-api-key          --account <account_id>   another key (shown once); the old ones keep working
  revoke-api-key          --account <account_id> --key-id <key_id>
  set-eta-speed           --account <account_id> --dc <dc_id> --kmh <km/h>
                          the average speed of the DC's ETAs (default 30)
  backfill-driver-routes  puts routes assigned before drivers kept their route sets into those sets (once)
  help                    prints this text

options:
  --table <name>          act on a deployed table (the stateful stack's TableName output) with the usual
                          AWS credentials; without it, on the local stack of npm start
                          (<LOCAL_STATE_DIR>/stack.json, LOCAL_STATE_DIR defaults to .local)
  --region <region>       the deployed table's Region
  --usage-plan <id>       the API stack's UsagePlanId output: create-account and register-usage-key on AWS
  -h, --help              prints this text

examples:
  npm run --silent admin -- create-account --name "Acme Beverages" --dc chi-1:America/Chicago:"Chicago DC"
  npm run --silent admin -- create-api-key --account acc_123 | jq -r .api_key
  npm run --silent admin -- set-eta-speed --account acc_123 --dc chi-1 --kmh 25
  npm run --silent admin -- create-account --table "$TABLE" --region us-east-1 --usage-plan "$PLAN" \\
    --name "First customer" --dc dc-1:America/Chicago

npm's --silent keeps its own lines ("> delivery-route-service@... admin") out of the output.`;

/** A mistake in the command line: one line naming it and where the usage is, exit code 2. */
function fail(message: string): never {
  console.error(`admin: ${message}; run 'npm run --silent admin -- --help' for usage`);
  process.exit(2);
}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
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
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw error;
    // Node's own message, without its advice about positionals that start with '-'.
    const [first] = (error as Error).message.split('. ');
    fail(first ? `${first[0]?.toLowerCase()}${first.slice(1)}` : code);
  }
}

const { positionals, values } = parseCommandLine();

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
if (values.help || command === 'help') {
  console.log(USAGE);
  process.exit(0);
}
if (!command) fail('a command is required');
if (!(ADMIN_COMMANDS as readonly string[]).includes(command)) fail(`unknown command '${command}'`);
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
