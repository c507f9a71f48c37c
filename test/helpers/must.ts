import assert from 'node:assert/strict';

/**
 * The value, asserted present: what a test writes instead of `value!`. A missing value fails the
 * test here, with `what` in the message, rather than later as "cannot read properties of undefined".
 */
export function must<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) assert.fail(`expected ${what} to be present, got ${value}`);
  return value;
}
