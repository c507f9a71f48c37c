// Each decorator's parameter types are those its definition in the marker table declares: checked
// by the compiler for every marker (a decorator typed by hand differently fails `tsc`), and spot
// checks that the derived types are the ones users expect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DecoratorParams, MarkerArgs, MarkerName, MarkerOptions } from '../../src/markers/definitions.js';
import { MARKER_DEFINITIONS } from '../../src/markers/definitions.js';
import * as markers from '../../src/markers/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type DecoratorOf<N extends MarkerName> = N extends `Items.${infer B}`
  ? B extends keyof typeof markers.Items
    ? (typeof markers.Items)[B]
    : never
  : N extends keyof typeof markers
    ? (typeof markers)[N]
    : never;
type ParamsOf<F> = F extends (...args: infer P) => unknown ? P : never;

/** The markers whose decorator does not take what their definition declares (must be none). */
type Mismatched = {
  [N in MarkerName]: Equal<ParamsOf<DecoratorOf<N>>, DecoratorParams<N>> extends true ? never : N;
}[MarkerName];
const everyDecoratorMatches: [Mismatched] extends [never] ? true : Mismatched = true;

// The derived types, spelled out for a few markers.
const rbac: Equal<
  MarkerOptions<'Rbac'>,
  {
    verbs: string[];
    groups?: string[];
    resources?: string[];
    resourceNames?: string[];
    urls?: string[];
    namespace?: string;
    roleName?: string;
  }
> = true;
const failurePolicy: Equal<MarkerOptions<'Webhook'>['failurePolicy'], 'Fail' | 'Ignore'> = true;
const pattern: Equal<DecoratorParams<'Pattern'>, [string | RegExp]> = true;
const patternValue: Equal<MarkerArgs<'Items.Pattern'>, string> = true;
const listMapKey: Equal<DecoratorParams<'ListMapKey'>, string[]> = true;
const deprecated: Equal<DecoratorParams<'DeprecatedVersion'>, [options?: { warning?: string }]> = true;
const none: Equal<MarkerArgs<'UniqueItems'>, undefined> = true;

describe('decorator types come from the marker table', () => {
  it('compiles with every decorator typed by its definition', () => {
    assert.equal(everyDecoratorMatches, true);
    assert.deepEqual(
      [rbac, failurePolicy, pattern, patternValue, listMapKey, deprecated, none],
      [true, true, true, true, true, true, true],
    );
  });

  it('rejects, at compile time, arguments the table does not allow', () => {
    markers.Webhook({
      mutating: true,
      // @ts-expect-error failurePolicy is 'Fail' | 'Ignore' (the analysis rejects any other spelling too)
      failurePolicy: 'fail',
      groups: [],
      resources: [],
      verbs: [],
      versions: [],
      name: 'x',
      admissionReviewVersions: [],
    });
    // @ts-expect-error verbs is a list, not a string
    markers.Rbac({ verbs: 'get' });
    // @ts-expect-error unknown argument
    markers.Resource({ plural: 'things' });
    assert.ok(MARKER_DEFINITIONS.length > 0);
  });
});
