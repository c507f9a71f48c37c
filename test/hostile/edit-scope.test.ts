// Hostile input, second round, family 4: `edit` merges by structure and never overwrites a user's
// file. A manager.yaml with the user's own env: list used to get a second env: key (exit 0,
// kustomize refuses the file, and --force then found nothing to change); a PROJECT edited by hand
// to namespaced: true left the files cluster-scoped for good; `edit --plugins grafana` overwrote
// an edited dashboard. Driven through the real CLI.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { cleanup, cli, fingerprint, initProject, ok } from './helpers.js';

after(cleanup);

const project = () => initProject();

const MANAGER = 'config/manager/manager.yaml';

/** The manager container's env (names) of manager.yaml, which must parse with no error (duplicate keys included). */
function managerEnv(dir: string): string[] {
  const docs = parseAllDocuments(readFileSync(join(dir, MANAGER), 'utf8'));
  assert.ok(Array.isArray(docs));
  for (const d of docs)
    assert.deepEqual(
      d.errors.map((e) => e.message),
      [],
      `${MANAGER} is not valid YAML`,
    );
  const deployment = docs.map((d) => d.toJS()).find((d) => d.kind === 'Deployment');
  const container = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'manager');
  return (container.env ?? []).map((e: { name: string }) => e.name);
}

describe("hostile: edit merges YAML by structure and keeps the user's files (CLI)", () => {
  it('a user env: list in the manager: --namespaced adds WATCH_NAMESPACE to it, --namespaced=false takes it out again', async () => {
    const dir = await project();
    const text = readFileSync(join(dir, MANAGER), 'utf8');
    writeFileSync(
      join(dir, MANAGER),
      text.replace(
        '        image: controller:latest\n',
        '        image: controller:latest\n        env:\n        - name: LOG_LEVEL\n          value: debug\n',
      ),
    );
    const r = ok(await cli(dir, ['edit', '--namespaced', '--make=false']), 'edit --namespaced');
    assert.match(
      r.err + r.out,
      /switched config\/manager\/manager\.yaml to a namespace-scoped manager, keeping your own changes in it/,
    );
    assert.deepEqual(managerEnv(dir), ['LOG_LEVEL', 'WATCH_NAMESPACE']);
    assert.equal(
      ok(await cli(dir, ['edit', '--namespaced', '--make=false']), 'edit --namespaced again')
        .out.trim()
        .split('\n')[0],
      'Nothing to change.',
    );
    ok(await cli(dir, ['edit', '--namespaced=false', '--make=false']), 'edit --namespaced=false');
    assert.deepEqual(managerEnv(dir), ['LOG_LEVEL']);
  });

  it('PROJECT edited by hand to namespaced: true: edit --namespaced switches the files still cluster-scoped', async () => {
    const dir = await project();
    writeFileSync(
      join(dir, 'PROJECT'),
      readFileSync(join(dir, 'PROJECT'), 'utf8').replace(/^projectName:/m, 'namespaced: true\nprojectName:'),
    );
    const r = ok(await cli(dir, ['edit', '--namespaced', '--make=false']), 'edit --namespaced');
    assert.match(r.out, /UPDATE config\/manager\/manager\.yaml/);
    assert.match(
      r.err + r.out,
      /PROJECT already said namespaced: true; the files still of the other scope were switched to match it/,
    );
    assert.deepEqual(managerEnv(dir), ['WATCH_NAMESPACE']);
    assert.match(readFileSync(join(dir, 'config/rbac/role_binding.yaml'), 'utf8'), /kind: RoleBinding/);
    assert.equal(
      ok(await cli(dir, ['edit', '--namespaced', '--make=false']), 'edit --namespaced again')
        .out.trim()
        .split('\n')[0],
      'Nothing to change.',
    );
  });

  it('edit --plugins grafana: an edited dashboard is KF1103 and kept; --force replaces it', async () => {
    const dir = await project();
    ok(await cli(dir, ['edit', '--plugins', 'grafana', '--make=false']), 'edit --plugins grafana');
    const board = join(dir, 'grafana/controller-runtime-metrics.json');
    writeFileSync(board, '{"title": "mine"}\n');
    const before = fingerprint(dir);
    const r = await cli(dir, ['edit', '--plugins', 'grafana', '--make=false']);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(
      r.err,
      /grafana\/controller-runtime-metrics\.json {2}KF1103 {2}grafana\/controller-runtime-metrics\.json already exists and differs/,
    );
    assert.deepEqual(fingerprint(dir), before);
    ok(await cli(dir, ['edit', '--plugins', 'grafana', '--make=false', '--force']), 'edit --plugins grafana --force');
    assert.match(readFileSync(board, 'utf8'), /"__inputs"/);
  });
});
