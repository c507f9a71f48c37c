import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConfigError, getConfigOrDie } from '../../../src/runtime/manager/index.js';
import { generateSelfSignedCert, generateCACert, generateSignedCert } from '../../../src/runtime/manager/selfsigned.js';
import { must } from '../../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const dir = mkdtempSync(join(tmpdir(), 'kf-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(file: string, server: string, contexts: string[] = ['main']): string {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c, i) => [
      `- name: ${c}`,
      '  cluster:',
      `    server: ${server.replace('PORT', String(6443 + i))}`,
    ]),
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
    assert.equal(must(kc.getCurrentCluster(), 'kc.getCurrentCluster()').server, 'https://a.example:6443');
    const kc2 = getConfigOrDie({ argv: [`--kubeconfig=${a}`, '--context=second'], env: {} });
    assert.equal(must(kc2.getCurrentCluster(), 'kc2.getCurrentCluster()').server, 'https://a.example:6444');
  });

  it('uses KUBECONFIG, then ~/.kube/config', () => {
    assert.equal(
      must(
        getConfigOrDie({ argv: [], env: { KUBECONFIG: b } }).getCurrentCluster(),
        'getConfigOrDie({ argv: [], env: { KUBECONFIG: b } }).getCurrentClus...',
      ).server,
      'https://b.example:6443',
    );
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    kubeconfig(join(home, '.kube', 'config'), 'https://home.example:PORT');
    assert.equal(
      must(
        getConfigOrDie({ argv: [], env: { HOME: home } }).getCurrentCluster(),
        'getConfigOrDie({ argv: [], env: { HOME: home } }).getCurrentCluster()',
      ).server,
      'https://home.example:6443',
    );
  });

  it('says where it looked when nothing is found, and names a missing file', () => {
    assert.throws(
      () => getConfigOrDie({ argv: [], env: { HOME: join(dir, 'empty-home') } }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /no Kubernetes configuration found/.test(e.message) &&
        /KUBECONFIG/.test(e.message) &&
        /in-cluster/.test(e.message),
    );
    assert.throws(
      () => getConfigOrDie({ argv: ['--kubeconfig', join(dir, 'missing.yaml')], env: {} }),
      /missing\.yaml \(from --kubeconfig\) does not exist/,
    );
    assert.throws(
      () => getConfigOrDie({ argv: ['--context', 'nope'], env: { KUBECONFIG: a } }),
      /context "nope" not found/,
    );
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

describe('generateCACert and generateSignedCert', () => {
  it('issue a CA and a serving certificate it signs, which a TLS client trusting only the CA accepts', async () => {
    const ca = generateCACert({ commonName: 'test-ca' });
    const caX = new X509Certificate(ca.cert);
    assert.equal(caX.ca, true);
    assert.equal(caX.verify(caX.publicKey), true);
    assert.equal(caX.subject, 'CN=test-ca');
    const leaf = generateSignedCert(ca, { hosts: ['127.0.0.1', 'localhost'] });
    const leafX = new X509Certificate(leaf.cert);
    assert.equal(leafX.ca, false);
    assert.equal(leafX.issuer, 'CN=test-ca');
    assert.equal(leafX.checkIssued(caX), true);
    assert.equal(leafX.verify(caX.publicKey), true);
    assert.equal(leafX.checkIP('127.0.0.1'), '127.0.0.1');
    assert.notEqual(leaf.key, ca.key);

    const server = https.createServer({ cert: leaf.cert, key: leaf.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const get = (ca: string) =>
      new Promise<string>((resolve, reject) => {
        https
          .get(`https://127.0.0.1:${port}/`, { ca, agent: false }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
    try {
      assert.equal(await get(ca.cert), 'ok');
      await assert.rejects(get(generateCACert().cert), /certificate/);
    } finally {
      server.close();
    }
  });

  it('refuses to sign with a certificate that is not a CA or with a key that does not match', () => {
    const ca = generateCACert();
    const leaf = generateSignedCert(ca);
    assert.throws(() => generateSignedCert(leaf), /not a CA/);
    assert.throws(() => generateSignedCert({ cert: ca.cert, key: generateCACert().key }), /does not match/);
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
