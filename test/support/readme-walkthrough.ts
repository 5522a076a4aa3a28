import { readFileSync } from 'node:fs';

/**
 * The README's walkthrough as a reader pastes it: the ```sh blocks of its "## Walkthrough" section, in
 * order. Each block starts with a comment asking the question it answers; a `# → ` line shows what the
 * commands above it (since the previous `# → ` line) print, with `…` for what differs from run to run.
 * Consecutive `# → ` lines are consecutive lines of output.
 */
export interface WalkthroughBlock {
  question: string;
  steps: WalkthroughStep[];
}

export interface WalkthroughStep {
  /** Shell lines, comments included, as the README prints them. */
  commands: string;
  /** What the commands print, `…` standing for any text. */
  expected: string;
}

export const WALKTHROUGH_HEADING = '## Walkthrough';
const ANSWER = '# → ';

export function readmeText(): string {
  return readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
}

/** The walkthrough's blocks; throws naming the block that does not say what it answers. */
export function walkthroughBlocks(readme: string): WalkthroughBlock[] {
  const start = readme.indexOf(`\n${WALKTHROUGH_HEADING}\n`);
  if (start < 0) throw new Error(`README has no '${WALKTHROUGH_HEADING}' section`);
  const rest = readme.slice(start + WALKTHROUGH_HEADING.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match, index) =>
    parseBlock(match[1] ?? '', index + 1),
  );
}

function parseBlock(text: string, number: number): WalkthroughBlock {
  const lines = text.replace(/\n$/, '').split('\n');
  const question = lines[0] ?? '';
  if (!/^# .*\?/.test(question))
    throw new Error(`walkthrough block ${number} does not start with the question it answers: '${question}'`);
  const steps: WalkthroughStep[] = [];
  let commands: string[] = [];
  for (let at = 0; at < lines.length; ) {
    if (!lines[at]?.startsWith(ANSWER)) {
      commands.push(lines[at] ?? '');
      at++;
      continue;
    }
    const expected: string[] = [];
    while (lines[at]?.startsWith(ANSWER)) expected.push((lines[at++] ?? '').slice(ANSWER.length));
    if (!commands.some(isCommand))
      throw new Error(`walkthrough block ${number}: '${ANSWER}${expected[0]}' follows no command`);
    steps.push({ commands: commands.join('\n'), expected: expected.join('\n') });
    commands = [];
  }
  if (steps.length === 0) throw new Error(`walkthrough block ${number} shows no answer ('${ANSWER}...')`);
  if (commands.some(isCommand))
    throw new Error(`walkthrough block ${number} ends with commands whose answer it does not show`);
  return { question: question.slice(2), steps };
}

const isCommand = (line: string) => line.trim() !== '' && !line.trimStart().startsWith('#');

/** Whether `output` is what `expected` shows, `…` matching any text (trailing line ends aside). */
export function answers(output: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(output.replace(/\s+$/, ''));
}
