// The corpus cases (packages/cel/test/corpus) on which kubeforge's CEL disagrees with Kubernetes, each
// with its reason, asserted by corpus.test.ts: a case listed here that starts to agree, or a case
// not listed that disagrees, fails it. The test prints what each side says.
//
// Who shrinks which: the cost estimate (COST*, LIB_TEST_SIZES) is packages/cel/src/cost.ts; the compile
// verdicts left (SYNTAX_WORDING, NAMESPACE_FUNCTION) are the parser's and the checker's
// (packages/cel/src/check.ts, syntax.ts, plan.ts); the rest are the test kit's evaluator
// (packages/cel/src/eval.ts) and its inputs. What cel-go refuses after the type check (literal validators,
// program planning's constant folds) is packages/cel/src/plan.ts, and no longer listed here.

const R = {
  COST_INCLUDES:
    "no estimate to compare: kubeforge's checker gives new rules includes() from 1.38 (library.ts CEL_VERSIONS), the library test has it in its environment",
  COST_MIXED_LITERAL:
    "no estimate to compare: kubeforge's checker refuses the mixed-type list literal the library test's environment takes (the API server's own environment refuses it too)",
  DOUBLE_KEYS:
    "cel-go takes a double map key in a literal; @bufbuild/cel's evaluator refuses it (unsupported key type)",
  INT64_JSON:
    "the object holds 9223372036854775807: the test kit receives objects as JSON, and JavaScript's JSON.parse reads integers beyond 2^53 as doubles (the API server's decoder keeps int64)",
  INVALID_DATA:
    "data that does not fit the schema: the API server's CEL values report 'invalid data' on access, the test kit converts such data leniently (the API server's schema validation refuses these objects before CEL runs, so no real request reaches this)",
  NAMESPACE_FUNCTION:
    "an unchecked expression (the test disables the type check): cel-go's program planning refuses a call of a function no library declares (no such overload: namespace(arg)); kubeforge's port of program planning (packages/cel/src/plan.ts) does not look functions up, and the test kit's evaluator takes the call as a method of the receiver (a CRD rule is always checked, and kubeforge's checker refuses the call: undeclared reference to 'namespace')",
  LIB_TEST_SIZES:
    "the library cost test sizes a list literal's elements with its own size estimator (strings of its choosing); the API server's CRD estimator has no size for them and estimates the maximum, as kubeforge's port of it does (the same expressions in test/cel/rule-corpus.ts: kube-apiserver 1.37 refuses them for cost, and the Go cost oracle's estimate equals kubeforge's)",
  RUNTIME_COST:
    'the test meters runtime cost (a tiny budget or per-call limit); kubeforge/testing meters no runtime cost',
  SYNTAX_WORDING:
    "a syntax error worded by @bufbuild/cel's parser, not cel-go's ANTLR one ('mismatched input ... expecting ...'); both refuse the rule",
};

export const KNOWN: Record<string, string> = {
  'apiext/TestCelCostStability/integers/0': R.INT64_JSON,
  'apiext/TestMessageExpression/limit exceeded': R.RUNTIME_COST,
  'apiext/TestMessageExpression/per-call limit exceeded during messageExpression execution': R.RUNTIME_COST,
  'apiext/TestValidationExpressions/escaping/errors/2': R.SYNTAX_WORDING,
  'apiext/TestValidationExpressions/integers/valid/0': R.INT64_JSON,
  'apiext/TestValidationExpressions/integers/valid/2': R.INT64_JSON,
  'apiext/TestValidationExpressions/invalid data/errors/0': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/1': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/2': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/3': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/4': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/5': R.INVALID_DATA,
  'apiext/TestValidationExpressions/invalid data/errors/6': R.INVALID_DATA,
  'apiext/TestValidationExpressions/listMaps with unsupported identity characters in property names/errors/0':
    R.SYNTAX_WORDING,
  'cel-spec/fields/qualified_identifier_resolution/map_key_float': R.DOUBLE_KEYS,
  'cel-spec/parse/receiver_function_names/namespace': R.NAMESPACE_FUNCTION,
  "lib/TestIncludesCost/'01234567890123456789012345678901234567890123456789'.includes('123')#cost": R.COST_INCLUDES,
  "lib/TestIncludesCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].includes('x')#cost":
    R.COST_INCLUDES,
  'lib/TestIncludesCost/[1,_2,_3,_4,_5].includes(3)#cost': R.COST_INCLUDES,
  'lib/TestIncludesCost/[1.0,_2.0,_3.0,_4.0,_5.0].includes(3.0)#cost': R.COST_INCLUDES,
  "lib/TestIncludesCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].includes(bytes('x'))#cost":
    R.COST_INCLUDES,
  "lib/TestIncludesCost/[duration('1s'),_duration('2s'),_duration('3s'),_duration('4s'),_duration('5s')].includes(duration('3s'))#cost":
    R.COST_INCLUDES,
  'lib/TestIncludesCost/[false,_true,_false,_true,_false].includes(true)#cost': R.COST_INCLUDES,
  "lib/TestIncludesCost/[timestamp('2011-01-01T00:00:00.000+01:00'),_timestamp('2011-01-02T00:00:00.000+01:00'),_timestamp('2011-01-03T00:00:00.000+01:00'),_timestamp('2011-01-04T00:00:00.000+01:00'),_timestamp('2011-01-05T00:00:00.000+01:00')].includes(timestamp('2011-01-03T00:00:00.000+01:00'))#cost":
    R.COST_INCLUDES,
  'lib/TestIncludesCost/[uint(1),_uint(2),_uint(3),_uint(4),_uint(5)].includes(uint(3))#cost': R.COST_INCLUDES,
  "lib/TestIndexOfCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].indexOf('x')#cost":
    R.LIB_TEST_SIZES,
  "lib/TestIndexOfCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].lastIndexOf('x')#cost":
    R.LIB_TEST_SIZES,
  "lib/TestIndexOfCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].indexOf(bytes('x'))#cost":
    R.LIB_TEST_SIZES,
  "lib/TestIndexOfCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].lastIndexOf(bytes('x'))#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].isSorted()#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].max()#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/['012345678901',_'012345678901',_'012345678901',_'012345678901',_'012345678901'].min()#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].isSorted()#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].max()#cost":
    R.LIB_TEST_SIZES,
  "lib/TestListsCost/[bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901'),_bytes('012345678901')].min()#cost":
    R.LIB_TEST_SIZES,
  'lib/TestSetsCost/ [!sets.contains([1], ["1", 1])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [!sets.contains([1], [1.1, 1u])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [!sets.equivalent([1, 2], [1u, 2, 2.3])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [!sets.equivalent([1, 2], [2u, 2, 2.0])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [!sets.intersects([1], ["1", 2])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [!sets.intersects([1], [1.1, 2u])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.contains([1, 2.0, 3u], [1.0, 2u, 3])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.contains([1, 2], [2u, 2.0])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.contains([1, 2u], [2, 2.0])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.contains([1], [1.0, 1])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.contains([[1], [2, 3]], [[2, 3.0]])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.equivalent([1, 2, 3], [3u, 2.0, 1])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.equivalent([1], [1u, 1.0])] #2#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.equivalent([1], [1u, 1.0])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.intersects([1, 2], [1u, 2, 2.3])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.intersects([1, 2], [2u, 2, 2.0])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.intersects([1], [1.0, 2])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestSetsCost/ [sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])]#cost': R.COST_MIXED_LITERAL,
  'lib/TestStringLibrary/join#cost': R.LIB_TEST_SIZES,
  'lib/TestStringLibrary/join_with_separator#cost': R.LIB_TEST_SIZES,
};
