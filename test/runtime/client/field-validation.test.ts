// Field validation of writes and the API server's warnings, on a real kube-apiserver: a field a
// type does not have is dropped with a warning by default (the server's Warn), refused under
// Strict, dropped silently under Ignore; the client hands the warnings to its handler, and a
// Manager logs each distinct one once (controller-runtime's KubeAPIWarningLogger).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { isBadRequest, newClient, type StatusError } from '../../../src/runtime/client/index.js';
import { parseWarnings } from '../../../src/runtime/client/rest.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { startEnv } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;

before(async () => {
  ({ env, config } = await startEnv());
});
after(async () => {
  await env?.stop();
});

/** A ConfigMap with a field ConfigMaps do not have. */
const stray = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { a: '1' },
  spec: { x: 1 },
});
/** A Widget (test CRD) with a field its schema does not have. */
const strayWidget = (name: string) => ({
  apiVersion: 'test.kubeforge.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec: { replicas: 1, colour: 'red' },
});

describe('field validation and API warnings (real API server)', () => {
  it('by default an unknown field is dropped and the warning reaches the handler', async () => {
    const warnings: string[] = [];
    const c = newClient(config, { warningHandler: (m) => warnings.push(m) });
    const created = await c.create(stray('warned'));
    assert.equal((created as Record<string, unknown>).spec, undefined, 'the server dropped the field');
    assert.deepEqual(warnings, ['unknown field "spec"']);
    await c.create(strayWidget('warned-widget'));
    assert.deepEqual(warnings, ['unknown field "spec"', 'unknown field "spec.colour"']);
  });

  it("Strict refuses the write with the server's words; a call can ask for Ignore", async () => {
    const warnings: string[] = [];
    const c = newClient(config, { fieldValidation: 'Strict', warningHandler: (m) => warnings.push(m) });
    await assert.rejects(c.create(stray('strict')), (e: unknown) => {
      assert.ok(isBadRequest(e), String(e));
      assert.match((e as StatusError).message, /strict decoding error: unknown field "spec"/);
      return true;
    });
    await assert.rejects(c.create(strayWidget('strict-widget')), /strict decoding error: unknown field "spec.colour"/);
    const ignored = await c.create(stray('ignored'), { fieldValidation: 'Ignore' });
    assert.equal((ignored as Record<string, unknown>).spec, undefined);
    assert.deepEqual(warnings, [], 'Ignore drops the field without a warning');
  });

  it("a Manager's client takes fieldValidation, and logs each distinct warning once", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const mgr = newManager(config, { logger });
    await mgr.getClient().create(stray('logged-1'));
    await mgr.getClient().create(stray('logged-2'));
    const logged = lines
      .map((l) => JSON.parse(l) as { logger?: string; msg?: string })
      .filter((l) => l.logger === 'KubeAPIWarningLogger');
    assert.deepEqual(
      logged.map((l) => l.msg),
      ['unknown field "spec"'],
    );

    const strict = newManager(config, { logger: pino({ level: 'silent' }), fieldValidation: 'Strict' });
    await assert.rejects(strict.getClient().create(stray('strict-manager')), /strict decoding error/);
  });

  it('reads the Warning header as the RFC writes it: several, quoted, escaped', () => {
    assert.deepEqual(parseWarnings('299 - "unknown field \\"spec\\""'), ['unknown field "spec"']);
    assert.deepEqual(parseWarnings('299 - "a", 299 - "b, with a comma"'), ['a', 'b, with a comma']);
    assert.deepEqual(parseWarnings('299 kube-apiserver "x" "Thu, 01 Jan 2026 00:00:00 GMT"'), ['x']);
    assert.deepEqual(parseWarnings('not a warning'), ['not a warning']);
  });
});
