import {
  type CloudAssemblyFiles,
  readCloudAssembly,
  readJson,
  type Template,
  type TemplateResource,
} from './assembly';
import {
  evaluateCondition,
  type IntrinsicScope,
  isPlainObject,
  NO_VALUE,
  resolveValue,
  TemplateError,
} from './intrinsics';
import { type DeploymentOptions, LOCAL_ACCOUNT_ID, LOCAL_REGION } from './model';
import { generatedUuid, NAMING_RULES, physicalName, shortHash } from './physical-ids';
import {
  genericKind,
  localArn,
  RESOURCE_KINDS,
  type ResourceContext,
  type ResourceKind,
} from './resource-types';

/** One template of the assembly: a stack of the app, or a nested stack of one. */
export interface StackTemplate {
  /** `<stack name>` for a stack of the app, `<parent path>/<logical id>` for a nested stack. */
  readonly path: string;
  readonly stackName: string;
  /** The template's file in the assembly directory. */
  readonly file: string;
  readonly template: Template;
  readonly parent?: { readonly stack: StackTemplate; readonly logicalId: string };
}

/** A resource the templates create (its Condition, if any, holds). */
export interface DeclaredResource {
  readonly stack: StackTemplate;
  readonly logicalId: string;
  readonly resource: TemplateResource;
}

const PSEUDO_PARAMETERS: Record<string, (stack: StackTemplate, templates: CloudTemplates) => unknown> = {
  'AWS::AccountId': () => LOCAL_ACCOUNT_ID,
  'AWS::Region': () => LOCAL_REGION,
  'AWS::Partition': () => 'aws',
  'AWS::URLSuffix': () => 'amazonaws.com',
  'AWS::StackName': (stack) => stack.stackName,
  'AWS::StackId': (stack, templates) => templates.stackId(stack),
  'AWS::NotificationARNs': () => [],
};

/**
 * Every template of a cloud assembly, nested stacks included, with each intrinsic function resolved to local
 * physical names, ARNs and URLs. Values are resolved when asked for (and remembered), so a construct the
 * local runtime never reads cannot stop it; what it does read either resolves or fails naming the template
 * and the property path.
 */
export class CloudTemplates {
  readonly stacks: StackTemplate[] = [];
  private readonly stackByPath = new Map<string, StackTemplate>();
  private readonly scopes = new Map<string, IntrinsicScope>();
  private readonly memo = new Map<string, unknown>();
  private readonly inProgress = new Set<string>();
  /** How many templates declare a resource of this type and logical id: a shared one gets a longer name. */
  private readonly declarations = new Map<string, number>();
  private exportIndex?: Map<string, { stack: StackTemplate; outputName: string }>;

  static load(assemblyDir: string, options: DeploymentOptions): CloudTemplates {
    return new CloudTemplates(readCloudAssembly(assemblyDir), options);
  }

  constructor(
    private readonly files: CloudAssemblyFiles,
    readonly options: DeploymentOptions,
  ) {
    for (const stack of files.stacks) {
      this.add({
        path: stack.stackName,
        stackName: stack.stackName,
        file: stack.templateFile,
        template: stack.template,
      });
    }
    // Breadth-first: nested stacks found here are appended, and their own nested stacks found in turn.
    for (let index = 0; index < this.stacks.length; index++) {
      const stack = this.stacks[index];
      if (stack) this.addNestedStacks(stack);
    }
    // Names made while loading (TemplateURLs) did not know every template yet.
    this.memo.clear();
    this.exportIndex = undefined;
  }

  /** The resources of `type` that the templates create, in template order. */
  resourcesOfType(type: string): DeclaredResource[] {
    return this.stacks.flatMap((stack) =>
      Object.entries(stack.template.Resources ?? {})
        .filter(([logicalId, resource]) => resource.Type === type && this.isCreated(stack, logicalId))
        .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
    );
  }

  /** Resolves `value` as it stands at `path` in `stack`'s template (AWS::NoValue: undefined). */
  resolve(stack: StackTemplate, value: unknown, path: string): unknown {
    const resolved = resolveValue(value, this.scope(stack), path);
    return resolved === NO_VALUE ? undefined : resolved;
  }

  /** A resolved property of a resource; undefined when absent. */
  property(declared: DeclaredResource, name: string): unknown {
    return this.resolve(
      declared.stack,
      declared.resource.Properties?.[name],
      `Resources.${declared.logicalId}.Properties.${name}`,
    );
  }

  /** What `Ref` gives for a resource. */
  ref(stack: StackTemplate, logicalId: string): string {
    return this.expectString(
      stack,
      `Resources.${logicalId}`,
      this.refValue(stack, logicalId, `Resources.${logicalId}`),
    );
  }

  /** What `Fn::GetAtt [logicalId, attribute]` gives. */
  getAtt(stack: StackTemplate, logicalId: string, attribute: string): unknown {
    return this.getAttValue(stack, logicalId, attribute, `Resources.${logicalId}`);
  }

  /** A resource's physical id: its name for named resources, the made-up id for API Gateway's. */
  physicalId(stack: StackTemplate, logicalId: string): string {
    const { resource } = this.declared(stack, logicalId, `Resources.${logicalId}`);
    return this.resourceContext(stack, logicalId, resource).id;
  }

  /** An error about a resource's property, naming the template and the path. */
  error(declared: DeclaredResource, propertyPath: string, reason: string): TemplateError {
    return new TemplateError(
      this.templateName(declared.stack),
      `Resources.${declared.logicalId}.Properties.${propertyPath}`,
      reason,
    );
  }

  templateName(stack: StackTemplate): string {
    return `${stack.path} (${stack.file})`;
  }

  stackId(stack: StackTemplate): string {
    return localArn(
      'cloudformation',
      `stack/${stack.stackName}/${generatedUuid(`${this.options.namePrefix}/${stack.path}`)}`,
    );
  }

  private add(stack: StackTemplate): void {
    this.stacks.push(stack);
    this.stackByPath.set(stack.path, stack);
    for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
      const key = `${resource.Type}|${logicalId}`;
      this.declarations.set(key, (this.declarations.get(key) ?? 0) + 1);
    }
  }

  /** Nested stacks are AWS::CloudFormation::Stack resources whose TemplateURL names a template asset. */
  private addNestedStacks(stack: StackTemplate): void {
    for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
      if (resource.Type !== 'AWS::CloudFormation::Stack' || !this.isCreated(stack, logicalId)) continue;
      const path = `Resources.${logicalId}.Properties.TemplateURL`;
      const url = this.expectString(stack, path, this.resolve(stack, resource.Properties?.TemplateURL, path));
      const file = this.files.assetFileByObjectKey.get(url.slice(url.lastIndexOf('/') + 1));
      if (!file) {
        throw new TemplateError(
          this.templateName(stack),
          path,
          `${url} is not a template asset of the assembly`,
        );
      }
      this.add({
        path: `${stack.path}/${logicalId}`,
        stackName: physicalName(stack.stackName, logicalId, NAMING_RULES.stack),
        file,
        template: readJson<Template>(this.files.dir, file),
        parent: { stack, logicalId },
      });
    }
  }

  private scope(stack: StackTemplate): IntrinsicScope {
    let scope = this.scopes.get(stack.path);
    if (!scope) {
      scope = {
        templateName: this.templateName(stack),
        ref: (name, path) => this.refValue(stack, name, path),
        getAtt: (logicalId, attribute, path) => this.getAttValue(stack, logicalId, attribute, path),
        importValue: (name, path) => this.importValue(stack, name, path),
        condition: (name, path) => this.condition(stack, name, path),
        findInMap: (mapName, topKey, secondKey, path) =>
          this.findInMap(stack, [mapName, topKey, secondKey], path),
      };
      this.scopes.set(stack.path, scope);
    }
    return scope;
  }

  private refValue(stack: StackTemplate, name: string, path: string): unknown {
    const pseudo = PSEUDO_PARAMETERS[name];
    if (pseudo) return pseudo(stack, this);
    if (name.startsWith('AWS::')) {
      throw new TemplateError(this.templateName(stack), path, `unsupported pseudo parameter ${name}`);
    }
    if (stack.template.Parameters?.[name]) return this.parameter(stack, name);
    const { resource } = this.declared(stack, name, path);
    if (resource.Type === 'AWS::CloudFormation::Stack') return this.stackId(this.nestedStack(stack, name));
    const kind = this.kindOf(resource.Type);
    const context = this.resourceContext(stack, name, resource);
    return this.withPath(stack, path, () => (kind.ref ? kind.ref(context) : context.id));
  }

  private getAttValue(stack: StackTemplate, logicalId: string, attribute: string, path: string): unknown {
    const { resource } = this.declared(stack, logicalId, path);
    if (resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) {
      return this.output(this.nestedStack(stack, logicalId), attribute.slice('Outputs.'.length), path);
    }
    const read = this.kindOf(resource.Type).attributes[attribute];
    if (!read) {
      throw new TemplateError(
        this.templateName(stack),
        path,
        `Fn::GetAtt ${logicalId}.${attribute}: no such attribute of ${resource.Type} in the local runtime`,
      );
    }
    const context = this.resourceContext(stack, logicalId, resource);
    return this.withPath(stack, path, () => read(context));
  }

  /** The resource `logicalId` of `stack`, which must exist and be created. */
  private declared(stack: StackTemplate, logicalId: string, path: string): DeclaredResource {
    const resource = stack.template.Resources?.[logicalId];
    if (!resource) {
      throw new TemplateError(this.templateName(stack), path, `no parameter or resource named ${logicalId}`);
    }
    if (!this.isCreated(stack, logicalId)) {
      throw new TemplateError(
        this.templateName(stack),
        path,
        `${logicalId} is not created (its condition ${resource.Condition} is false)`,
      );
    }
    return { stack, logicalId, resource };
  }

  private kindOf(type: string): ResourceKind {
    return RESOURCE_KINDS[type] ?? genericKind(type);
  }

  private resourceContext(
    stack: StackTemplate,
    logicalId: string,
    resource: TemplateResource,
  ): ResourceContext {
    const kind = this.kindOf(resource.Type);
    const at = `Resources.${logicalId}`;
    const physicalId = () =>
      this.memoized(stack, at, `id|${stack.path}|${logicalId}`, () => kind.physicalId(context));
    const context: ResourceContext = {
      logicalId,
      stackPath: stack.path,
      options: this.options,
      seed: `${this.options.namePrefix}/${stack.path}/${logicalId}`,
      get id(): string {
        return physicalId();
      },
      property: (name) => this.resolve(stack, resource.Properties?.[name], `${at}.Properties.${name}`),
      explicitName: (property) => {
        const name = context.property(property);
        return name === undefined
          ? undefined
          : this.expectString(stack, `${at}.Properties.${property}`, name);
      },
      generatedName: (rule) =>
        physicalName(this.options.namePrefix, this.uniqueLogicalId(stack, logicalId, resource), rule),
    };
    return context;
  }

  /** The logical id, made unique across templates when more than one declares it for the same type. */
  private uniqueLogicalId(stack: StackTemplate, logicalId: string, resource: TemplateResource): string {
    const shared = (this.declarations.get(`${resource.Type}|${logicalId}`) ?? 0) > 1;
    return shared ? `${logicalId}-${shortHash(stack.path, 6)}` : logicalId;
  }

  private nestedStack(parent: StackTemplate, logicalId: string): StackTemplate {
    const nested = this.stackByPath.get(`${parent.path}/${logicalId}`);
    if (!nested) throw new Error(`nested stack ${parent.path}/${logicalId} was not loaded`);
    return nested;
  }

  private isCreated(stack: StackTemplate, logicalId: string): boolean {
    const condition = stack.template.Resources?.[logicalId]?.Condition;
    return condition === undefined || this.condition(stack, condition, `Resources.${logicalId}.Condition`);
  }

  private condition(stack: StackTemplate, name: string, path: string): boolean {
    const expression = stack.template.Conditions?.[name];
    if (expression === undefined) {
      throw new TemplateError(this.templateName(stack), path, `no condition named ${name}`);
    }
    return this.memoized(stack, path, `condition|${stack.path}|${name}`, () =>
      evaluateCondition(expression, this.scope(stack), `Conditions.${name}`),
    );
  }

  /**
   * A parameter's value: what the parent stack passes a nested stack, else the Default. Lists are split as
   * CloudFormation splits them.
   */
  private parameter(stack: StackTemplate, name: string): unknown {
    const at = `Parameters.${name}`;
    return this.memoized(stack, at, `parameter|${stack.path}|${name}`, () => {
      const declaration = stack.template.Parameters?.[name] ?? {};
      let value: unknown;
      if (stack.parent) {
        const { stack: parent, logicalId } = stack.parent;
        const given = parent.template.Resources?.[logicalId]?.Properties?.Parameters;
        if (isPlainObject(given) && given[name] !== undefined) {
          value = this.resolve(parent, given[name], `Resources.${logicalId}.Properties.Parameters.${name}`);
        }
      }
      value ??= declaration.Default;
      const type = declaration.Type ?? 'String';
      if (type.startsWith('AWS::SSM::Parameter::Value')) {
        throw new TemplateError(
          this.templateName(stack),
          at,
          `is read from SSM parameter ${String(value)}, which the local runtime does not have`,
        );
      }
      if (value === undefined) {
        throw new TemplateError(
          this.templateName(stack),
          at,
          'has no value: no parent stack passes one and it has no Default',
        );
      }
      if ((type === 'CommaDelimitedList' || type.startsWith('List<')) && typeof value === 'string') {
        return value.split(',').map((item) => item.trim());
      }
      return value;
    });
  }

  private output(stack: StackTemplate, name: string, path: string): unknown {
    const output = stack.template.Outputs?.[name];
    if (!output) {
      throw new TemplateError(this.templateName(stack), path, `the template has no output ${name}`);
    }
    return this.memoized(stack, path, `output|${stack.path}|${name}`, () =>
      this.resolve(stack, output.Value, `Outputs.${name}.Value`),
    );
  }

  /** Fn::ImportValue: the value of the output some template of the assembly exports under `name`. */
  private importValue(stack: StackTemplate, name: string, path: string): unknown {
    const exported = this.exports().get(name);
    if (!exported) {
      throw new TemplateError(this.templateName(stack), path, `no stack of the assembly exports ${name}`);
    }
    return this.output(exported.stack, exported.outputName, path);
  }

  private exports(): Map<string, { stack: StackTemplate; outputName: string }> {
    if (this.exportIndex) return this.exportIndex;
    const index = new Map<string, { stack: StackTemplate; outputName: string }>();
    for (const stack of this.stacks) {
      for (const [outputName, output] of Object.entries(stack.template.Outputs ?? {})) {
        if (output.Export === undefined) continue;
        const at = `Outputs.${outputName}`;
        if (output.Condition && !this.condition(stack, output.Condition, `${at}.Condition`)) continue;
        const name = this.expectString(
          stack,
          `${at}.Export.Name`,
          this.resolve(stack, output.Export.Name, `${at}.Export.Name`),
        );
        const other = index.get(name);
        if (other) {
          throw new TemplateError(
            this.templateName(stack),
            at,
            `export ${name} is also exported by ${this.templateName(other.stack)}`,
          );
        }
        index.set(name, { stack, outputName });
      }
    }
    this.exportIndex = index;
    return index;
  }

  private findInMap(stack: StackTemplate, keys: [string, string, string], path: string): unknown {
    const [mapName, topKey, secondKey] = keys;
    const value = stack.template.Mappings?.[mapName]?.[topKey]?.[secondKey];
    if (value === undefined) {
      throw new TemplateError(
        this.templateName(stack),
        path,
        `mapping ${mapName} has no ${topKey}.${secondKey}`,
      );
    }
    return this.resolve(stack, value, `Mappings.${mapName}.${topKey}.${secondKey}`);
  }

  /** Computes a value once; a value that needs itself (a circular reference) is an error. */
  private memoized<T>(stack: StackTemplate, path: string, key: string, compute: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    if (this.inProgress.has(key)) {
      throw new TemplateError(this.templateName(stack), path, 'circular reference');
    }
    this.inProgress.add(key);
    try {
      const value = compute();
      this.memo.set(key, value);
      return value;
    } finally {
      this.inProgress.delete(key);
    }
  }

  /** Resource kinds throw plain errors; they are reported where the template asks for the value. */
  private withPath<T>(stack: StackTemplate, path: string, compute: () => T): T {
    try {
      return compute();
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      throw new TemplateError(this.templateName(stack), path, (error as Error).message);
    }
  }

  private expectString(stack: StackTemplate, path: string, value: unknown): string {
    if (typeof value !== 'string') {
      throw new TemplateError(
        this.templateName(stack),
        path,
        `expected a string, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  }
}
