/**
 * API Gateway's API keys and usage plan keys on this machine: the keys the templates declare in their usage
 * plans, and those the operator creates at run time through the local AWS endpoint (CreateApiKey,
 * CreateUsagePlanKey: local/aws-proxy/api-gateway.ts). The local API Gateway looks a request's usage key up
 * here. Keys created at run time are kept in a file between runs (npm start), as API Gateway keeps them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { UsagePlanSpec } from '../cloud/model';
import { writeStateFile } from '../state-files';

export interface StoredApiKey {
  id: string;
  name?: string;
  description?: string;
  value: string;
  enabled: boolean;
  /** epoch ms */
  createdDate: number;
}

/** An API Gateway control-plane error, by the type the service answers (ConflictException, ...). */
export class ApiGatewayFault extends Error {
  constructor(
    readonly type: 'BadRequestException' | 'ConflictException' | 'NotFoundException',
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return { BadRequestException: 400, ConflictException: 409, NotFoundException: 404 }[this.type];
  }
}

/** API Gateway's rule for a key value: 20..128 alphanumeric characters. */
const KEY_VALUE = /^[A-Za-z0-9]{20,128}$/;

interface SavedState {
  keys: StoredApiKey[];
  /** Usage plan id -> ids of the keys added to it at run time. */
  planKeys: Record<string, string[]>;
}

export class ApiKeyStore {
  private readonly keys = new Map<string, StoredApiKey>();
  /** Key ids of each usage plan, declared and added. */
  private readonly planKeys = new Map<string, Set<string>>();
  /** The `<api id>/<stage>` each known plan covers. */
  private readonly planStages = new Map<string, Set<string>>();
  /** What was added at run time (what the file keeps). */
  private readonly added: SavedState = { keys: [], planKeys: {} };

  /** `file`: where keys created at run time are kept; absent, they last as long as the process. */
  constructor(private readonly file?: string) {
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedState;
      for (const key of saved.keys) this.remember(key);
      for (const [planId, keyIds] of Object.entries(saved.planKeys))
        for (const keyId of keyIds) this.join(planId, keyId);
    }
  }

  /** The usage plans of a REST API, with the keys its templates put in them. */
  declare(apiId: string, plans: readonly UsagePlanSpec[]): void {
    for (const plan of plans) {
      const stages = this.planStages.get(plan.id) ?? new Set<string>();
      for (const stage of plan.stages) stages.add(`${apiId}/${stage}`);
      this.planStages.set(plan.id, stages);
      if (!this.planKeys.has(plan.id)) this.planKeys.set(plan.id, new Set());
      for (const key of plan.keys) {
        if (!this.keys.has(key.id)) this.keys.set(key.id, { ...key, createdDate: Date.now() });
        this.planKeys.get(plan.id)?.add(key.id);
      }
    }
  }

  createApiKey(input: { name?: string; description?: string; value?: string; enabled?: boolean }) {
    const value = input.value ?? randomBytes(20).toString('hex');
    if (!KEY_VALUE.test(value)) {
      throw new ApiGatewayFault(
        'BadRequestException',
        'API Key value should be at least 20 characters long and only alphanumeric',
      );
    }
    if (this.keyByValue(value)) throw new ApiGatewayFault('ConflictException', 'API Key already exists');
    const key: StoredApiKey = {
      id: randomBytes(5).toString('hex'),
      name: input.name,
      description: input.description,
      value,
      enabled: input.enabled ?? false,
      createdDate: Date.now(),
    };
    this.remember(key);
    this.added.keys.push(key);
    this.save();
    return key;
  }

  /** Keys whose name starts with `nameQuery` (all without one). */
  listApiKeys(nameQuery?: string): StoredApiKey[] {
    return [...this.keys.values()].filter((key) => !nameQuery || (key.name ?? '').startsWith(nameQuery));
  }

  getApiKey(id: string): StoredApiKey {
    const key = this.keys.get(id);
    if (!key) throw new ApiGatewayFault('NotFoundException', 'Invalid API Key identifier specified');
    return key;
  }

  /** CreateUsagePlanKey: a key joins a plan; one key is in one plan per API stage at most. */
  addUsagePlanKey(planId: string, keyId: string): StoredApiKey {
    const members = this.planKeys.get(planId);
    if (!members) throw new ApiGatewayFault('NotFoundException', 'Invalid Usage Plan ID specified');
    const key = this.keys.get(keyId);
    if (!key) throw new ApiGatewayFault('NotFoundException', 'Invalid API Key identifier specified');
    if (members.has(keyId))
      throw new ApiGatewayFault('ConflictException', `API Key ${keyId} is already in Usage Plan ${planId}`);
    const stages = this.planStages.get(planId) ?? new Set();
    for (const [otherPlan, otherMembers] of this.planKeys) {
      const shared = [...(this.planStages.get(otherPlan) ?? [])].some((stage) => stages.has(stage));
      if (otherPlan !== planId && otherMembers.has(keyId) && shared) {
        throw new ApiGatewayFault(
          'ConflictException',
          `Usage Plan ${planId} cannot be added because API Key ${keyId} cannot reference multiple Usage Plans with the same API Stage`,
        );
      }
    }
    this.join(planId, keyId);
    const added = this.added.planKeys[planId] ?? [];
    added.push(keyId);
    this.added.planKeys[planId] = added;
    this.save();
    return key;
  }

  usagePlanKeys(planId: string): StoredApiKey[] {
    const members = this.planKeys.get(planId);
    if (!members) throw new ApiGatewayFault('NotFoundException', 'Invalid Usage Plan ID specified');
    return [...members].flatMap((id) => this.keys.get(id) ?? []);
  }

  keyByValue(value: string): StoredApiKey | undefined {
    for (const key of this.keys.values()) if (key.value === value) return key;
    return undefined;
  }

  inPlan(planId: string, keyId: string): boolean {
    return this.planKeys.get(planId)?.has(keyId) ?? false;
  }

  private remember(key: StoredApiKey): void {
    this.keys.set(key.id, key);
  }

  private join(planId: string, keyId: string): void {
    const members = this.planKeys.get(planId) ?? new Set<string>();
    members.add(keyId);
    this.planKeys.set(planId, members);
  }

  private save(): void {
    if (this.file) writeStateFile(this.file, JSON.stringify(this.added, null, 2));
  }
}
