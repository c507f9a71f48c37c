// The fake API server's per-resource strategies (src/testing/fake/strategy.ts), without a server:
// every built-in Kind of the table has one, and each rule family does what kube-apiserver's
// registry strategy does (the status reset rules, defaults on create, what an update keeps,
// Validate and ValidateUpdate with ratcheting, AllowCreateOnUpdate, delete marking). The answers
// over HTTP are judged against a real kube-apiserver by ./differential.test.ts and ./fuzz.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_KINDS } from '../../src/apiserver/builtin-kinds.js';
import type { Obj } from '../../src/apiserver/json.js';
import type { Admission } from '../../src/testing/fake/builtin.js';
import { builtinResource, crdResources, type Resource } from '../../src/testing/fake/resources.js';
import { ApiStatus } from '../../src/testing/fake/status.js';
import { strategyFor } from '../../src/testing/fake/strategy.js';
import { must } from '../helpers/must.js';

const builtin = (group: string, kind: string): Resource => {
  const row = BUILTIN_KINDS.find((k) => k.group === group && k.kind === kind);
  assert.ok(row, `${group}/${kind} is in the built-in Kinds table`);
  return builtinResource(row);
};

/** A Widget CRD (v1): spec.size at most 10, spec.name required; `status` and `scale` subresources when asked. */
function widgets(sub: { status?: boolean; scale?: boolean } = {}): Resource {
  const [r] = crdResources({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            ...(sub.status ? { status: {} } : {}),
            ...(sub.scale
              ? { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } }
              : {}),
          },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['name'],
                  properties: { size: { type: 'integer', maximum: 10 }, name: { type: 'string' }, replicas: {} },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' }, replicas: {} } },
              },
            },
          },
        },
      ],
    },
  });
  return r;
}

const env: Admission = { find: () => undefined, allocateClusterIP: () => '10.0.0.7' };
const fields = (errs: { type: string; field: string }[]) => errs.map((e) => `${e.type} ${e.field}`);

describe('fake API server strategies', () => {
  it('registers one for every built-in Kind of the table, the special ones by name', () => {
    for (const row of BUILTIN_KINDS) assert.ok(strategyFor(builtinResource(row)).name);
    assert.equal(strategyFor(builtin('core', 'Namespace')).name, 'namespace');
    assert.equal(strategyFor(builtin('apiextensions', 'CustomResourceDefinition')).name, 'crd');
    assert.equal(strategyFor(builtin('core', 'Event')).name, 'event');
    assert.equal(strategyFor(builtin('events', 'Event')).name, 'event');
    assert.equal(strategyFor(builtin('apps', 'Deployment')).name, 'builtin');
    assert.equal(strategyFor(widgets()).name, 'custom');
    const r = builtin('apps', 'Deployment');
    assert.equal(strategyFor(r), strategyFor(r), 'one strategy per resource');
  });

  it('AllowCreateOnUpdate and garbage collection as the registries say', () => {
    for (const [g, k] of [
      ['core', 'Event'],
      ['events', 'Event'],
      ['rbac', 'Role'],
      ['rbac', 'ClusterRole'],
      ['rbac', 'RoleBinding'],
      ['rbac', 'ClusterRoleBinding'],
    ])
      assert.equal(strategyFor(builtin(g, k)).allowCreateOnUpdate, true, `${g}/${k}`);
    assert.equal(strategyFor(builtin('apps', 'Deployment')).allowCreateOnUpdate, false);
    assert.equal(strategyFor(widgets()).allowCreateOnUpdate, false);
    assert.equal(strategyFor(builtin('core', 'Event')).garbageCollected, false);
    assert.equal(strategyFor(builtin('core', 'ConfigMap')).garbageCollected, true);
  });

  describe('PrepareForCreate', () => {
    it('a built-in starts from its empty status, with its Go defaults; empty maps dropped', () => {
      const o: Obj = {
        metadata: { name: 'web', labels: {}, annotations: {} },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
        status: { replicas: 3 },
      };
      strategyFor(builtin('apps', 'StatefulSet')).prepareForCreate(o, true);
      assert.deepEqual(o.status, { replicas: 0, availableReplicas: 0 });
      assert.equal((o.spec as Obj).replicas, 1);
      assert.equal((o.spec as Obj).podManagementPolicy, 'OrderedReady');
      assert.deepEqual(o.metadata, { name: 'web' });
    });

    it('a custom resource drops its status only with a status subresource', () => {
      const withStatus: Obj = { metadata: { name: 'a' }, status: { ready: true } };
      strategyFor(widgets({ status: true })).prepareForCreate(withStatus, true);
      assert.equal(withStatus.status, undefined);
      const without: Obj = { metadata: { name: 'a' }, status: { ready: true } };
      strategyFor(widgets()).prepareForCreate(without, true);
      assert.deepEqual(without.status, { ready: true });
    });

    it("a Namespace's name label is set when the name was sent, not when it is generated", () => {
      const ns = strategyFor(builtin('core', 'Namespace'));
      const named: Obj = { metadata: { name: 'team-a' } };
      ns.prepareForCreate(named, true);
      assert.deepEqual((named.metadata as Obj).labels, { 'kubernetes.io/metadata.name': 'team-a' });
      const generated: Obj = { metadata: { name: 'team-x1' } };
      ns.prepareForCreate(generated, false);
      assert.equal((generated.metadata as Obj).labels, undefined);
      ns.finishCreate(generated, env);
      assert.deepEqual((generated.metadata as Obj).labels, { 'kubernetes.io/metadata.name': 'team-x1' });
      assert.deepEqual(generated.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(generated.status, { phase: 'Active' });
    });
  });

  describe('admission and what a create gets with its uid', () => {
    it("a Pod whose service account does not exist is refused (the ServiceAccount plugin's 403)", () => {
      const pod: Obj = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
      assert.throws(
        () => strategyFor(builtin('core', 'Pod')).admitCreate(pod, env),
        (e: unknown) =>
          e instanceof ApiStatus && e.code === 403 && /serviceaccount "default" not found/.test(e.message),
      );
    });

    it("a Job's selector names its uid; a Service gets a cluster IP; a CRD its storedVersions", () => {
      const job: Obj = { metadata: { name: 'j', uid: 'u-1' }, spec: { template: { metadata: {}, spec: {} } } };
      strategyFor(builtin('batch', 'Job')).finishCreate(job, env);
      assert.deepEqual(((job.spec as Obj).selector as Obj).matchLabels, {
        'batch.kubernetes.io/controller-uid': 'u-1',
      });
      const svc: Obj = { metadata: { name: 's' }, spec: { type: 'ClusterIP' } };
      strategyFor(builtin('core', 'Service')).finishCreate(svc, env);
      assert.equal((svc.spec as Obj).clusterIP, '10.0.0.7');
      const crd: Obj = {
        metadata: { name: 'widgets.example.com' },
        spec: { versions: [{ name: 'v1', storage: true }] },
        status: { conditions: [] },
      };
      strategyFor(builtin('apiextensions', 'CustomResourceDefinition')).finishCreate(crd, env);
      assert.deepEqual(crd.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    });
  });

  describe('PrepareForUpdate', () => {
    const old: Obj = { metadata: { name: 'a' }, spec: { name: 'old' }, status: { ready: false } };

    it('the status subresource writes status alone; the main resource keeps the stored status', () => {
      const r = widgets({ status: true });
      const s = strategyFor(r);
      const viaStatus = s.prepareForUpdate(
        { metadata: { name: 'a' }, spec: { name: 'new' }, status: { ready: true } },
        old,
        'status',
      );
      assert.deepEqual(viaStatus, { metadata: { name: 'a' }, spec: { name: 'old' }, status: { ready: true } });
      const viaMain = s.prepareForUpdate(
        { metadata: { name: 'a' }, spec: { name: 'new' }, status: { ready: true } },
        old,
        undefined,
      );
      assert.deepEqual(viaMain, { metadata: { name: 'a' }, spec: { name: 'new' }, status: { ready: false } });
    });

    it('without a status subresource the main resource writes the status too', () => {
      const o = strategyFor(widgets()).prepareForUpdate(
        { metadata: { name: 'a' }, status: { ready: true } },
        old,
        undefined,
      );
      assert.deepEqual(o.status, { ready: true });
    });

    it('a Namespace keeps its spec.finalizers and its name label; a Service its cluster IP', () => {
      const ns = strategyFor(builtin('core', 'Namespace')).prepareForUpdate(
        { metadata: { name: 'team-a', labels: { x: 'y' } }, spec: { finalizers: [] }, status: { phase: 'Active' } },
        { metadata: { name: 'team-a' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
        undefined,
      );
      assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual((ns.metadata as Obj).labels, { x: 'y', 'kubernetes.io/metadata.name': 'team-a' });
      const svc = strategyFor(builtin('core', 'Service')).prepareForUpdate(
        { metadata: { name: 's' }, spec: { ports: [] } },
        { metadata: { name: 's' }, spec: { clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'] }, status: {} },
        undefined,
      );
      assert.equal((svc.spec as Obj).clusterIP, '10.0.0.9');
    });

    it('what bumps the generation: all but metadata, and the status when a subresource holds it', () => {
      const before: Obj = {
        metadata: { name: 'a', labels: { v: '1' } },
        spec: { name: 'x' },
        status: { ready: false },
      };
      const statusOnly: Obj = { ...before, status: { ready: true } };
      const labelsOnly: Obj = { ...before, metadata: { name: 'a', labels: { v: '2' } } };
      assert.equal(strategyFor(widgets({ status: true })).specChanged(statusOnly, before), false);
      assert.equal(strategyFor(widgets()).specChanged(statusOnly, before), true);
      assert.equal(strategyFor(widgets()).specChanged(labelsOnly, before), false);
      assert.equal(strategyFor(builtin('apps', 'Deployment')).specChanged(statusOnly, before), false);
    });
  });

  describe('Validate and ValidateUpdate', () => {
    it("a built-in's rules, not on its status subresource", () => {
      const s = strategyFor(builtin('apps', 'Deployment'));
      const o: Obj = { metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'c' }] } } } };
      assert.ok(fields(s.validate(o, undefined, false)).includes('FieldValueRequired spec.selector'));
      assert.deepEqual(s.validate(o, { ...o }, true), []);
    });

    it("a custom resource's schema, ratcheted on update: an unchanged invalid value passes", () => {
      const s = strategyFor(widgets());
      const bad: Obj = { metadata: { name: 'a' }, spec: { name: 'n', size: 11 } };
      assert.deepEqual(fields(s.validate(bad, undefined, false)), ['FieldValueInvalid spec.size']);
      assert.deepEqual(s.validate(bad, structuredClone(bad), false), []);
      assert.deepEqual(fields(s.validate({ metadata: { name: 'a' }, spec: {} }, bad, false)), [
        'FieldValueRequired spec.name',
      ]);
    });

    it('the status subresource validates status alone; the scale paths must hold integers', () => {
      const s = strategyFor(widgets({ status: true, scale: true }));
      const o: Obj = { metadata: { name: 'a' }, spec: { size: 20, replicas: 'three' }, status: { ready: 'yes' } };
      assert.deepEqual(fields(s.validate(o, undefined, true)), ['FieldValueTypeInvalid status.ready']);
      assert.deepEqual(fields(s.validate(o, undefined, false)), [
        'FieldValueInvalid spec.size',
        'FieldValueRequired spec.name',
        'FieldValueTypeInvalid status.ready',
        'FieldValueInvalid .spec.replicas',
      ]);
    });

    it('no finalizer may be added to an object being deleted (reported twice, as the server does)', () => {
      const old: Obj = { metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x.io/a'] } };
      const o: Obj = {
        metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x.io/a', 'x.io/b'] },
      };
      const errs = strategyFor(builtin('core', 'ConfigMap')).validate(o, old, false);
      assert.deepEqual(fields(errs), [
        'FieldValueForbidden metadata.finalizers',
        'FieldValueForbidden metadata.finalizers',
      ]);
    });

    it("an Event's own rules come before its metadata's", () => {
      const errs = strategyFor(builtin('events', 'Event')).validate({ metadata: {} }, undefined, false);
      assert.ok(errs.length > 1);
      assert.notEqual(errs[0].field, 'metadata.name');
      assert.ok(fields(errs).includes('FieldValueRequired metadata.name'));
    });

    it("warnings: a Deployment's name on create; a custom resource's finalizer without a domain", () => {
      const dep = strategyFor(builtin('apps', 'Deployment'));
      const o: Obj = { metadata: { name: 'web.v1' } };
      assert.equal(dep.warnings(o, undefined).length, 1);
      assert.deepEqual(dep.warnings(o, o), []);
      const w = strategyFor(widgets()).warnings({ metadata: { name: 'a', finalizers: ['cleanup'] } }, undefined);
      assert.equal(w.length, 1);
      assert.match(w[0], /prefer a domain-qualified finalizer name/);
    });
  });

  describe('delete', () => {
    it('a Namespace is marked Terminating once; a CRD gets its cleanup finalizer', () => {
      const ns = strategyFor(builtin('core', 'Namespace'));
      const live: Obj = { metadata: { name: 'team-a' }, status: { phase: 'Active' } };
      const marked = must(ns.markForDeletion, 'ns.markForDeletion')(live, ['orphan']);
      assert.equal(marked.write, true);
      assert.equal((marked.object.status as Obj).phase, 'Terminating');
      assert.deepEqual((marked.object.metadata as Obj).finalizers, ['orphan']);
      assert.equal(must(ns.markForDeletion, 'ns.markForDeletion')(marked.object, []).write, false);
      const crd = strategyFor(builtin('apiextensions', 'CustomResourceDefinition'));
      const m = must(crd.markForDeletion, 'crd.markForDeletion')(
        { metadata: { name: 'widgets.example.com' }, status: {} },
        [],
      );
      assert.deepEqual((m.object.metadata as Obj).finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
      assert.equal(must(crd.markForDeletion, 'crd.markForDeletion')(m.object, []).write, false);
      assert.equal(strategyFor(builtin('core', 'ConfigMap')).markForDeletion, undefined);
    });
  });
});
