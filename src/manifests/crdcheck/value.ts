/**
 * A value of a CRD (a default, an enum member) checked as the API server checks a CRD's defaults:
 * the value must survive pruning and pass the schema's value validations. Both are the API
 * server's rules in src/apiserver/structural.ts, the one implementation the fake API server runs
 * on custom resources too; the problems are in the server's words. CEL rules are not evaluated.
 */
import { clone } from '../../apiserver/json.js';
import { errorString, prune, type Schema, validate } from '../../apiserver/structural.js';
import type { JSONSchemaProps } from '../../schema/jsonschema.js';

export interface ValueProblem {
  /** `default.a.b[0]`: where in the value, under `name`. */
  path: string;
  message: string;
  /** The value would lose this field to pruning. */
  pruned?: boolean;
}

/** The problems of `v` under schema `s`, its fields named from `name` (`default`, `enum[0]`). */
export function validateValue(v: unknown, s: JSONSchemaProps, name = 'default'): ValueProblem[] {
  const schema: Schema = s;
  const dropped: string[] = [];
  prune(clone(v), schema, name, dropped);
  const out: ValueProblem[] = dropped.map((path) => ({
    path,
    message: `${path} is a field the schema does not declare: the server would prune it`,
    pruned: true,
  }));
  for (const e of validate(v, schema, name)) out.push({ path: e.field, message: errorString(e) });
  return out;
}
