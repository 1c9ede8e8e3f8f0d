// Small type guards for request bodies the models read (plain JSON values).

export type JsonRecord = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;

export const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export const hasOwn = (record: JsonRecord, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);
