import { isPlainObject, TemplateError } from './intrinsics';
import type { CloudTemplates, DeclaredResource } from './templates';

/**
 * Typed reads of one resource's resolved properties by dotted path (`SourceParameters.FilterCriteria`).
 * CloudFormation takes numbers and booleans as strings too ("10", "true"); so does this. A value of the
 * wrong type fails naming the template and the property.
 */
export class ResourceProperties {
  private readonly resolved = new Map<string, unknown>();

  constructor(
    readonly templates: CloudTemplates,
    readonly declared: DeclaredResource,
  ) {}

  get logicalId(): string {
    return this.declared.logicalId;
  }

  get stackPath(): string {
    return this.declared.stack.path;
  }

  /** The resource's physical id (what Ref gives for most types). */
  get physicalId(): string {
    return this.templates.physicalId(this.declared.stack, this.logicalId);
  }

  /** The resolved value at `path` (list items by index: `Policies.0.PolicyDocument`), undefined if absent. */
  value(path: string): unknown {
    const [property = '', ...rest] = path.split('.');
    if (!this.resolved.has(property))
      this.resolved.set(property, this.templates.property(this.declared, property));
    let value = this.resolved.get(property);
    for (const key of rest) {
      if (Array.isArray(value)) value = value[Number(key)];
      else if (isPlainObject(value)) value = value[key];
      else return undefined;
    }
    return value;
  }

  string(path: string): string | undefined {
    const value = this.value(path);
    if (value === undefined || typeof value === 'string') return value;
    throw this.fail(path, `expected a string, got ${JSON.stringify(value)}`);
  }

  requiredString(path: string): string {
    return this.string(path) ?? this.missing(path);
  }

  number(path: string): number | undefined {
    const value = this.value(path);
    if (value === undefined) return undefined;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number)) return number;
    throw this.fail(path, `expected a number, got ${JSON.stringify(value)}`);
  }

  boolean(path: string): boolean | undefined {
    const value = this.value(path);
    if (value === undefined || typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw this.fail(path, `expected a boolean, got ${JSON.stringify(value)}`);
  }

  /** A list property (absent: empty). */
  list(path: string): unknown[] {
    const value = this.value(path);
    if (value === undefined) return [];
    if (Array.isArray(value)) return value;
    throw this.fail(path, `expected a list, got ${JSON.stringify(value)}`);
  }

  /** An object property (absent: undefined). */
  object(path: string): Record<string, unknown> | undefined {
    const value = this.value(path);
    if (value === undefined || isPlainObject(value)) return value;
    throw this.fail(path, `expected an object, got ${JSON.stringify(value)}`);
  }

  /** The patterns of a `FilterCriteria: { Filters: [{ Pattern }] }` property. */
  filterPatterns(path: string): string[] {
    return this.list(`${path}.Filters`).map((filter, index) => {
      const pattern = isPlainObject(filter) ? filter.Pattern : undefined;
      if (typeof pattern !== 'string')
        throw this.fail(`${path}.Filters[${index}].Pattern`, 'expected a string');
      return pattern;
    });
  }

  missing(path: string): never {
    throw this.fail(path, 'is required');
  }

  fail(path: string, reason: string): TemplateError {
    return this.templates.error(this.declared, path, reason);
  }
}

/** Reads each resource of `type` with `read`. */
export function readEach<T>(
  templates: CloudTemplates,
  type: string,
  read: (properties: ResourceProperties) => T,
): T[] {
  return templates.resourcesOfType(type).map((declared) => read(new ResourceProperties(templates, declared)));
}

/** A function's name from what FunctionName-like properties take: a name, an ARN or a partial ARN. */
export function functionNameOf(reference: string): string {
  const parts = reference.split(':');
  if (parts[0] === 'arn') return parts[6] ?? reference;
  // `<account>:function:<name>` or `<name>:<qualifier>`
  if (parts[1] === 'function') return parts[2] ?? reference;
  return parts[0] ?? reference;
}

/** Wraps an error thrown outside a property (e.g. in Metadata) with the template and path. */
export function resourceError(properties: ResourceProperties, path: string, reason: string): TemplateError {
  return new TemplateError(
    properties.templates.templateName(properties.declared.stack),
    `Resources.${properties.logicalId}.${path}`,
    reason,
  );
}
