/**
 * The PartiQL statements the local runtime understands: only what the service sends, an INSERT of one item
 * whose values are all parameters (`INSERT INTO "<table>" VALUE {'<name>': ?, ...}`, functions/data/client.ts
 * insertItems), in a BatchExecuteStatement. Its IAM action is dynamodb:PartiQLInsert on the table ("IAM
 * security policies with PartiQL for DynamoDB": "To insert items using PartiQL for DynamoDB, you must have
 * dynamodb:PartiQLInsert permission on the table or index"), and the partition model meters it as a
 * conditional put of that item. Any other statement (literal values, SELECT, UPDATE, DELETE, ...) is read as
 * nothing: the proxy then refuses it rather than let it through unchecked and uncounted.
 */

/** An attribute value as it travels in DynamoDB's JSON protocol ({ S: 'x' }, { N: '1' }, ...). */
export type WireValue = Record<string, unknown>;

export interface PartiqlInsert {
  /** As named in the statement: a table's name (or its ARN, which DynamoDB accepts there too). */
  table: string;
  item: Record<string, WireValue>;
}

const INSERT = /^\s*INSERT\s+INTO\s+(?:"([^"]+)"|([A-Za-z0-9_.-]+))\s+VALUE\s+\{([^{}]*)\}\s*$/i;
const PARAMETER_ATTRIBUTE = /^\s*'((?:[^']|'')+)'\s*:\s*\?\s*$/;

/** The insert a statement makes with its parameters, or undefined for any statement of another form. */
export function parseInsert(statement: unknown, parameters: unknown): PartiqlInsert | undefined {
  if (typeof statement !== 'string') return undefined;
  const match = INSERT.exec(statement);
  if (!match) return undefined;
  const values = parameters ?? [];
  if (!Array.isArray(values)) return undefined;
  const attributes = (match[3] as string).split(',');
  if (attributes.length !== values.length) return undefined;
  const item: Record<string, WireValue> = {};
  for (const [index, attribute] of attributes.entries()) {
    const name = PARAMETER_ATTRIBUTE.exec(attribute)?.[1]?.replaceAll("''", "'");
    const value = values[index];
    if (name === undefined || name in item || typeof value !== 'object' || value === null) return undefined;
    item[name] = value as WireValue;
  }
  return { table: (match[1] ?? match[2]) as string, item };
}

/** The statements of a BatchExecuteStatement, each read as an insert (undefined where it is not one). */
export function batchInserts(input: Record<string, unknown>): (PartiqlInsert | undefined)[] | undefined {
  const statements = input.Statements;
  if (!Array.isArray(statements)) return undefined;
  return statements.map((entry) =>
    typeof entry === 'object' && entry !== null
      ? parseInsert(
          (entry as Record<string, unknown>).Statement,
          (entry as Record<string, unknown>).Parameters,
        )
      : undefined,
  );
}
