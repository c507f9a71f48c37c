// Admission webhooks over real HTTPS on 127.0.0.1: defaulting patches (checked by applying them
// with an independent RFC 6902 applier), validation denials with causes and warnings, DELETE and
// UPDATE objects, dryRun, panics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../../../src/runtime/client/errors.js';
import {
  FieldErrors,
  field,
  withCustomDefaulter,
  withCustomValidator,
  type AdmissionContext,
  type CustomValidator,
} from '../../../src/runtime/webhook/index.js';
import { createJSONPatch } from '../../../src/runtime/webhook/admission.js';
import { toWireJSON } from '../../../src/runtime/client/dates.js';
import { admissionReview, metricValue, patchOf, quiet, request, startServer, type Running } from './helpers.js';
import { must } from '../../helpers/must.js';

// biome-ignore lint/suspicious/noExplicitAny: the generated documents have any shape; the patch applier walks them untyped
type Obj = any;

/** RFC 6901 pointer -> tokens (independent of the code under test). */
function tokens(pointer: string): string[] {
  assert.ok(pointer === '' || pointer.startsWith('/'), `bad pointer ${pointer}`);
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A minimal RFC 6902 applier (add / remove / replace), strict about targets existing. */
function applyPatch(doc: Obj, ops: { op: string; path: string; value?: unknown }[]): Obj {
  const root = { doc: structuredClone(doc) };
  for (const o of ops) {
    const t = ['doc', ...tokens(o.path)];
    let parent: Obj = root;
    for (const k of t.slice(0, -1)) {
      parent = Array.isArray(parent) ? parent[Number(k)] : parent[k];
      assert.ok(parent !== undefined && parent !== null, `${o.op} ${o.path}: missing parent`);
    }
    const last = t[t.length - 1];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (o.op === 'add') parent.splice(i, 0, structuredClone(o.value));
      else {
        assert.ok(i < parent.length, `${o.op} ${o.path}: index out of range`);
        if (o.op === 'remove') parent.splice(i, 1);
        else parent[i] = structuredClone(o.value);
      }
    } else {
      if (o.op !== 'add') assert.ok(Object.hasOwn(parent, last), `${o.op} ${o.path}: no such member`);
      if (o.op === 'remove') delete parent[last];
      else parent[last] = structuredClone(o.value);
    }
  }
  return root.doc;
}

let srv: Running;
const seen: { op: string; args: Obj[]; dryRun: boolean; ctx?: AdmissionContext }[] = [];
let defaulterImpl: (o: Obj, ctx: AdmissionContext) => void | Promise<void> = () => undefined;
let validatorImpl: Partial<CustomValidator<Obj>> = {};

const validator: CustomValidator<Obj> = {
  validateCreate: (o, ctx) => {
    seen.push({ op: 'create', args: [o], dryRun: ctx.dryRun, ctx });
    return validatorImpl.validateCreate?.(o, ctx);
  },
  validateUpdate: (a, b, ctx) => {
    seen.push({ op: 'update', args: [a, b], dryRun: ctx.dryRun, ctx });
    return validatorImpl.validateUpdate?.(a, b, ctx);
  },
  validateDelete: (o, ctx) => {
    seen.push({ op: 'delete', args: [o], dryRun: ctx.dryRun, ctx });
    return validatorImpl.validateDelete?.(o, ctx);
  },
};

before(async () => {
  srv = await startServer((s) => {
    s.register('/mutate', withCustomDefaulter<Obj>({ default: (o, ctx) => defaulterImpl(o, ctx) }));
    s.register('/validate', withCustomValidator<Obj>(validator));
  });
});
after(async () => srv?.stop());

async function mutate(
  before: Obj,
  impl: (o: Obj) => void,
): Promise<{ response: Obj; ops: ReturnType<typeof patchOf> }> {
  defaulterImpl = impl;
  const r = await request(
    must(srv.server.port, 'srv.server.port'),
    '/mutate',
    admissionReview('CREATE', { object: before }),
  );
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.apiVersion, 'admission.k8s.io/v1');
  assert.equal(r.json.kind, 'AdmissionReview');
  return { response: r.json.response, ops: patchOf(r.json.response) };
}

describe('review versions', () => {
  it('answers an admission.k8s.io/v1beta1 review in v1beta1, as controller-runtime does', async () => {
    defaulterImpl = (o) => {
      o.spec.size = 4;
    };
    const review = {
      ...admissionReview('CREATE', { object: { metadata: { name: 'w1' }, spec: { size: 1 } } }),
      apiVersion: 'admission.k8s.io/v1beta1',
    };
    const m = await request(must(srv.server.port, 'srv.server.port'), '/mutate', review);
    assert.equal(m.status, 200, m.text);
    assert.deepEqual(
      [m.json.apiVersion, m.json.kind, m.json.response.allowed, m.json.response.patchType],
      ['admission.k8s.io/v1beta1', 'AdmissionReview', true, 'JSONPatch'],
    );
    validatorImpl = {
      validateCreate: () => {
        throw new FieldErrors([field.invalid('spec.size', 1, 'must be even')]);
      },
    };
    const v = await request(must(srv.server.port, 'srv.server.port'), '/validate', review);
    assert.deepEqual(
      [v.json.apiVersion, v.json.response.allowed, v.json.response.status.code, v.json.response.status.reason],
      ['admission.k8s.io/v1beta1', false, 422, 'Invalid'],
    );
  });
});

describe('defaulting webhook', () => {
  it('answers a JSONPatch that turns the sent object into the defaulted one (add, replace, remove)', async () => {
    const sent = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { old: 'x' } },
      spec: { size: 1, drop: true },
    };
    const { response, ops } = await mutate(sent, (o) => {
      o.spec.size = 3;
      delete o.spec.drop;
      o.spec.color = 'blue';
      o.metadata.labels.added = 'y';
      o.status = { phase: 'New' };
    });
    assert.equal(response.uid, 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01');
    assert.equal(response.allowed, true);
    assert.equal(response.patchType, 'JSONPatch');
    assert.deepEqual(
      new Set(ops.map((o) => `${o.op} ${o.path}`)),
      new Set([
        'replace /spec/size',
        'remove /spec/drop',
        'add /spec/color',
        'add /metadata/labels/added',
        'add /status',
      ]),
    );
    assert.deepEqual(applyPatch(sent, ops), {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { old: 'x', added: 'y' } },
      spec: { size: 3, color: 'blue' },
      status: { phase: 'New' },
    });
  });

  it("escapes '/' and '~' in keys (annotations and labels with prefixes)", async () => {
    const sent = { metadata: { name: 'w1', annotations: { 'example.com/keep': '1', 'a~b': 'old', 'x/y~z': 'gone' } } };
    const { ops } = await mutate(sent, (o) => {
      o.metadata.annotations['example.com/new'] = 'n';
      o.metadata.annotations['a~b'] = 'new';
      delete o.metadata.annotations['x/y~z'];
      o.metadata.annotations['~/'] = 'both';
    });
    assert.deepEqual(
      ops.map((o) => `${o.op} ${o.path}`).sort(),
      [
        'add /metadata/annotations/example.com~1new',
        'add /metadata/annotations/~0~1',
        'remove /metadata/annotations/x~1y~0z',
        'replace /metadata/annotations/a~0b',
      ].sort(),
    );
    assert.deepEqual(applyPatch(sent, ops).metadata.annotations, {
      'example.com/keep': '1',
      'a~b': 'new',
      'example.com/new': 'n',
      '~/': 'both',
    });
  });

  it('handles arrays: append, insert in front, shrink, edits inside items, type changes', async () => {
    const cases: [Obj, (o: Obj) => void][] = [
      [{ spec: { ports: [80] } }, (o) => o.spec.ports.push(443)],
      [{ spec: { ports: [80, 443] } }, (o) => o.spec.ports.unshift(22)],
      [{ spec: { ports: [22, 80, 443] } }, (o) => o.spec.ports.splice(0, 2)],
      [
        { spec: { containers: [{ name: 'a' }, { name: 'b', image: 'x' }] } },
        (o) => {
          o.spec.containers[1].image = 'y';
          o.spec.containers[0].resources = { limits: { cpu: '1' } };
        },
      ],
      [
        { spec: { list: [1, 2], obj: { a: 1 } } },
        (o) => {
          o.spec.list = { now: 'object' };
          o.spec.obj = [1];
        },
      ],
      [{ spec: { items: [] } }, (o) => (o.spec.items = [{ a: null }])],
    ];
    for (const [sent, change] of cases) {
      const expected = structuredClone(sent);
      change(expected);
      const { ops } = await mutate(sent, change);
      assert.deepEqual(applyPatch(sent, ops), expected, JSON.stringify(ops));
    }
  });

  it('sends no patch when nothing changed, and treats undefined and Dates as JSON does', async () => {
    const { response } = await mutate({ metadata: { name: 'w1' }, spec: { a: 1 } }, (o) => {
      o.spec.a = 1;
      o.spec.ignored = undefined;
    });
    assert.equal(response.allowed, true);
    assert.equal(response.patch, undefined);
    assert.equal(response.patchType, undefined);
    const { ops } = await mutate({ spec: {} }, (o) => (o.spec.when = new Date(Date.UTC(2024, 0, 2))));
    assert.deepEqual(ops, [{ op: 'add', path: '/spec/when', value: '2024-01-02T00:00:00.000Z' }]);
  });

  it('hands the defaulter Dates where the types declare them and writes them back as they came', async () => {
    const sent = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', creationTimestamp: '2024-03-04T05:06:07Z' },
      spec: { size: 1, note: '2024-03-04T05:06:07Z' },
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2024-03-04T05:06:07Z' },
        ],
      },
    };
    let seenCreated: unknown;
    let seenNote: unknown;
    // Untouched Dates are no change: no patch at all.
    let r = await mutate(sent, (o) => {
      seenCreated = o.metadata.creationTimestamp;
      seenNote = o.spec.note;
    });
    assert.ok(seenCreated instanceof Date, 'metadata.creationTimestamp is a Date');
    assert.equal((seenCreated as Date).getTime(), Date.UTC(2024, 2, 4, 5, 6, 7));
    assert.equal(seenNote, '2024-03-04T05:06:07Z', 'fields the types do not declare as Date stay strings');
    assert.equal(r.response.patch, undefined);
    // A Date the defaulter sets is sent back as JSON writes it.
    r = await mutate(sent, (o) => {
      assert.ok(o.status.conditions[0].lastTransitionTime instanceof Date);
      o.status.conditions[0].lastTransitionTime = new Date(Date.UTC(2025, 0, 1));
    });
    assert.deepEqual(r.ops, [
      { op: 'replace', path: '/status/conditions/0/lastTransitionTime', value: '2025-01-01T00:00:00.000Z' },
    ]);
    assert.deepEqual(applyPatch(sent, r.ops).metadata, sent.metadata);
  });

  it('patches to exactly what toWireJSON makes of the defaulted object, over 2,000 seeded random defaulters', async () => {
    // The patch's "after" side shares the unchanged subtrees instead of copying the object
    // (issue #45); this holds it to toWireJSON's definition: Dates (kept, moved, new), NaN,
    // undefined, functions, class instances, deleted and added keys, nested arrays.
    let seed = 45;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const gen = (d: number): unknown => {
      const r = rnd();
      if (d > 3 || r < 0.4) return pick([1, 'x', true, null, 0, -1.5, '2024-05-01T10:00:00Z', 'a/b~c']);
      if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(d + 1));
      const o: Obj = {};
      for (let i = 0; i < rnd() * 4; i++) o[pick(['a', 'b', 'c/d', 'e~f', 'time', 'lastTransitionTime'])] = gen(d + 1);
      return o;
    };
    class Thing {
      z = 1;
    }
    const mutateRandomly = (o: Obj): void => {
      if (!o || typeof o !== 'object') return;
      for (const k of Object.keys(o)) {
        const r = rnd();
        if (r < 0.05) o[k] = undefined;
        else if (r < 0.1) o[k] = new Date('2024-05-01T10:00:00Z');
        else if (r < 0.13) o[k] = Number.NaN;
        else if (r < 0.16) o[k] = () => 1;
        else if (r < 0.19) o[k] = new Thing();
        else if (r < 0.22) o[k] = new Date(12345);
        else if (r < 0.25 && !Array.isArray(o)) delete o[k];
        else if (r < 0.3) o[k] = gen(2);
        else mutateRandomly(o[k]);
      }
      if (rnd() < 0.2 && !Array.isArray(o)) o.added = gen(2);
    };
    let patched = 0;
    for (let i = 0; i < 2000; i++) {
      const sent = {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: {
          name: 'w1',
          creationTimestamp: '2024-05-01T10:00:00Z',
          managedFields: [{ manager: 'm', time: '2024-05-01T10:00:00Z', fieldsV1: gen(0) }],
          labels: gen(1),
        },
        spec: gen(0),
        status: { conditions: [{ type: 'Ready', lastTransitionTime: '2024-05-01T10:00:00.000Z' }] },
      };
      let defaulted: unknown;
      const webhook = withCustomDefaulter<Obj>({
        default(o) {
          mutateRandomly(o);
          defaulted = o;
        },
      });
      const answer = (await webhook.handle(admissionReview('CREATE', { object: structuredClone(sent) }), {
        signal: new AbortController().signal,
        logger: quiet(),
      })) as Obj;
      const ops = patchOf(answer.response);
      if (ops.length) patched++;
      assert.deepEqual(applyPatch(sent, ops), toWireJSON(defaulted, sent), `defaulter ${i}`);
    }
    assert.ok(patched > 1000, `${patched} of 2,000 defaulters changed something`);
  });

  it('copes with a "__proto__" key in the sent object (kept as data, never a prototype)', async () => {
    defaulterImpl = (o) => {
      o.spec.size = 2;
    };
    const review = JSON.stringify(admissionReview('CREATE', { object: { spec: { size: 1 } } })).replace(
      '"spec":{',
      '"spec":{"__proto__":{"polluted":true},',
    );
    const r = await request(must(srv.server.port, 'srv.server.port'), '/mutate', undefined, { raw: review });
    assert.deepEqual(patchOf(r.json.response), [{ op: 'replace', path: '/spec/size', value: 2 }]);
    assert.equal(({} as Obj).polluted, undefined);
  });

  it('gives the defaulter a copy: the request object in the context is untouched', async () => {
    let requestObject: Obj;
    defaulterImpl = (o, ctx) => {
      o.spec.size = 9;
      requestObject = ctx.request.object;
    };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/mutate',
      admissionReview('CREATE', { object: { spec: { size: 1 } } }),
    );
    assert.deepEqual(patchOf(r.json.response), [{ op: 'replace', path: '/spec/size', value: 9 }]);
    assert.deepEqual(requestObject, { spec: { size: 1 } });
  });

  it('allows DELETE without calling the defaulter', async () => {
    let called = false;
    defaulterImpl = () => {
      called = true;
    };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/mutate',
      admissionReview('DELETE', { oldObject: { spec: {} } }),
    );
    assert.deepEqual(r.json.response, { uid: 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01', allowed: true });
    assert.equal(called, false);
  });

  it('a defaulter that throws denies the request', async () => {
    defaulterImpl = () => {
      throw new Error('spec.size cannot be defaulted');
    };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/mutate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.deepEqual(r.json.response.status, {
      code: 403,
      reason: 'Forbidden',
      message: 'spec.size cannot be defaulted',
    });
    assert.equal(r.json.response.allowed, false);
    assert.equal(r.json.response.patch, undefined);
  });

  it('a CREATE without an object is answered with code 400 in the review', async () => {
    const r = await request(must(srv.server.port, 'srv.server.port'), '/mutate', admissionReview('CREATE', {}));
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.response.status, { code: 400, message: 'the CREATE request has no object' });
  });
});

describe('createJSONPatch', () => {
  it('diffs plain JSON including the empty key and nested escapes', () => {
    const before = { '': 1, a: { 'b/c': { '~': [1, 2] } } };
    const after = { '': 2, a: { 'b/c': { '~': [1] } } };
    const ops = createJSONPatch(before, after);
    assert.deepEqual(applyPatch(before, ops), after);
    assert.ok(
      ops.some((o) => o.path === '/a/b~1c/~0/1'),
      JSON.stringify(ops),
    );
  });
});

describe('validating webhook', () => {
  it('allows with the returned warnings, CREATE gets the object', async () => {
    seen.length = 0;
    validatorImpl = { validateCreate: () => ['spec.legacy is deprecated'] };
    const obj = { metadata: { name: 'w1' }, spec: { size: 2 } };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: obj }),
    );
    assert.deepEqual(r.json.response, {
      uid: 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01',
      allowed: true,
      warnings: ['spec.legacy is deprecated'],
    });
    assert.deepEqual(
      seen.map((s) => [s.op, s.args]),
      [['create', [obj]]],
    );
  });

  it('denies with 422 Invalid (Go: apierrors.NewInvalid), apimachinery message, causes and warnings from FieldErrors', async () => {
    validatorImpl = {
      validateCreate: (o) => {
        throw new FieldErrors([field.invalid('spec.size', o.spec.size, 'must be even'), field.required('spec.b')], {
          warnings: ['spec.c is ignored'],
        });
      },
    };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { metadata: { name: 'w1' }, spec: { size: 3 } } }),
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.response, {
      uid: 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message:
          'Widget.example.com "w1" is invalid: [spec.size: Invalid value: 3: must be even, spec.b: Required value]',
        details: {
          name: 'w1',
          group: 'example.com',
          kind: 'Widget',
          causes: [
            { reason: 'FieldValueInvalid', message: 'Invalid value: 3: must be even', field: 'spec.size' },
            { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.b' },
          ],
        },
      },
      warnings: ['spec.c is ignored'],
    });
  });

  it('denies with the message of any other Error, and with the Status of a client StatusError', async () => {
    validatorImpl = {
      validateCreate: () => {
        throw new Error('widgets are closed today');
      },
    };
    let r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.deepEqual(r.json.response.status, { code: 403, reason: 'Forbidden', message: 'widgets are closed today' });
    validatorImpl = {
      validateCreate: async () => {
        throw new StatusError(409, {
          kind: 'Status',
          status: 'Failure',
          reason: 'Conflict',
          message: 'the quota is taken',
          code: 409,
        });
      },
    };
    r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.deepEqual(r.json.response.status, {
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      message: 'the quota is taken',
      code: 409,
    });
  });

  it('hands validators Dates where the types declare them (object and oldObject)', async () => {
    seen.length = 0;
    validatorImpl = {};
    const oldObj = { metadata: { name: 'w1', creationTimestamp: '2024-03-04T05:06:07Z' }, spec: { size: 1 } };
    const newObj = { metadata: { name: 'w1', creationTimestamp: '2024-03-04T05:06:07Z' }, spec: { size: 2 } };
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('UPDATE', { object: newObj, oldObject: oldObj }),
    );
    assert.equal(r.json.response.allowed, true);
    const [a, b] = seen[0].args;
    assert.ok(a.metadata.creationTimestamp instanceof Date && b.metadata.creationTimestamp instanceof Date);
    assert.equal(b.metadata.creationTimestamp.toISOString(), '2024-03-04T05:06:07.000Z');
  });

  it('UPDATE gets (oldObject, object); DELETE gets the oldObject (the deleted object)', async () => {
    seen.length = 0;
    validatorImpl = {};
    const oldObj = { metadata: { name: 'w1' }, spec: { size: 1 } };
    const newObj = { metadata: { name: 'w1' }, spec: { size: 2 } };
    let r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('UPDATE', { object: newObj, oldObject: oldObj }),
    );
    assert.equal(r.json.response.allowed, true);
    r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('DELETE', { oldObject: oldObj }),
    );
    assert.equal(r.json.response.allowed, true);
    assert.deepEqual(
      seen.map((s) => [s.op, s.args]),
      [
        ['update', [oldObj, newObj]],
        ['delete', [oldObj]],
      ],
    );
    r = await request(must(srv.server.port, 'srv.server.port'), '/validate', admissionReview('DELETE', {}));
    assert.deepEqual(r.json.response.status, { code: 400, message: 'the DELETE request has no oldObject' });
  });

  it('passes dryRun and the whole request to the context; CONNECT is allowed without a call', async () => {
    seen.length = 0;
    validatorImpl = {};
    await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }, { dryRun: true }),
    );
    await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.deepEqual(
      seen.map((s) => s.dryRun),
      [true, false],
    );
    const ctx = must(seen[0].ctx, 'seen[0].ctx');
    assert.equal(ctx.request.dryRun, true);
    assert.equal(ctx.request.userInfo.username, 'alice');
    assert.equal(ctx.request.namespace, 'default');
    assert.equal(ctx.signal.aborted, false);
    assert.equal(typeof ctx.logger.info, 'function');
    seen.length = 0;
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CONNECT', { object: {} }),
    );
    assert.equal(r.json.response.allowed, true);
    assert.deepEqual(seen, []);
  });

  it('an unknown operation is answered with code 400 in the review', async () => {
    const r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('PATCH' as 'CREATE', { object: {} }),
    );
    assert.deepEqual(r.json.response, {
      uid: 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01',
      allowed: false,
      status: { code: 400, message: 'unknown operation "PATCH"' },
    });
  });

  it('user code throwing a string or crashing is denied (500), logged and counted in the panics metric', async () => {
    const before = await metricValue(srv.registry, 'controller_runtime_webhook_panics_total');
    validatorImpl = {
      validateCreate: () => {
        throw 'not an error';
      },
      validateUpdate: (o: Obj) => o.spec.missing.deeper,
    };
    let r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.response.status, { code: 500, message: 'panic: not an error [recovered]' });
    assert.equal(r.json.response.allowed, false);
    r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('UPDATE', { object: { spec: {} }, oldObject: { spec: {} } }),
    );
    assert.equal(r.json.response.status.code, 500);
    assert.match(r.json.response.status.message, /^panic: Cannot read properties of undefined/);
    assert.equal(await metricValue(srv.registry, 'controller_runtime_webhook_panics_total'), before + 2);
    // The server goes on serving.
    validatorImpl = {};
    r = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: {} } }),
    );
    assert.equal(r.json.response.allowed, true);
  });
});

describe('handler construction', () => {
  it('withCustomDefaulter / withCustomValidator reject incomplete objects', () => {
    assert.throws(() => withCustomDefaulter({} as never), /no default\(obj, ctx\) method/);
    assert.throws(() => withCustomValidator({ validateCreate() {} } as never), /lacks validateUpdate, validateDelete/);
  });
});
