// controller-gen as the judge of every embedded Kubernetes model, at each supported minor. The test
// writes a Go twin with one field per @kubernetes/client-node model that names exactly one struct
// of that minor's k8s.io/api or k8s.io/apimachinery meta/v1 (its version, kind and API group, read
// from the Go sources), runs controller-gen on it in a module requiring that minor's modules, and
// compares each field's schema with kubeforge's schema of the model (k8sModelSchema at that minor).
// A difference below a field that is another compared model is that model's (compared once, there).
// What differs, and what controller-gen itself refuses (its error lines), must be what
// test/oracle/k8s-models-known.txt lists, each with its reason; UPDATE_GOLDEN=1 rewrites that list,
// keeping the reasons of the lines that stay (a new line gets `# ?`, which fails until someone
// writes why).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { MODEL_NAMES } from '../../src/schema/k8s/data/source.js';
import {
  type DataNode,
  K8S_VERSIONS,
  type K8sVersion,
  k8sModelSchema,
  k8sModelSource,
} from '../../src/schema/k8s/index.js';
import { diffSchemas } from '../schema/k8s/compare.js';
import { CONTROLLER_GEN_VERSION, controllerGen, runToolAllowingErrors, twinsRequiring } from './tools.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const twins = join(root, 'test/oracle/go');
const known = join(root, 'test/oracle/k8s-models-known.txt');
const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';

interface GoDecl {
  kind: 'struct' | 'named';
}
const source = (await import(pathToFileURL(join(root, 'scripts/k8s-go-source.mjs')).href)) as {
  GO_MINORS: readonly { kubernetes: string; modules: readonly { path: string; version: string }[] }[];
  kubernetesGoModules(kubernetes: string): Record<string, string>;
};
const goTypes = (await import(pathToFileURL(join(root, 'scripts/k8s-go-types.mjs')).href)) as {
  readGoPackages(roots: Record<string, string>, packages: string[]): Map<string, Map<string, GoDecl>>;
  apiPackages(roots: Record<string, string>): string[];
};

/**
 * The Go struct a client-node model name stands for at a minor: `CoreV1EndpointPort` ->
 * k8s.io/api/core/v1.EndpointPort, `V1LabelSelector` -> meta/v1's; undefined when no struct or
 * several (a name without a group that more than one API group declares) fit.
 */
function goStructOf(model: string, pkgs: Map<string, Map<string, GoDecl>>): { pkg: string; name: string } | undefined {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(model);
  if (!m) return undefined;
  const [group, version, kind] = [m[1]?.toLowerCase(), m[2].toLowerCase(), m[3]];
  const fits: { pkg: string; name: string }[] = [];
  for (const [pkg, types] of pkgs) {
    const gv = pkg === META ? ['meta', 'v1'] : /^k8s\.io\/api\/([^/]+)\/(v[^/]+)$/.exec(pkg)?.slice(1);
    if (!gv || gv[1] !== version || (group && !gv[0].startsWith(group))) continue;
    if (types.get(kind)?.kind === 'struct') fits.push({ pkg, name: kind });
  }
  return fits.length === 1 ? fits[0] : undefined;
}

interface Known {
  key: string;
  reason: string;
}

function readKnown(): Known[] {
  if (!existsSync(known)) return [];
  return readFileSync(known, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const at = l.indexOf(' # ');
      return at < 0 ? { key: l.trim(), reason: '' } : { key: l.slice(0, at).trim(), reason: l.slice(at + 3).trim() };
    });
}

/**
 * The paths of a model's schema below which another compared model's schema lies (`/properties/spec`
 * of a Deployment: a DeploymentSpec), found from the data's `$model` references.
 */
function delegated(node: DataNode, path: string, compared: Set<string>, out: string[]): string[] {
  if (node.$model && compared.has(node.$model)) out.push(path);
  else {
    if (node.items) delegated(node.items, `${path}/items`, compared, out);
    if (node.additionalProperties) delegated(node.additionalProperties, `${path}/additionalProperties`, compared, out);
  }
  return out;
}

describe(`controller-gen ${CONTROLLER_GEN_VERSION} on every Kubernetes model, at each Kubernetes minor kubeforge ships`, () => {
  const found = new Map<string, string[]>();
  after(() => {
    if (process.env.UPDATE_GOLDEN !== '1' || found.size !== K8S_VERSIONS.length) return;
    const reasons = new Map(readKnown().map((k) => [k.key, k.reason]));
    const head = existsSync(known)
      ? readFileSync(known, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('#'))
      : [];
    const keys = [...found.keys()].sort().flatMap((k) => must(found.get(k), 'found.get(k)'));
    writeFileSync(known, `${[...head, ...keys.map((k) => `${k} # ${reasons.get(k) || '?'}`)].join('\n')}\n`);
  });

  it('every listed difference says why', () => {
    for (const k of readKnown()) assert.ok(k.reason && k.reason !== '?', `${k.key}: no reason given`);
  });

  for (const pin of source.GO_MINORS) {
    const minor = pin.kubernetes as K8sVersion;
    describe(`Kubernetes ${minor} (${pin.modules.map((m) => `${m.path} ${m.version}`).join(', ')})`, () => {
      const models: { model: string; pkg: string; name: string }[] = [];
      let said: Record<string, JSONSchemaProps> = {};
      let errors: string[] = [];
      let cleanup = () => {};
      before(async () => {
        const modules = source.kubernetesGoModules(minor);
        const pkgs = goTypes.readGoPackages(modules, [...goTypes.apiPackages(modules), META]);
        for (const model of MODEL_NAMES) {
          const go = goStructOf(model, pkgs);
          if (go) models.push({ model, ...go });
        }
        const aliases = new Map([...new Set(models.map((m) => m.pkg))].sort().map((p, i) => [p, `p${i}`]));
        const twin = [
          '// +groupName=sweep.oracle.kubeforge.io',
          '// +kubebuilder:validation:Optional',
          'package v1',
          '',
          'import (',
          ...[...aliases].map(([p, a]) => `\t${a} "${p}"`),
          `\tmetav1 "${META}"`,
          ')',
          '',
          'type SweepSpec struct {',
          ...models.map((m, i) => `\tF${i} *${aliases.get(m.pkg)}.${m.name} \`json:"${m.model},omitempty"\``),
          '}',
          '',
          '// +kubebuilder:object:root=true',
          'type Sweep struct {',
          '\tmetav1.TypeMeta   `json:",inline"`',
          '\tmetav1.ObjectMeta `json:"metadata,omitempty"`',
          '\tSpec SweepSpec `json:"spec"`',
          '}',
          '',
        ].join('\n');
        const module = await twinsRequiring(twins, [], pin.modules, { 'sweep/v1/types.go': twin });
        cleanup = module.cleanup;
        const out = mkdtempSync(join(tmpdir(), 'kf-sweep-'));
        // controller-gen writes the CRD also when it refuses a marker somewhere (its errors are listed).
        const r = await runToolAllowingErrors(
          await controllerGen(),
          ['crd', 'paths=./sweep/...', `output:crd:dir=${out}`],
          module.dir,
        );
        // Each error once (controller-gen repeats one per use of the type), the module cache's path left out.
        errors = [
          ...new Set(
            r.stderr
              .split('\n')
              .filter((l) => /^\/.*:\d+:\d+: /.test(l))
              .map((l) => l.replace(/^.*\/pkg\/mod\//, '')),
          ),
        ].sort();
        const file = join(out, 'sweep.oracle.kubeforge.io_sweeps.yaml');
        if (!existsSync(file))
          throw new Error(`controller-gen wrote no CRD (exit ${r.status}):\n${r.stderr.slice(-3000)}`);
        const crd = YAML.parse(readFileSync(file, 'utf8')) as {
          spec: {
            versions: {
              schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, JSONSchemaProps> } } } };
            }[];
          };
        };
        said = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
        rmSync(out, { recursive: true, force: true });
      });
      after(() => cleanup());

      it('every model that is one Go struct of the minor: the schema controller-gen writes, or a listed difference', () => {
        assert.ok(models.length > 550, `only ${models.length} models compared`);
        const compared = new Set(models.map((m) => m.model));
        const lines = [...errors.map((e) => `${minor} controller-gen-error ${e}`)];
        for (const { model } of models) {
          const theirs = said[model];
          assert.ok(theirs, `controller-gen wrote no schema for ${model}`);
          const ours = must(
            k8sModelSchema(model, { kubernetesVersion: minor }),
            'k8sModelSchema(model, { kubernetesVersion: minor })',
          );
          const below: string[] = [];
          for (const [field, node] of Object.entries(
            must(k8sModelSource(model, minor), 'k8sModelSource(model, minor)').properties,
          ))
            delegated(node, `/properties/${field}`, compared, below);
          for (const d of diffSchemas(ours, theirs)) {
            if (below.some((p) => d.path.startsWith(`${p}/`))) continue;
            lines.push(`${minor} ${model}${d.path} ${d.key} ${d.kind}`);
          }
        }
        found.set(minor, lines);
        const listed = readKnown()
          .map((k) => k.key)
          .filter((k) => k.startsWith(`${minor} `));
        assert.deepEqual(
          lines,
          listed,
          'the differences from controller-gen are the listed ones (UPDATE_GOLDEN=1 rewrites the list)',
        );
      });
    });
  }
});
