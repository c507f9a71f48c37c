// metav1.Now() for kubeforge/runtime: now() and microNow() are Dates that conditions, events and
// apply configurations take without a cast, written as the API server stores metav1.Time and
// MicroTime. (Their wire text for many instants and strings is judged by apimachinery in
// test/oracle/apimachinery.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventsV1Event, V1Condition, V1Deployment } from '@kubernetes/client-node';
import type { ApplyConfiguration } from '../../../src/runtime/client/index.js';
import { now } from '../../../src/runtime/index.js';
import { type Condition, MicroTime, microNow, setStatusCondition, Time } from '../../../src/runtime/util/index.js';

describe('now() and microNow()', () => {
  it('a condition built with now() type-checks without a cast and writes whole seconds', () => {
    const t = now();
    const cond: V1Condition = { type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: t };
    assert.match(JSON.stringify(cond.lastTransitionTime), /^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$/);
    assert.equal(t.getUTCMilliseconds(), 0);
    assert.equal(new Date(JSON.parse(JSON.stringify(t))).getTime(), t.getTime(), 'reads back equal');
    assert.ok(Math.abs(Date.now() - t.getTime()) < 2000);
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', lastTransitionTime: now() });
    assert.equal(conditions[0].lastTransitionTime.getUTCMilliseconds(), 0);
  });

  it('apply configurations and events take them too', () => {
    const apply: ApplyConfiguration<V1Deployment> = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      status: { conditions: [{ type: 'Available', status: 'True', lastUpdateTime: now(), lastTransitionTime: now() }] },
    };
    const event: EventsV1Event = {
      eventTime: microNow(),
      metadata: { name: 'e' },
      reportingController: 'x',
      action: 'A',
    };
    const text = JSON.stringify({ apply, event });
    assert.match(text, /"lastUpdateTime":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    assert.match(text, /"eventTime":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/);
  });

  it('Time and MicroTime take Dates, unix milliseconds and RFC 3339 strings; refuse what Go refuses', () => {
    assert.equal(JSON.stringify(new Time(new Date('2024-05-06T07:08:09.999Z'))), '"2024-05-06T07:08:09Z"');
    assert.equal(JSON.stringify(new Time('2024-05-06T09:08:09.5+02:00')), '"2024-05-06T07:08:09Z"');
    assert.equal(JSON.stringify(new Time(0)), '"1970-01-01T00:00:00Z"');
    assert.equal(JSON.stringify(new MicroTime('2024-05-06T07:08:09.123456Z')), '"2024-05-06T07:08:09.123456Z"');
    assert.equal(new MicroTime('2024-05-06T07:08:09.123456Z').microsecond, 456);
    assert.equal(JSON.stringify(MicroTime.fromUnixMicro(-1)), '"1969-12-31T23:59:59.999999Z"');
    assert.equal(
      JSON.stringify(new MicroTime(new MicroTime('2024-05-06T07:08:09.123456Z'))),
      '"2024-05-06T07:08:09.123456Z"',
    );
    assert.throws(() => new Time('2024-05-06'), /is not an RFC 3339 time/);
    assert.throws(() => new Time(new Date(Number.NaN)), TypeError);
    assert.throws(() => new MicroTime('2024-05-06T07:08:09Z'), /with microseconds/);
    const m = microNow();
    assert.ok(m.microsecond >= 0 && m.microsecond < 1000);
    assert.ok(Math.abs(Date.now() - m.getTime()) < 2000);
  });
});
