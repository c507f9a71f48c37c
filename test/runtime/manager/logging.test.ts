// The manager's zap flags (--zap-log-level, --zap-devel, --zap-encoder) turned into a pino logger.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoggerOptionsError, newLogger, zapLevel } from '../../../src/runtime/manager/logging.js';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (l: string) => lines.push(l) } };
}

describe('newLogger (zap flags)', () => {
  it('production defaults: JSON lines at info, level as a word', () => {
    const c = capture();
    const log = newLogger({ destination: c.destination }).child({ logger: 'setup' });
    log.debug('hidden');
    log.info({ controller: 'memcached' }, 'starting manager');
    assert.equal(c.lines.length, 1);
    const rec = JSON.parse(c.lines[0]);
    assert.equal(rec.level, 'info');
    assert.equal(rec.logger, 'setup');
    assert.equal(rec.msg, 'starting manager');
    assert.equal(rec.controller, 'memcached');
  });

  it('--zap-devel: console lines (time, LEVEL, logger, message, fields) at debug', () => {
    const c = capture();
    const log = newLogger({ development: true, destination: c.destination }).child({ logger: 'controller' });
    log.debug({ name: 'a', namespace: 'ns' }, 'reconciling');
    assert.equal(c.lines.length, 1);
    assert.match(
      c.lines[0],
      /^\d{4}-\d\d-\d\dT[\d:.]+Z\tDEBUG\tcontroller\treconciling\t\{"name":"a","namespace":"ns"\}\n$/,
    );
  });

  it('an error logged in console format shows its message and stack', () => {
    const c = capture();
    newLogger({ encoder: 'console', destination: c.destination }).error({ err: new Error('boom') }, 'reconcile failed');
    assert.match(c.lines[0], /\tERROR\treconcile failed\t\{"error":"boom"\}\nError: boom\n\s+at /);
  });

  it('--zap-log-level and --zap-encoder override the development defaults', () => {
    const c = capture();
    const log = newLogger({ development: true, level: 'error', encoder: 'json', destination: c.destination });
    log.info('hidden');
    log.error('shown');
    assert.equal(c.lines.length, 1);
    assert.equal(JSON.parse(c.lines[0]).level, 'error');
  });

  it('levels as zap names them: panic is the highest, integers are more verbose than debug', () => {
    assert.equal(zapLevel('panic'), 'fatal');
    assert.equal(zapLevel('1'), 'debug');
    assert.equal(zapLevel(3), 'trace');
    assert.equal(zapLevel('INFO'), 'info');
  });

  it('rejects an unknown level or encoder, naming the flag', () => {
    assert.throws(
      () => newLogger({ level: 'loud' }),
      (e: unknown) =>
        e instanceof LoggerOptionsError &&
        /invalid log level "loud" \(the level option, --zap-log-level on the command line\)/.test(e.message),
    );
    assert.equal(zapLevel('silent'), 'silent');
    assert.equal(newLogger({ level: 'silent' }).level, 'silent');
    assert.throws(() => newLogger({ level: '0' }), LoggerOptionsError);
    assert.throws(
      () => newLogger({ encoder: 'yaml' as 'json' }),
      (e: unknown) => e instanceof LoggerOptionsError && /--zap-encoder "yaml"/.test(e.message),
    );
  });
});
