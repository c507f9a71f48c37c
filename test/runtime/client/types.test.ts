// Offline: how a class handed to the client is told apart (no API server needed).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventsV1Event, V1Deployment } from '@kubernetes/client-node';
import { resolveStatic } from '../../../src/runtime/client/types.js';

describe('built-in classes', () => {
  it('are known by identity', () => {
    assert.deepEqual(pick(resolveStatic(V1Deployment)), ['apps/v1', 'Deployment', 'deployments', true]);
  });

  it('from another copy of @kubernetes/client-node (two versions installed, or kubeforge linked) are known by name and model shape', () => {
    // A class equal in all but identity, as a second copy of the package would load it.
    const map = EventsV1Event.attributeTypeMap;
    const other = {
      // biome-ignore lint/complexity/noStaticOnlyClass: a second copy of a model class is statics only, as the package's are
      EventsV1Event: class EventsV1Event {
        static readonly discriminator = undefined;
        static readonly attributeTypeMap = map;
      },
    }.EventsV1Event;
    assert.notEqual(other, EventsV1Event);
    assert.deepEqual(pick(resolveStatic(other)), ['events.k8s.io/v1', 'Event', 'events', true]);
  });

  it('a user class that only shares a built-in name is not taken for it', () => {
    const mine = { V1Deployment: class V1Deployment {} }.V1Deployment;
    assert.throws(() => resolveStatic(mine), /cannot tell the Kubernetes kind of class V1Deployment/);
  });
});

function pick(r: ReturnType<typeof resolveStatic>): unknown[] {
  assert.ok('plural' in r, `resolved without discovery: ${JSON.stringify(r)}`);
  return [r.apiVersion, r.kind, r.plural, r.namespaced];
}
