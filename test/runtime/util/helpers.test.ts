import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject, V1Condition } from '@kubernetes/client-node';
import {
  AlreadyOwnedError,
  addFinalizer,
  containsFinalizer,
  findStatusCondition,
  getControllerOf,
  hasOwnerReference,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeFinalizer,
  removeOwnerReference,
  removeStatusCondition,
  setControllerReference,
  setOwnerReference,
  setStatusCondition,
  type Condition,
} from '../../../src/runtime/util/index.js';
import { must } from '../../helpers/must.js';

const owner = (name: string, ns: string | undefined = 'default', kind = 'Widget'): KubernetesObject => ({
  apiVersion: 'test.kubeforge.io/v1',
  kind,
  metadata: { name, namespace: ns, uid: `uid-${name}` },
});
const child = (ns: string | undefined = 'default'): KubernetesObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: ns },
});

describe('owner references', () => {
  it('setControllerReference sets controller and blockOwnerDeletion, idempotently', () => {
    const o = child();
    setControllerReference(owner('a'), o);
    setControllerReference(owner('a'), o);
    assert.deepEqual(must(o.metadata, 'o.metadata').ownerReferences, [
      {
        apiVersion: 'test.kubeforge.io/v1',
        kind: 'Widget',
        name: 'a',
        uid: 'uid-a',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(must(getControllerOf(o), 'getControllerOf(o)').name, 'a');
  });

  it('refuses a second controller, a cross-namespace owner and a namespaced owner of a cluster-scoped object', () => {
    const o = child();
    setControllerReference(owner('a'), o);
    assert.throws(
      () => setControllerReference(owner('b'), o),
      (e: unknown) => e instanceof AlreadyOwnedError && e.owner.name === 'a',
    );
    assert.throws(
      () => setControllerReference(owner('c', 'other'), child()),
      /cross-namespace owner references are disallowed/,
    );
    assert.throws(
      () => setOwnerReference(owner('c'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }),
      /cluster-scoped resource must not have a namespace-scoped owner/,
    );
    // A cluster-scoped owner may own a namespaced object.
    setOwnerReference(owner('node', undefined, 'Node'), o);
    assert.equal(must(must(o.metadata, 'o.metadata').ownerReferences, 'o.metadata.ownerReferences').length, 2);
    assert.throws(
      () => setOwnerReference({ apiVersion: 'v1', kind: 'X', metadata: { name: 'n' } }, child()),
      /lacks metadata\.uid/,
    );
  });

  it('setOwnerReference adds plain references, replaces the same owner across versions and keeps a controller flag', () => {
    const o = child();
    setOwnerReference(owner('a'), o);
    assert.deepEqual(must(o.metadata, 'o.metadata').ownerReferences, [
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget', name: 'a', uid: 'uid-a' },
    ]);
    setControllerReference({ ...owner('a'), apiVersion: 'test.kubeforge.io/v2' }, o);
    setOwnerReference({ ...owner('a'), apiVersion: 'test.kubeforge.io/v2' }, o);
    assert.equal(must(must(o.metadata, 'o.metadata').ownerReferences, 'o.metadata.ownerReferences').length, 1);
    assert.equal(
      must(must(o.metadata, 'o.metadata').ownerReferences, 'o.metadata.ownerReferences')[0].controller,
      true,
    );
    assert.equal(
      must(must(o.metadata, 'o.metadata').ownerReferences, 'o.metadata.ownerReferences')[0].apiVersion,
      'test.kubeforge.io/v2',
    );
    assert.equal(hasOwnerReference(owner('a'), o), true);
    assert.equal(removeOwnerReference(owner('a'), o), true);
    assert.equal(removeOwnerReference(owner('a'), o), false);
    assert.equal(hasOwnerReference(owner('a'), o), false);
  });
});

describe('finalizers', () => {
  it('adds once, reports changes, removes every occurrence', () => {
    const o: KubernetesObject = { metadata: { name: 'x' } };
    assert.equal(containsFinalizer(o, 'kubeforge.io/cleanup'), false);
    assert.equal(addFinalizer(o, 'kubeforge.io/cleanup'), true);
    assert.equal(addFinalizer(o, 'kubeforge.io/cleanup'), false);
    assert.deepEqual(must(o.metadata, 'o.metadata').finalizers, ['kubeforge.io/cleanup']);
    assert.equal(containsFinalizer(o, 'kubeforge.io/cleanup'), true);
    must(must(o.metadata, 'o.metadata').finalizers, 'o.metadata.finalizers').push('other', 'kubeforge.io/cleanup');
    assert.equal(removeFinalizer(o, 'kubeforge.io/cleanup'), true);
    assert.deepEqual(must(o.metadata, 'o.metadata').finalizers, ['other']);
    assert.equal(removeFinalizer(o, 'kubeforge.io/cleanup'), false);
    assert.equal(removeFinalizer({}, 'x'), false);
  });
});

describe('status conditions', () => {
  it('lastTransitionTime changes only when status changes', () => {
    const conds: Condition[] = [];
    assert.equal(
      setStatusCondition(conds, {
        type: 'Ready',
        status: 'False',
        reason: 'Starting',
        message: 'wait',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      }),
      true,
    );
    assert.deepEqual(conds, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Starting',
        message: 'wait',
        lastTransitionTime: new Date('2024-01-01T00:00:00Z'),
      },
    ]);
    assert.ok(conds[0].lastTransitionTime instanceof Date, 'a Date, as V1Condition declares');
    assert.equal(
      setStatusCondition(conds, {
        type: 'Ready',
        status: 'False',
        reason: 'Pulling',
        message: 'wait',
        observedGeneration: 2,
      }),
      true,
    );
    assert.equal(conds[0].lastTransitionTime.toISOString(), '2024-01-01T00:00:00.000Z');
    assert.equal(
      setStatusCondition(conds, {
        type: 'Ready',
        status: 'False',
        reason: 'Pulling',
        message: 'wait',
        observedGeneration: 2,
      }),
      false,
    );
    assert.equal(
      setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Running', observedGeneration: 2 }),
      true,
    );
    assert.notEqual(conds[0].lastTransitionTime.toISOString(), '2024-01-01T00:00:00.000Z');
    assert.equal(conds[0].lastTransitionTime.getUTCMilliseconds(), 0, 'whole seconds, as metav1.Time');
    assert.equal(
      setStatusCondition(conds, {
        type: 'Ready',
        status: 'False',
        reason: 'Crash',
        lastTransitionTime: new Date('2030-01-01T00:00:00.250Z'),
      }),
      true,
    );
    assert.equal(conds[0].lastTransitionTime.toISOString(), '2030-01-01T00:00:00.000Z');
    assert.throws(
      () => setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'X', lastTransitionTime: 'yesterday' }),
      /lastTransitionTime "yesterday" is not an RFC 3339 time/,
    );
  });

  it('takes the V1Condition[] a scaffolded status declares', () => {
    const status: { conditions?: V1Condition[] } = {};
    status.conditions ??= [];
    setStatusCondition(status.conditions, {
      type: 'Available',
      status: 'Unknown',
      reason: 'Reconciling',
      message: 'Starting reconciliation',
    });
    const c: V1Condition | undefined = findStatusCondition(status.conditions, 'Available');
    assert.equal(c?.status, 'Unknown');
    assert.ok(c.lastTransitionTime.getTime() > 0);
  });

  it('finds and tests conditions', () => {
    const conds: Condition[] = [];
    setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Ok' });
    setStatusCondition(conds, { type: 'Degraded', status: 'False', reason: 'Ok' });
    assert.equal(must(findStatusCondition(conds, 'Ready'), "findStatusCondition(conds, 'Ready')").reason, 'Ok');
    assert.equal(findStatusCondition(conds, 'Missing'), undefined);
    assert.equal(isStatusConditionTrue(conds, 'Ready'), true);
    assert.equal(isStatusConditionFalse(conds, 'Ready'), false);
    assert.equal(isStatusConditionFalse(conds, 'Degraded'), true);
    assert.equal(isStatusConditionFalse(conds, 'Missing'), false, 'absent is not False');
    assert.equal(isStatusConditionTrue(undefined, 'Ready'), false);
    assert.equal(isStatusConditionPresentAndEqual(conds, 'Degraded', 'False'), true);
    assert.equal(removeStatusCondition(conds, 'Ready'), true);
    assert.equal(removeStatusCondition(conds, 'Ready'), false);
    assert.deepEqual(
      conds.map((c) => c.type),
      ['Degraded'],
    );
  });
});
