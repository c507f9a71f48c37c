// src/apiserver/builtin-kinds.ts: the one table of built-in Kinds (generated from a real API
// server's discovery by test/scaffolds/builtin-kinds.test.ts), read by the scaffolds, the fake API
// server and kubeforge/runtime's client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_KINDS, builtinKindsNamed, CORE_GROUPS, findBuiltinKind } from '../../src/apiserver/builtin-kinds.js';
import { BUILTIN_ROWS, TypeTable } from '../../src/runtime/client/types.js';

describe('built-in Kinds', () => {
  it('finds a Kind by group, version and name', () => {
    assert.equal(findBuiltinKind('apps', 'v1', 'Deployment')?.plural, 'deployments');
    assert.equal(findBuiltinKind('apps', 'v1', 'Widget'), undefined);
    assert.deepEqual(
      builtinKindsNamed('HorizontalPodAutoscaler').map((k) => k.version),
      ['v1', 'v2'],
    );
  });

  it('names every group of the table in CORE_GROUPS', () => {
    for (const k of BUILTIN_KINDS) assert.ok(Object.hasOwn(CORE_GROUPS, k.group), k.group);
  });

  it("is the runtime client's table: every row, with its full apiVersion", () => {
    assert.equal(BUILTIN_ROWS.length, BUILTIN_KINDS.length);
    const table = new TypeTable();
    assert.deepEqual(table.byKind('rbac.authorization.k8s.io/v1', 'ClusterRole')?.plural, 'clusterroles');
    assert.deepEqual(table.byKind('v1', 'Binding')?.namespaced, true);
    assert.deepEqual(table.byKind('scheduling.k8s.io/v1', 'PriorityClass')?.namespaced, false);
  });
});
