import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, generateSelfSignedCert, getConfigOrDie } from '../../../src/runtime/manager/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const dir = mkdtempSync(join(tmpdir(), 'kf-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(file: string, server: string, contexts: string[] = ['main']): string {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c, i) => [`- name: ${c}`, '  cluster:', `    server: ${server.replace('PORT', String(6443 + i))}`]),
    'users:',
    '- name: u',
    '  user:',
    '    token: t',
    'contexts:',
    ...contexts.flatMap((c) => [`- name: ${c}`, '  context:', `    cluster: ${c}`, '    user: u']),
    `current-context: ${contexts[0]}`,
    '',
  ].join('\n');
  writeFileSync(file, text);
  return file;
}

describe('getConfigOrDie', () => {
  const a = kubeconfig(join(dir, 'a.yaml'), 'https://a.example:PORT', ['main', 'second']);
  const b = kubeconfig(join(dir, 'b.yaml'), 'https://b.example:PORT');

  it('prefers --kubeconfig over KUBECONFIG', () => {
    const kc = getConfigOrDie({ argv: ['--kubeconfig', a], env: { KUBECONFIG: b } });
    assert.equal(kc.getCurrentCluster()!.server, 'https://a.example:6443');
    const kc2 = getConfigOrDie({ argv: [`--kubeconfig=${a}`, '--context=second'], env: {} });
    assert.equal(kc2.getCurrentCluster()!.server, 'https://a.example:6444');
  });

  it('uses KUBECONFIG, then ~/.kube/config', () => {
    assert.equal(getConfigOrDie({ argv: [], env: { KUBECONFIG: b } }).getCurrentCluster()!.server, 'https://b.example:6443');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    kubeconfig(join(home, '.kube', 'config'), 'https://home.example:PORT');
    assert.equal(getConfigOrDie({ argv: [], env: { HOME: home } }).getCurrentCluster()!.server, 'https://home.example:6443');
  });

  it('says where it looked when nothing is found, and names a missing file', () => {
    assert.throws(
      () => getConfigOrDie({ argv: [], env: { HOME: join(dir, 'empty-home') } }),
      (e: unknown) => e instanceof ConfigError && /no Kubernetes configuration found/.test(e.message) && /KUBECONFIG/.test(e.message) && /in-cluster/.test(e.message),
    );
    assert.throws(() => getConfigOrDie({ argv: ['--kubeconfig', join(dir, 'missing.yaml')], env: {} }), /missing\.yaml \(from --kubeconfig\) does not exist/);
    assert.throws(() => getConfigOrDie({ argv: ['--context', 'nope'], env: { KUBECONFIG: a } }), /context "nope" not found/);
  });
});

describe('generateSelfSignedCert', () => {
  it('produces a self-signed CA certificate for the hosts, verifiable with its own key', () => {
    const { cert, key } = generateSelfSignedCert({ hosts: ['127.0.0.1', 'metrics.svc'] });
    const x = new X509Certificate(cert);
    assert.equal(x.ca, true);
    assert.equal(x.verify(x.publicKey), true);
    assert.equal(x.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(x.checkHost('metrics.svc'), 'metrics.svc');
    assert.equal(x.checkHost('other.svc'), undefined);
    assert.match(key, /BEGIN PRIVATE KEY/);
  });
});

describe('setupSignalHandler', () => {
  it('aborts on the first SIGTERM and exits with 1 on the second', async () => {
    const entry = join(root, 'build/src/runtime/manager/signals.js');
    const script = `
      const { setupSignalHandler } = await import(${JSON.stringify(entry)});
      const s = setupSignalHandler();
      if (setupSignalHandler() !== s) process.exit(9);
      s.addEventListener('abort', () => { console.log('aborted: ' + s.reason.message); });
      console.log('ready');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    const waitFor = (text: string) =>
      new Promise<void>((res) => {
        const check = () => (out.includes(text) ? res() : undefined);
        child.stdout.on('data', (d) => {
          out += d;
          check();
        });
        check();
      });
    await waitFor('ready');
    child.kill('SIGTERM');
    await waitFor('aborted: received SIGTERM');
    assert.equal(child.exitCode, null, 'still running after the first signal');
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 1);
  });
});
