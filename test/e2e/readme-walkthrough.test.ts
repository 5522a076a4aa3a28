import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  killStartedRuntimes,
  STARTING_TEST_TIMEOUT_MS,
  type StartedRuntime,
  startRuntime,
  stopRuntime,
} from '../support/npm-start';
import { answers, readmeText, walkthroughBlocks } from '../support/readme-walkthrough';

/**
 * The README's walkthrough pasted in order into one shell, as a newcomer does: against `npm start` (on a
 * free port, with a state directory of its own), with the API key it printed, in an empty directory.
 * Every step must print what its `# → ` lines show.
 */

/** What the reader types in the first block: the address npm start listens on and the key it printed. */
const TYPED_BY_THE_READER = { api: 'API=http://127.0.0.1:3000', key: 'KEY=drs_…' };
/** The walkthrough waits on imports, deliveries and an export: about 30 s on a busy 2-core machine. */
const WALKTHROUGH_DEADLINE_MS = 180_000;

const stateDir = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
let runtime: StartedRuntime | undefined;

afterAll(async () => {
  if (runtime) await stopRuntime(runtime);
  killStartedRuntimes();
  rmSync(stateDir, { recursive: true, force: true });
});

/** One step of the walkthrough as the shell runs it, its output written to `<name>.out` and `<name>.err`. */
interface ShellStep {
  name: string;
  block: number;
  question: string;
  commands: string;
  expected: string;
}

/**
 * Runs every step in one bash session (variables carry from block to block), each step's output to
 * files of its own; past the deadline the session is killed and the steps it did not reach have none.
 * Answers what the shell itself wrote to stderr (a syntax error, say).
 */
async function runInOneShell(script: string, workDir: string): Promise<string> {
  const scriptPath = join(workDir, '..', 'walkthrough.sh');
  writeFileSync(scriptPath, script);
  const shell = spawn('bash', [scriptPath], {
    cwd: workDir,
    env: { PATH: process.env.PATH ?? '', HOME: workDir, LC_ALL: 'C.UTF-8' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  shell.stderr?.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => process.kill(-(shell.pid as number), 'SIGKILL'), WALKTHROUGH_DEADLINE_MS);
  await new Promise((resolve) => shell.once('exit', resolve));
  clearTimeout(timer);
  return stderr;
}

describe('README walkthrough', () => {
  it(
    'answers every step as its comment says, pasted in order against npm start',
    async () => {
      const blocks = walkthroughBlocks(readmeText());
      const first = blocks[0]?.steps[0]?.commands ?? '';
      for (const typed of Object.values(TYPED_BY_THE_READER))
        expect(
          first.split('\n').some((line) => line.startsWith(typed)),
          `a line of the first block starts with '${typed}'`,
        ).toBe(true);

      runtime = await startRuntime(stateDir, {});
      const outputs = join(stateDir, 'walkthrough-output');
      const workDir = join(stateDir, 'walkthrough', 'cwd');
      mkdirSync(outputs);
      mkdirSync(workDir, { recursive: true });

      const steps: ShellStep[] = blocks.flatMap((block, blockIndex) =>
        block.steps.map((step, stepIndex) => ({
          name: `${blockIndex + 1}-${stepIndex + 1}`,
          block: blockIndex + 1,
          question: block.question,
          ...step,
        })),
      );
      const typed = (commands: string) =>
        commands
          .replace(TYPED_BY_THE_READER.api, `API=${runtime?.apiUrl}`)
          .replace(TYPED_BY_THE_READER.key, `KEY=${runtime?.apiKey}`);
      const script = steps.map(
        ({ name, commands }, index) =>
          `{\n${index === 0 ? typed(commands) : commands}\n} > '${outputs}/${name}.out' 2> '${outputs}/${name}.err'`,
      );
      const shellErrors = await runInOneShell(`${script.join('\n')}\n`, workDir);

      for (const step of steps) {
        const output = (stream: string) => {
          const file = join(outputs, `${step.name}.${stream}`);
          return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
        };
        const stdout = output('out');
        const context = [
          `block ${step.block} ("${step.question}"), step ${step.name}:`,
          step.commands,
          `expected: ${step.expected}`,
          stdout === undefined ? 'not reached before the deadline' : `printed:  ${stdout}`,
          `stderr: ${output('err') ?? ''}${shellErrors}`,
        ].join('\n');
        expect(stdout !== undefined && answers(stdout, step.expected), context).toBe(true);
      }
    },
    STARTING_TEST_TIMEOUT_MS + WALKTHROUGH_DEADLINE_MS,
  );
});
