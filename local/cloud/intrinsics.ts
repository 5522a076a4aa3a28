/**
 * CloudFormation's intrinsic functions, evaluated against a scope that knows one template's parameters,
 * resources, conditions, mappings and the assembly's exports. Only what templates may contain is accepted:
 * anything else fails with the template and the property path, rather than reaching the local runtime as a
 * half-resolved value.
 */

/** `Ref: AWS::NoValue` (directly or out of an `Fn::If`): the property or list element is left out. */
export const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

/** A template that the local runtime cannot read, with where in which template. */
export class TemplateError extends Error {
  constructor(
    readonly template: string,
    readonly path: string,
    reason: string,
  ) {
    super(`${template}: ${path}: ${reason}`);
    this.name = 'TemplateError';
  }
}

/** What intrinsic functions look up; one scope per template. */
export interface IntrinsicScope {
  /** Names the template in errors (`<stack path> (<file>)`). */
  readonly templateName: string;
  /** A parameter's value, a pseudo parameter's or a resource's Ref value (NO_VALUE for AWS::NoValue). */
  ref(name: string, path: string): unknown;
  getAtt(logicalId: string, attribute: string, path: string): unknown;
  importValue(exportName: string, path: string): unknown;
  /** A named condition of the template's Conditions section. */
  condition(name: string, path: string): boolean;
  findInMap(mapName: string, topKey: string, secondKey: string, path: string): unknown;
}

type Intrinsic = (argument: unknown, scope: IntrinsicScope, path: string) => unknown;

/** Resolves every intrinsic function in `value`; `path` says where `value` is, for errors. */
export function resolveValue(value: unknown, scope: IntrinsicScope, path: string): unknown {
  if (Array.isArray(value)) {
    return value
      .map((item, index) => resolveValue(item, scope, `${path}[${index}]`))
      .filter((item) => item !== NO_VALUE);
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && isIntrinsicName(first[0])) {
    const [name, argument] = first;
    const intrinsic = INTRINSICS[name];
    if (!intrinsic) {
      const reason = CONDITION_FUNCTIONS.has(name)
        ? `${name} is only valid in the Conditions section`
        : `unsupported intrinsic function ${name}`;
      throw new TemplateError(scope.templateName, path, reason);
    }
    return intrinsic(argument, scope, `${path}.${name}`);
  }
  const resolved: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    const result = resolveValue(item, scope, `${path}.${key}`);
    if (result !== NO_VALUE) resolved[key] = result;
  }
  return resolved;
}

/** Evaluates a condition expression: Fn::Equals/Not/And/Or, or `{ Condition: name }`. */
export function evaluateCondition(expression: unknown, scope: IntrinsicScope, path: string): boolean {
  const fail = (reason: string): never => {
    throw new TemplateError(scope.templateName, path, reason);
  };
  if (!isPlainObject(expression)) return fail('a condition must be a condition function');
  const entries = Object.entries(expression);
  const [first] = entries;
  if (entries.length !== 1 || !first) return fail('a condition must be a single condition function');
  const [name, argument] = first;
  const at = `${path}.${name}`;
  switch (name) {
    case 'Condition':
      if (typeof argument !== 'string') return fail('Condition takes a condition name');
      return scope.condition(argument, at);
    case 'Fn::Equals': {
      const [left, right] = argumentList(argument, 2, 2, scope, at);
      return sameValue(resolveValue(left, scope, `${at}[0]`), resolveValue(right, scope, `${at}[1]`));
    }
    case 'Fn::Not': {
      const [operand] = argumentList(argument, 1, 1, scope, at);
      return !evaluateCondition(operand, scope, `${at}[0]`);
    }
    case 'Fn::And':
      return argumentList(argument, 2, 10, scope, at).every((c, i) =>
        evaluateCondition(c, scope, `${at}[${i}]`),
      );
    case 'Fn::Or':
      return argumentList(argument, 2, 10, scope, at).some((c, i) =>
        evaluateCondition(c, scope, `${at}[${i}]`),
      );
    default:
      return fail(`unsupported condition function ${name}`);
  }
}

const CONDITION_FUNCTIONS = new Set(['Fn::Equals', 'Fn::Not', 'Fn::And', 'Fn::Or']);

function isIntrinsicName(key: string): boolean {
  return key === 'Ref' || key.startsWith('Fn::');
}

const INTRINSICS: Record<string, Intrinsic> = {
  Ref(argument, scope, path) {
    if (typeof argument !== 'string') throw new TemplateError(scope.templateName, path, 'Ref takes a name');
    if (argument === 'AWS::NoValue') return NO_VALUE;
    return scope.ref(argument, path);
  },

  'Fn::GetAtt'(argument, scope, path) {
    let parts: unknown[];
    if (typeof argument === 'string') {
      const dot = argument.indexOf('.');
      parts = dot < 0 ? [argument] : [argument.slice(0, dot), argument.slice(dot + 1)];
    } else {
      parts = argumentList(argument, 2, 2, scope, path);
    }
    const [logicalId, attribute] = parts;
    const attributeName = resolveValue(attribute, scope, `${path}[1]`);
    if (typeof logicalId !== 'string' || typeof attributeName !== 'string') {
      throw new TemplateError(scope.templateName, path, 'Fn::GetAtt takes [logicalId, attribute]');
    }
    return scope.getAtt(logicalId, attributeName, path);
  },

  'Fn::Join'(argument, scope, path) {
    const [delimiter, list] = argumentList(argument, 2, 2, scope, path);
    if (typeof delimiter !== 'string') {
      throw new TemplateError(scope.templateName, path, 'Fn::Join takes a string delimiter');
    }
    const items = resolveList(list, scope, `${path}[1]`);
    return items.map((item, index) => scalarString(item, scope, `${path}[1][${index}]`)).join(delimiter);
  },

  'Fn::Select'(argument, scope, path) {
    const [index, list] = argumentList(argument, 2, 2, scope, path);
    const position = Number(resolveValue(index, scope, `${path}[0]`));
    const items = resolveList(list, scope, `${path}[1]`);
    if (!Number.isInteger(position) || position < 0 || position >= items.length) {
      throw new TemplateError(
        scope.templateName,
        path,
        `Fn::Select index ${String(position)} is outside the list of ${items.length}`,
      );
    }
    return items[position];
  },

  'Fn::Split'(argument, scope, path) {
    const [delimiter, source] = argumentList(argument, 2, 2, scope, path);
    if (typeof delimiter !== 'string' || delimiter === '') {
      throw new TemplateError(scope.templateName, path, 'Fn::Split takes a non-empty string delimiter');
    }
    return scalarString(resolveValue(source, scope, `${path}[1]`), scope, `${path}[1]`).split(delimiter);
  },

  'Fn::Sub'(argument, scope, path) {
    let text: unknown = argument;
    let variables: Record<string, unknown> = {};
    if (Array.isArray(argument)) {
      const [template, map] = argumentList(argument, 2, 2, scope, path);
      if (!isPlainObject(map)) {
        throw new TemplateError(scope.templateName, path, 'Fn::Sub takes [string, { variables }]');
      }
      text = template;
      variables = map;
    }
    if (typeof text !== 'string') throw new TemplateError(scope.templateName, path, 'Fn::Sub takes a string');
    return text.replace(/\$\{([^}]*)\}/g, (_match, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (Object.hasOwn(variables, name)) {
        const at = `${path}[1].${name}`;
        return scalarString(resolveValue(variables[name], scope, at), scope, at);
      }
      const dot = name.indexOf('.');
      const value =
        dot < 0 ? scope.ref(name, path) : scope.getAtt(name.slice(0, dot), name.slice(dot + 1), path);
      return scalarString(value, scope, `${path} \${${name}}`);
    });
  },

  'Fn::ImportValue'(argument, scope, path) {
    const name = resolveValue(argument, scope, path);
    if (typeof name !== 'string') {
      throw new TemplateError(scope.templateName, path, 'Fn::ImportValue takes an export name');
    }
    return scope.importValue(name, path);
  },

  'Fn::If'(argument, scope, path) {
    const [condition, whenTrue, whenFalse] = argumentList(argument, 3, 3, scope, path);
    if (typeof condition !== 'string') {
      throw new TemplateError(scope.templateName, path, 'Fn::If takes a condition name first');
    }
    return scope.condition(condition, path)
      ? resolveValue(whenTrue, scope, `${path}[1]`)
      : resolveValue(whenFalse, scope, `${path}[2]`);
  },

  'Fn::Base64'(argument, scope, path) {
    return Buffer.from(scalarString(resolveValue(argument, scope, path), scope, path)).toString('base64');
  },

  'Fn::FindInMap'(argument, scope, path) {
    const keys = argumentList(argument, 3, 3, scope, path).map((key, index) =>
      scalarString(resolveValue(key, scope, `${path}[${index}]`), scope, `${path}[${index}]`),
    );
    const [mapName = '', topKey = '', secondKey = ''] = keys;
    return scope.findInMap(mapName, topKey, secondKey, path);
  },
};

function argumentList(argument: unknown, min: number, max: number, scope: IntrinsicScope, path: string) {
  if (!Array.isArray(argument) || argument.length < min || argument.length > max) {
    const count = min === max ? `${min}` : `${min} to ${max}`;
    throw new TemplateError(scope.templateName, path, `expected a list of ${count} arguments`);
  }
  return argument as unknown[];
}

function resolveList(value: unknown, scope: IntrinsicScope, path: string): unknown[] {
  const list = resolveValue(value, scope, path);
  if (!Array.isArray(list)) throw new TemplateError(scope.templateName, path, 'expected a list');
  return list;
}

/** Strings as they are; numbers and booleans as CloudFormation turns them into strings. */
function scalarString(value: unknown, scope: IntrinsicScope, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TemplateError(scope.templateName, path, `expected a string, got ${JSON.stringify(value)}`);
}

function sameValue(left: unknown, right: unknown): boolean {
  const normalize = (value: unknown) =>
    typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return normalize(left) === normalize(right);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
