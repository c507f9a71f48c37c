// Kubebuilder is the judge of the scaffold. Its project-v4 command sequence (testdata/generate.sh,
// the Go-only flags left out as in test/e2e/project-v4.test.ts) runs with `kubebuilder` (the
// version whose controller-gen kubeforge follows, built from Go modules) and with `kubeforge` in
// two folders of the same name; then what must be equal is compared:
//   - PROJECT: its keys, top level and per resource, and the resources' values
//   - the Makefile's target names
//   - `kubectl kustomize config/default` (after `make manifests`'s generators: controller-gen on the
//     Go project, `kubeforge manifests` on ours): every object by kind and name, with the parts
//     that are a Node process's rather than a Go binary's masked (the manager container's command,
//     args, image, probes and resources)
// The differences are printed as a table; each one is listed below with its reason, and the test
// fails on any difference that is not listed (and on a listed one that no longer occurs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { findGo } from '../../src/envtest/go-build.js';
import { PROJECT_V4_COMMANDS } from '../e2e/sequences.js';
import { controllerGen, kubebuilder, KUBEBUILDER_VERSION, runTool } from './tools.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
/**
 * generate.sh's project-v4 lines (test/e2e/sequences.ts) with `--make=false` everywhere (nothing is
 * built for the comparison), and without its second `create api ... --force` (Kubebuilder scaffolds
 * the same Kind again with it; the comparison needs each command once).
 */
const PROJECT_V4 = PROJECT_V4_COMMANDS.split('\n')
  .filter((l) => l && !l.endsWith('--force'))
  .map((l) => (l.includes('--make=false') ? l : `${l} --make=false`))
  .join('\n');

/**
 * The differences that are kubeforge's on purpose, each with its reason: a pattern of the lines the
 * comparison prints (`<area> <path>: <what>`). Every difference must match one; every pattern must
 * still match a difference (a list that no longer describes the scaffold fails too).
 */
const LISTED: [RegExp, string][] = [
  [
    /^PROJECT\.cliVersion: "\d+\.\d+\.\d+" vs "\d+\.\d+\.\d+[^"]*"$/,
    'each records the version of the CLI that scaffolded the project (its alpha update starts from it)',
  ],
  [
    /^PROJECT\.layout\[0\]: "go\.kubebuilder\.io\/v4" vs "typescript\.kubeforge\.io\/v1"$/,
    "the layout plugin is the language's",
  ],
  [
    /^PROJECT\.repo: "sigs\.k8s\.io\/kubebuilder\/testdata\/project-v4" vs "project-v4"$/,
    'a Go module path vs the npm package name (init --package-name; here the project name)',
  ],
  [
    /^PROJECT\.resources\[\d+\]\.path: "sigs\.k8s\.io\/kubebuilder\/testdata\/project-v4\/api\/(v\d)" vs "src\/api\/\1\/\w+_types\.ts"$/,
    "a Go package's import path vs the TypeScript file that declares the Kind",
  ],
  [
    /^Makefile (controller-gen|envtest|golangci-lint|kustomize): only in kubebuilder$/,
    "installers of Go tools: kubeforge's targets run its own commands (manifests, setup-envtest), kubectl kustomize and the project's npm tools (lint-config is in both: Biome checks biome.json as golangci-lint config verify checks .golangci.yml)",
  ],
  [
    /^Makefile (install-deps|node_modules|set-image): only in kubeforge$/,
    "npm dependencies, and setting the manager's image without the kustomize binary",
  ],
  [
    /^Makefile docs: only in kubeforge$/,
    'kubeforge docs writes the API reference from the CRDs; Kubebuilder scaffolds no documentation target',
  ],
  [
    /^Makefile check-compat: only in kubeforge$/,
    "kubeforge manifests --check-compat against a release's CRDs (issue #28); Kubebuilder projects bolt on crdify for that",
  ],
  [
    /^Makefile dev: only in kubeforge$/,
    "kubeforge dev, the inner loop with webhooks (issue #27); Kubebuilder's `make run` runs the manager once, without webhooks",
  ],
  [
    /^Makefile test-unit: only in kubeforge$/,
    "the unit tier alone (the scaffolded tests on kubeforge/testing's fake API server, no etcd or kube-apiserver); Go's `go test` needs no target for that",
  ],
  [
    /^config\/default ClusterRole\/\/project-v4-manager-role rule \{"apiGroups":\["events\.k8s\.io"\],"resources":\["events"\],"verbs":\["create","patch"\]\}: only in kubeforge$/,
    "kubeforge's scaffolded reconcilers record events (events.k8s.io/v1, as controller-runtime 0.23+ records them) and carry the @Rbac marker for it",
  ],
  [
    /^config\/default CustomResourceDefinition\/\/[\w.]+\.metadata\.annotations\.controller-gen\.kubebuilder\.io\/version: only in kubebuilder$/,
    'each generator stamps its own name and version',
  ],
  [
    /^config\/default CustomResourceDefinition\/\/[\w.]+\.metadata\.annotations\.kubeforge\.io\/version: only in kubeforge$/,
    'each generator stamps its own name and version',
  ],
  [
    /foo\.description: "foo is an example field of (\w+)\. Edit (\w+)_types\.go to remove\/update" vs "foo is an example field of \1\. Edit \2_types\.ts to remove\/update"$/,
    'the types file is TypeScript',
  ],
  [
    /^config\/default Deployment\/project-v4-system\/project-v4-controller-manager\.spec\.template\.spec\.containers\[0\]\.command: only in kubebuilder$/,
    "a Go image runs /manager; kubeforge's image runs the Node manager from its Dockerfile's entrypoint",
  ],
];
const reasonOf = (line: string) => LISTED.find(([re]) => re.test(line))?.[1];

type Obj = Record<string, unknown>;

function words(line: string): string[] {
  return [...line.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replace(/"/g, ''));
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 10 * 60_000 });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}) in ${cwd}:\n${r.stdout}\n${r.stderr}`,
    );
  return r.stdout;
}

/** Every difference between two JSON values, as `path: what` lines. */
function differences(kb: unknown, kf: unknown, path: string): string[] {
  if (JSON.stringify(kb) === JSON.stringify(kf)) return [];
  if (kb === undefined) return [`${path}: only in kubeforge`];
  if (kf === undefined) return [`${path}: only in kubebuilder`];
  if (Array.isArray(kb) && Array.isArray(kf) && kb.length === kf.length)
    return kb.flatMap((x, i) => differences(x, kf[i], `${path}[${i}]`));
  if (kb && kf && typeof kb === 'object' && typeof kf === 'object' && !Array.isArray(kb) && !Array.isArray(kf)) {
    return [...new Set([...Object.keys(kb), ...Object.keys(kf)])]
      .sort()
      .flatMap((k) => differences((kb as Obj)[k], (kf as Obj)[k], `${path}.${k}`));
  }
  return [`${path}: ${JSON.stringify(kb)} vs ${JSON.stringify(kf)}`];
}

/** The manager container's parts that are the program's (a Go binary vs a Node process): masked. */
function mask(obj: Obj): Obj {
  if (obj.kind !== 'Deployment') return obj;
  const copy = structuredClone(obj) as { spec: { template: { spec: { containers: Obj[] } } } };
  for (const c of copy.spec.template.spec.containers)
    for (const k of ['command', 'args', 'image', 'livenessProbe', 'readinessProbe', 'resources'])
      if (c[k] !== undefined) c[k] = '<masked>';
  return copy as unknown as Obj;
}

function kustomized(dir: string): Map<string, Obj> {
  const docs = YAML.parseAllDocuments(run('kubectl', ['kustomize', 'config/default'], dir)).map((d) => d.toJS() as Obj);
  return new Map(
    docs.map((d) => [`${d.kind}/${(d.metadata as Obj).namespace ?? ''}/${(d.metadata as Obj).name}`, mask(d)]),
  );
}

/** Two objects' differences; the rules of a (Cluster)Role compared as a set, one line per rule. */
function objectDifferences(key: string, kb: Obj | undefined, kf: Obj | undefined): string[] {
  if (kb && kf && Array.isArray(kb.rules) && Array.isArray(kf.rules)) {
    const [a, b] = [
      (kb.rules as unknown[]).map((r) => JSON.stringify(r)),
      (kf.rules as unknown[]).map((r) => JSON.stringify(r)),
    ];
    const rules = [
      ...a.filter((r) => !b.includes(r)).map((r) => `config/default ${key} rule ${r}: only in kubebuilder`),
      ...b.filter((r) => !a.includes(r)).map((r) => `config/default ${key} rule ${r}: only in kubeforge`),
    ];
    return [...rules, ...differences({ ...kb, rules: [] }, { ...kf, rules: [] }, `config/default ${key}`)];
  }
  return differences(kb, kf, `config/default ${key}`);
}

function makeTargets(dir: string): string[] {
  return [
    ...new Set(
      [...readFileSync(join(dir, 'Makefile'), 'utf8').matchAll(/^([A-Za-z0-9][\w.-]*)\s*:(?!=)/gm)].map((m) => m[1]),
    ),
  ].sort();
}

describe(`Kubebuilder ${KUBEBUILDER_VERSION} as the judge of the scaffold (project-v4)`, () => {
  const work = mkdtempSync(join(tmpdir(), 'kf-kubebuilder-'));
  const kb = join(work, 'kubebuilder', 'project-v4');
  const kf = join(work, 'kubeforge', 'project-v4');
  const found: string[] = [];
  before(async () => {
    const go = await findGo();
    const env = {
      PATH: `${go?.includes('/') ? `${dirname(go)}:` : ''}${process.env.PATH ?? ''}`,
      GOFLAGS: '-buildvcs=false',
    };
    const bin = await kubebuilder();
    mkdirSync(kb, { recursive: true });
    mkdirSync(kf, { recursive: true });
    run(
      bin,
      [
        'init',
        '--domain',
        'testproject.org',
        '--repo',
        'sigs.k8s.io/kubebuilder/testdata/project-v4',
        '--skip-go-version-check',
      ],
      kb,
      env,
    );
    run(
      process.execPath,
      [
        join(root, 'bin/kubeforge.js'),
        'init',
        '--domain',
        'testproject.org',
        '--skip-install',
        '--kubeforge-source',
        'link',
      ],
      kf,
    );
    for (const line of PROJECT_V4.split('\n').filter(Boolean)) {
      run(bin, words(line), kb, env);
      run(process.execPath, [join(root, 'bin/kubeforge.js'), ...words(line)], kf);
    }
    // `make manifests`: controller-gen (the version the Makefile pins) on the Go project, kubeforge on ours.
    await runTool(
      await controllerGen(),
      ['rbac:roleName=manager-role', 'crd', 'webhook', 'paths=./...', 'output:crd:artifacts:config=config/crd/bases'],
      kb,
    );
    run(process.execPath, [join(root, 'bin/kubeforge.js'), 'manifests'], kf);
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
    // The table of differences, each with its reason (or NOT LISTED, which fails the test).
    if (found.length)
      process.stdout.write(
        `\n# Kubebuilder ${KUBEBUILDER_VERSION} vs kubeforge (project-v4): ${found.length} differences\n${found.map((f) => `#   ${f}  [${reasonOf(f) ?? 'NOT LISTED'}]`).join('\n')}\n`,
      );
  });

  it('PROJECT, Makefile targets and kubectl kustomize config/default agree, but for the listed differences', () => {
    const projectKb = YAML.parse(readFileSync(join(kb, 'PROJECT'), 'utf8')) as Obj;
    const projectKf = YAML.parse(readFileSync(join(kf, 'PROJECT'), 'utf8')) as Obj;
    found.push(...differences(projectKb, projectKf, 'PROJECT'));
    const [tKb, tKf] = [makeTargets(kb), makeTargets(kf)];
    for (const t of tKb) if (!tKf.includes(t)) found.push(`Makefile ${t}: only in kubebuilder`);
    for (const t of tKf) if (!tKb.includes(t)) found.push(`Makefile ${t}: only in kubeforge`);
    const [oKb, oKf] = [kustomized(kb), kustomized(kf)];
    for (const key of [...new Set([...oKb.keys(), ...oKf.keys()])].sort())
      found.push(...objectDifferences(key, oKb.get(key), oKf.get(key)));
    // The comparison saw the whole scaffold: every Kind's CRD, the webhooks, the manager.
    assert.ok(oKb.size >= 30 && oKf.size >= 30, `${oKb.size} and ${oKf.size} objects`);
    const unlisted = found.filter((f) => !reasonOf(f));
    const gone = LISTED.filter(([re]) => !found.some((f) => re.test(f))).map(([re]) => re.source);
    assert.deepEqual({ unlisted, gone }, { unlisted: [], gone: [] });
  });
});
