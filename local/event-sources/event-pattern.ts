/**
 * EventBridge event patterns, as EventBridge Pipes and Lambda event source mappings filter records with
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns.html): every key of the pattern
 * must match; a list matches when any of its entries matches the value (or, when the value is a list, any of
 * its elements); an object descends into the value. Comparison operators supported: prefix, suffix,
 * anything-but, numeric, exists, equals-ignore-case, wildcard. Others throw rather than match loosely.
 */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (!isObject(pattern))
    throw new Error(`an event pattern must be an object, not ${JSON.stringify(pattern)}`);
  return Object.entries(pattern).every(([key, expected]) =>
    matchesField(expected, isObject(value) ? value[key] : undefined),
  );
}

function matchesField(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    const candidates = Array.isArray(actual) ? actual : [actual];
    return expected.some((entry) =>
      isObject(entry)
        ? matchesOperator(entry, actual, candidates)
        : candidates.some((c) => c !== undefined && c === entry),
    );
  }
  if (isObject(expected)) return isObject(actual) && matchesPattern(expected, actual);
  throw new Error(`event pattern values must be lists or objects, not ${JSON.stringify(expected)}`);
}

function matchesOperator(operator: Record<string, unknown>, actual: unknown, candidates: unknown[]): boolean {
  const [name, argument] = Object.entries(operator)[0] ?? [];
  switch (name) {
    case 'exists':
      return argument === (actual !== undefined);
    case 'prefix':
      return candidates.some((c) => typeof c === 'string' && matchesAffix(c, argument, 'prefix'));
    case 'suffix':
      return candidates.some((c) => typeof c === 'string' && matchesAffix(c, argument, 'suffix'));
    case 'equals-ignore-case':
      return candidates.some(
        (c) =>
          typeof c === 'string' && typeof argument === 'string' && c.toLowerCase() === argument.toLowerCase(),
      );
    case 'wildcard':
      return candidates.some(
        (c) => typeof c === 'string' && typeof argument === 'string' && wildcard(argument).test(c),
      );
    case 'numeric':
      return candidates.some((c) => typeof c === 'number' && matchesNumeric(c, argument));
    case 'anything-but':
      return actual !== undefined && candidates.every((c) => !matchesAnythingBut(argument, c));
    default:
      throw new Error(`event pattern operator ${JSON.stringify(operator)} is not supported locally`);
  }
}

/** True when `value` is one of what anything-but excludes. */
function matchesAnythingBut(excluded: unknown, value: unknown): boolean {
  if (Array.isArray(excluded)) return excluded.includes(value);
  if (isObject(excluded)) {
    if ('prefix' in excluded)
      return typeof value === 'string' && matchesAffix(value, excluded.prefix, 'prefix');
    if ('suffix' in excluded)
      return typeof value === 'string' && matchesAffix(value, excluded.suffix, 'suffix');
    throw new Error(`anything-but ${JSON.stringify(excluded)} is not supported locally`);
  }
  return value === excluded;
}

function matchesAffix(value: string, argument: unknown, kind: 'prefix' | 'suffix'): boolean {
  const text = isObject(argument) ? argument['equals-ignore-case'] : argument;
  if (typeof text !== 'string') throw new Error(`${kind} needs a string, not ${JSON.stringify(argument)}`);
  const [subject, affix] = isObject(argument) ? [value.toLowerCase(), text.toLowerCase()] : [value, text];
  return kind === 'prefix' ? subject.startsWith(affix) : subject.endsWith(affix);
}

function matchesNumeric(value: number, conditions: unknown): boolean {
  if (!Array.isArray(conditions) || conditions.length % 2 !== 0)
    throw new Error(`numeric needs operator/value pairs, not ${JSON.stringify(conditions)}`);
  for (let i = 0; i < conditions.length; i += 2) {
    const [operator, bound] = [conditions[i], Number(conditions[i + 1])];
    const holds =
      operator === '='
        ? value === bound
        : operator === '<'
          ? value < bound
          : operator === '<='
            ? value <= bound
            : operator === '>'
              ? value > bound
              : operator === '>='
                ? value >= bound
                : undefined;
    if (holds === undefined) throw new Error(`numeric operator ${String(operator)} is not supported`);
    if (!holds) return false;
  }
  return true;
}

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
