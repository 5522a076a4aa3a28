/**
 * The single table's key schema, defined once: CDK, the local runtime and the entity modules read it.
 * Entity modules own the key *values* (`ACCOUNT#...`); nothing else builds keys.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after. */
  ttlAttribute: 'expires_at',
  indexes: {
    /** Sparse: only items that need a second access path carry gsi1pk/gsi1sk. */
    gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    /** Routes by DC and DC-local date of their start time. */
    gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  },
} as const;

export type TableKey = { pk: string; sk: string };
