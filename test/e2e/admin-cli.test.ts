import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_COMMANDS } from '../../bin/admin-commands';
import * as dcs from '../../functions/api/dcs/index';
import { getDc } from '../../functions/data/accounts';
import { createAccount, issueApiKey } from '../../functions/domain/accounts';
import { call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';

const run = promisify(execFile);
/** `npm run admin`'s command (package.json): node with tsx's loader, in one process. */
const ADMIN = [process.execPath, '--import', 'tsx', 'bin/admin.ts'] as const;
let api: TestApi;
let stateDir: string;

/** Runs `npm run admin -- ...` the way an operator would, against this file's local stack. */
async function admin(...args: string[]) {
  return adminWith({}, ...args);
}

async function adminWith(env: Record<string, string | undefined>, ...args: string[]) {
  try {
    const { stdout } = await run(ADMIN[0], [...ADMIN.slice(1), ...args], {
      env: { ...process.env, LOCAL_STATE_DIR: stateDir, ...env },
    });
    return { code: 0, json: JSON.parse(stdout), stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, json: undefined, stderr: failed.stderr };
  }
}

/** Runs a command (a shell line with `sh -c`) against this file's local stack; never throws. */
async function runRaw(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(file, args, {
      env: { ...process.env, LOCAL_STATE_DIR: stateDir, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The docs a reader copies admin commands from. */
const DOCS = ['README.md', ...readdirSync('docs').map((name) => `docs/${name}`)].filter((path) =>
  path.endsWith('.md'),
);

/** The admin command lines of the docs' shell blocks, continuation lines joined, in order. */
function adminLinesOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))
    .filter((line) => /^npm run\b.*\badmin\b/.test(line));
}

beforeAll(async () => {
  api = await startTestApi('admin');
  stateDir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  writeFileSync(
    join(stateDir, 'stack.json'),
    JSON.stringify({
      table_name: api.tableName,
      region: process.env.AWS_REGION,
      dynamodb_endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
      aws_endpoint: process.env.AWS_ENDPOINT_URL_API_GATEWAY,
      usage_plan_id: api.cloud.operatorEnvironment.USAGE_PLAN_ID,
    }),
  );
});

afterAll(async () => {
  await api?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('npm run admin', () => {
  let account: { account_id: string; api_key: string; key_id: string; dc_ids: string[] };

  it('create-account prints the account id, a working API key and the DC ids', async () => {
    const result = await admin(
      'create-account',
      '--name',
      'Acme',
      '--dc',
      'chi:America/Chicago:Chicago DC',
      '--dc',
      'ber:Europe/Berlin',
    );
    expect(result.code, result.stderr).toBe(0);
    account = result.json;
    expect(account).toEqual({
      account_id: expect.stringMatching(/^acc_/),
      api_key: expect.stringMatching(/^drs_/),
      key_id: expect.any(String),
      dc_ids: ['chi', 'ber'],
    });
    const listed = expectSuccess(await call(api.url, 'GET', '/dcs', { key: account.api_key }), dcs.listDcs);
    expect(listed).toEqual({
      dcs: [
        { id: 'ber', name: 'ber', time_zone: 'Europe/Berlin' },
        { id: 'chi', name: 'Chicago DC', time_zone: 'America/Chicago' },
      ],
    });
  });

  it('add-dc adds a DC the account’s keys can use', async () => {
    const result = await admin('add-dc', '--account', account.account_id, '--dc', 'tyo:Asia/Tokyo');
    expect(result.code, result.stderr).toBe(0);
    const fresh = await admin('create-api-key', '--account', account.account_id);
    const listed = expectSuccess(
      await call(api.url, 'GET', '/dcs', { key: fresh.json.api_key }),
      dcs.listDcs,
    ) as { dcs: { id: string }[] };
    expect(listed.dcs.map((dc) => dc.id)).toContain('tyo');
  });

  it('create-api-key issues another key and revoke-api-key turns it off', async () => {
    const created = await admin('create-api-key', '--account', account.account_id);
    expect(created.code, created.stderr).toBe(0);
    const revoked = await admin(
      'revoke-api-key',
      '--account',
      account.account_id,
      '--key-id',
      created.json.key_id,
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    expectError(await call(api.url, 'GET', '/dcs', { key: created.json.api_key }), 401, 1001);
  });

  it('set-eta-speed stores the speed the DC’s ETAs use', async () => {
    const result = await admin(
      'set-eta-speed',
      '--account',
      account.account_id,
      '--dc',
      'chi',
      '--kmh',
      '42.5',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toEqual({ account_id: account.account_id, dc_id: 'chi', eta_speed_kmh: 42.5 });
    expect((await getDc(account.account_id, 'chi'))?.etaSpeedKmh).toBe(42.5);
    expect((await getDc(account.account_id, 'ber'))?.etaSpeedKmh).toBeUndefined();
  });

  it.each([
    ['an unknown time zone', ['create-account', '--name', 'X', '--dc', 'a:Mars/Olympus']],
    ['a DC without a zone', ['create-account', '--name', 'X', '--dc', 'a']],
    ['no DC', ['create-account', '--name', 'X']],
    ['an unknown command', ['make-coffee']],
    ['an account that does not exist', ['create-api-key', '--account', 'acc_missing']],
    [
      'a key id the account does not have',
      ['revoke-api-key', '--account', 'acc_missing', '--key-id', 'key_x'],
    ],
    ['a speed of 0', ['set-eta-speed', '--account', 'acc_missing', '--dc', 'chi', '--kmh', '0']],
    [
      'a speed that is not a number',
      ['set-eta-speed', '--account', 'acc_missing', '--dc', 'chi', '--kmh', 'fast'],
    ],
    [
      'a DC the account does not have',
      ['set-eta-speed', '--account', 'acc_missing', '--dc', 'chi', '--kmh', '30'],
    ],
    ['a usage key of an account that does not exist', ['register-usage-key', '--account', 'acc_missing']],
  ])('fails with a message and a non-zero exit for %s', async (_, args) => {
    const result = await admin(...args);
    expect(result.code).not.toBe(0);
    expect(result.stderr.length).toBeGreaterThan(0);
  });

  it('register-usage-key enables an account whose usage key is not in the usage plan, and may be repeated', async () => {
    const bare = await createAccount({ name: 'Unregistered', dcs: [{ dcId: 'chi', timeZone: 'UTC' }] });
    expectError(await call(api.url, 'GET', '/dcs', { key: bare.apiKey }), 403, 1009);

    const result = await admin('register-usage-key', '--account', bare.accountId);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toEqual({
      account_id: bare.accountId,
      usage_plan_id: api.cloud.operatorEnvironment.USAGE_PLAN_ID,
      api_gateway_key_id: expect.any(String),
    });
    // The refused key's authorizer result is cached for a minute; a new key is authorized afresh.
    const fresh = await issueApiKey(bare.accountId);
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: fresh.apiKey }), dcs.listDcs);
    const again = await admin('register-usage-key', '--account', bare.accountId);
    expect(again.json).toEqual(result.json);
  });

  it('needs --usage-plan to create an account on AWS, and says so before writing anything', async () => {
    const args = ['create-account', '--table', 'some-table', '--name', 'X', '--dc', 'a:UTC'];
    const result = await adminWith({ USAGE_PLAN_ID: undefined }, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--usage-plan');
  });

  it.each(['--help', '-h', 'help', 'create-account --help'])(
    'prints its usage for `%s` and exits 0, without a stack to act on',
    async (args) => {
      const result = await runRaw(ADMIN[0], [...ADMIN.slice(1), ...args.split(' ')], {
        LOCAL_STATE_DIR: mkdtempSync(join(stateDir, 'empty-')),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('usage: npm run --silent admin -- <command> [options]');
      for (const command of [...ADMIN_COMMANDS, '--table', '--region', '--usage-plan', 'examples:']) {
        expect(result.stdout).toContain(command);
      }
    },
  );

  it('prints only its usage on stdout for npm run --silent admin -- --help', async () => {
    const result = await runRaw('npm', ['run', '--silent', 'admin', '--', '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith('Operator CLI for accounts, DCs and API keys.')).toBe(true);
  });

  it('refuses an unknown option in one line that points to --help, exit code 2', async () => {
    const result = await runRaw(ADMIN[0], [...ADMIN.slice(1), 'create-account', '--frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      "admin: unknown option '--frobnicate'; run 'npm run --silent admin -- --help' for usage",
    ]);
  });

  it('is run silently wherever the docs print it, so that npm adds no lines to its JSON', () => {
    for (const path of DOCS) {
      for (const [mention] of readFileSync(path, 'utf8').matchAll(/npm run\b[^`\n]*?\badmin\b/g)) {
        expect(mention, path).toBe('npm run --silent admin');
      }
    }
  });

  it('prints JSON a parser reads when the docs’ local commands are run as printed', async () => {
    const lines = DOCS.flatMap((path) => adminLinesOf(readFileSync(path, 'utf8'))).filter(
      (line) => !line.includes('--table'),
    );
    expect(lines.map((line) => /admin -- (\S+)/.exec(line)?.[1])).toEqual(ADMIN_COMMANDS);
    // The account and key ids the docs leave to the reader come from their own create-account line.
    let printed: { account_id: string; key_id: string } | undefined;
    for (const line of lines) {
      const filled = printed
        ? line.replaceAll('acc_…', printed.account_id).replaceAll('key_…', printed.key_id)
        : line;
      const result = await runRaw('sh', ['-c', filled]);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      if (line.includes('| jq -r .api_key')) {
        expect(result.stdout, line).toMatch(/^drs_\S+\n$/);
        continue;
      }
      const json = JSON.parse(result.stdout);
      expect(json, line).toBeTypeOf('object');
      printed ??= json;
    }
    expect(printed?.account_id).toMatch(/^acc_/);
  }, 180_000);

  it('refuses a DC id the account already has', async () => {
    const result = await admin('add-dc', '--account', account.account_id, '--dc', 'chi:America/Chicago');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('chi');
  });
});
