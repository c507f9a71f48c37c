#!/usr/bin/env node
// `npm run demo`: the Kubebuilder CronJob tutorial, run by the real CLI.
//   1. kubeforge init          a new operator project in .tmp/demo/cronjob-operator (npm install included)
//   2. kubeforge create api    the CronJob Kind and its controller
//   3. edit types and test     examples/cronjob's CronJob spec (schedule, jobTemplate, history limits...)
//   4. kubeforge manifests     CRD and RBAC from the decorators
//   5. npm run build           tsc --strict of the operator
//   6. kubectl kustomize       config/default renders
// Any failing step stops the demo with its output and a non-zero exit.
// @ts-check
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const dir = join(root, '.tmp/demo/cronjob-operator');
const kubeforge = join(root, 'bin/kubeforge.js');
const started = Date.now();

/**
 * Runs one step of the demo; exits the process (this is a script) when it fails.
 * @param {string} title
 * @param {string} cmd
 * @param {string[]} args
 */
function step(title, cmd, args, cwd = dir) {
  const t0 = Date.now();
  process.stdout.write(`\n==> ${title}\n$ ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  if (r.status !== 0) {
    console.error(`\ndemo: step "${title}" failed (exit ${r.status ?? r.signal}); the project is left in ${relative(process.cwd(), dir)} to inspect.`);
    process.exit(1);
  }
  process.stdout.write(`    (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
}

if (!existsSync(join(root, 'dist/cli/index.js'))) step('build kubeforge', 'npm', ['run', 'build'], root);

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

step('kubeforge init', process.execPath, [kubeforge, 'init', '--domain', 'tutorial.kubebuilder.io', '--project-name', 'cronjob-operator', '--no-color']);
step('kubeforge create api', process.execPath, [kubeforge, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', '--no-color']);

process.stdout.write('\n==> edit the CronJob types and their test (as the tutorial does)\n');
for (const file of ['src/api/v1/cronjob_types.ts', 'test/controller/cronjob_controller.test.ts']) {
  cpSync(join(root, 'examples/cronjob', file), join(dir, file));
  process.stdout.write(`    ${file} <- examples/cronjob/${file}\n`);
}

step('kubeforge manifests', process.execPath, [kubeforge, 'manifests', '--no-color']);
step('npm run build', 'npm', ['run', 'build']);
const kustomize = spawnSync('kubectl', ['kustomize', 'config/default'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
if (kustomize.status !== 0) {
  console.error(`demo: kubectl kustomize config/default failed:\n${kustomize.stderr}`);
  process.exit(1);
}
const kinds = [...kustomize.stdout.matchAll(/^kind: (\S+)$/gm)].map((m) => m[1]);
const crd = readFileSync(join(dir, 'config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8');

console.log(`
==> done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${relative(process.cwd(), dir)}
    config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml   ${crd.split('\n').length} lines
    kubectl kustomize config/default                              ${kinds.length} objects (${[...new Set(kinds)].sort().join(', ')})
    build/src/main.js                                             the manager (npm start runs it against your kubeconfig)

Next: cd ${relative(process.cwd(), dir)} && npm test   (needs KUBEBUILDER_ASSETS: npm run setup-envtest in kubeforge)`);
