// The CRDs well-known controller-gen projects commit (test/fixtures/real-crds, see PROVENANCE in
// each folder), judged by the real API server:
//   - kubeforge's verdict on each CRD (checkCRD errors: refused; none: written) must be the
//     server's (a dry-run create); every disagreement is listed in KNOWN with its reason; the
//     formats the server warns about on create (`unrecognized format "x"`) must be ours (KF4615);
//   - every printer-column path of the corpus is accepted by kubeforge without a column
//     diagnostic, the CRDs are installed, one object is created per CRD with columns, and
//     `kubectl get -o wide` prints every column's header.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { checkCRD, CODES, loadRuleCheck } from '../../src/manifests/crdcheck/index.js';
import { parsePrintColumnPath } from '../../src/manifests/crdcheck/jsonpath.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';
import type { Obj } from '../helpers/chart.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const CORPUS_DIR = join(root, 'test/fixtures/real-crds');

interface Entry {
  project: string;
  file: string;
  crd: Obj;
}

/** `<project>/<file>` of a CRD on which kubeforge and the API server disagree, and why. */
const KNOWN: Record<string, string> = {};

/**
 * `<project>/<file>` of a CRD the server creates but on which one of our warnings says the server
 * refuses it (a warning does not stop the write, yet its claim is false), and why.
 */
const KNOWN_FALSE_WARNINGS: Record<string, string> = {};

/** `<project>/<file>` of a CRD with columns whose minimal object the server refuses, and why. */
const NO_OBJECT: Record<string, string> = {};

/**
 * Fields added to the minimal spec where the project's own CEL rules or webhooks-turned-rules ask
 * for more than `required` says (each found from the server's refusal of the minimal object).
 */
const SPEC_EXTRA: Record<string, Obj> = {
  'crossplane/apiextensions.crossplane.io_compositions.yaml': {
    mode: 'Pipeline',
    pipeline: [{ step: 'a', functionRef: { name: 'a' } }],
  },
  'crossplane/apiextensions.crossplane.io_usages.yaml': {
    reason: 'a',
    of: { apiVersion: 'v1', kind: 'A', resourceRef: { name: 'a' } },
  },
  'crossplane/protection.crossplane.io_usages.yaml': {
    reason: 'a',
    of: { apiVersion: 'v1', kind: 'A', resourceRef: { name: 'a' } },
  },
  'crossplane/protection.crossplane.io_clusterusages.yaml': {
    reason: 'a',
    of: { apiVersion: 'v1', kind: 'A', resourceRef: { name: 'a' } },
  },
  'crossplane/pkg.crossplane.io_configurations.yaml': { package: 'registry.example.com/repo/package:tag' },
  'crossplane/pkg.crossplane.io_functions.yaml': { package: 'registry.example.com/repo/package:tag' },
  'crossplane/pkg.crossplane.io_providers.yaml': { package: 'registry.example.com/repo/package:tag' },
  'crossplane/pkg.crossplane.io_imageconfigs.yaml': { matchImages: [{ prefix: 'a' }] },
  'gateway-api/gateway.networking.k8s.io_backendtlspolicies.yaml': {
    validation: { hostname: 'a.example.com', wellKnownCACertificates: 'System' },
  },
  'gateway-api/gateway.networking.k8s.io_tcproutes.yaml': { rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] },
  'gateway-api/gateway.networking.k8s.io_tlsroutes.yaml': { rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] },
  'gateway-api/gateway.networking.k8s.io_udproutes.yaml': { rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] },
  'gateway-api/gateway.networking.x-k8s.io_xbackends.yaml': { externalHostname: { hostname: 'a.example.com' } },
};

function loadCorpus(): Entry[] {
  const out: Entry[] = [];
  for (const project of readdirSync(CORPUS_DIR).sort()) {
    for (const file of readdirSync(join(CORPUS_DIR, project))
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      const crd = parse(readFileSync(join(CORPUS_DIR, project, file), 'utf8')) as Obj;
      out.push({ project, file, crd });
    }
  }
  return out;
}

const corpus = loadCorpus();
const key = (e: Entry): string => `${e.project}/${e.file}`;

// ---------------------------------------------------------------------------------------------
// A minimal object for a schema: the required fields only, each with the smallest value its
// type, enum, format and bounds allow. Patterns and CEL rules are not solved: the server judges.

function minimalValue(s: Obj | undefined): unknown {
  if (!s) return {};
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((v: unknown) => v !== null) ?? s.enum[0];
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string': {
      if (s.format === 'date-time') return '2024-01-01T00:00:00Z';
      if (s.format === 'date') return '2024-01-01';
      if (s.format === 'duration') return '1s';
      if (s.format === 'byte') return 'YQ==';
      if (s.format === 'uri') return 'https://example.com';
      const plain = 'a'.repeat(Math.max(1, s.minLength ?? 1));
      if (typeof s.pattern !== 'string') return plain;
      // A few shapes real patterns ask for (qualified names, group/version, host/path, image refs).
      const re = new RegExp(s.pattern, 'u');
      return (
        [plain, 'a/b', 'example.com/a', 'v1', 'a.b', 'a-b', '1', 'A', 'a:b', 'registry.example.com/a/b:c'].find((c) =>
          re.test(c),
        ) ?? plain
      );
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.ceil(s.minimum + (s.exclusiveMinimum ? 1 : 0)) : 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, (_, i) => {
        const v = minimalValue(s.items);
        return typeof v === 'string' && s.items?.enum === undefined ? `${v}${i}` : v;
      });
    default: {
      const o: Obj = {};
      for (const name of (s.required ?? []) as string[])
        o[name] = minimalValue(
          s.properties?.[name] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined),
        );
      // minProperties: add optional properties in schema order, the scalar ones first.
      const optional = Object.entries((s.properties ?? {}) as Record<string, Obj>).filter(([n]) => !(n in o));
      optional.sort(
        ([, a], [, b]) =>
          Number(a.type === 'object' || a.type === 'array') - Number(b.type === 'object' || b.type === 'array'),
      );
      for (const [n, p] of optional) {
        if (Object.keys(o).length >= (s.minProperties ?? 0)) break;
        o[n] = minimalValue(p);
      }
      return o;
    }
  }
}

function minimalObject(crd: Obj, version: Obj, name: string, namespace: string | undefined): Obj {
  const schema = version.schema?.openAPIV3Schema ?? {};
  const body: Obj = {
    apiVersion: `${crd.spec.group}/${version.name}`,
    kind: crd.spec.names.kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
  };
  const required = new Set<string>(schema.required ?? []);
  if (schema.properties?.spec) required.add('spec');
  for (const f of required)
    if (!['apiVersion', 'kind', 'metadata', 'status'].includes(f)) body[f] = minimalValue(schema.properties?.[f]);
  return body;
}

function verdictOf(e: Entry): { errors: string[]; refusalWarnings: string[]; formats: string[] } {
  const diags = checkCRD(e.crd);
  return {
    formats: [
      ...new Set(
        diags
          .filter((d) => d.code === CODES.format)
          .map((d) => /unrecognized format "(.*?)"/.exec(d.message)?.[1] ?? ''),
      ),
    ].sort(),
    errors: diags.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`),
    refusalWarnings: diags
      .filter((d) => d.severity !== 'error' && /the API server refuses/.test(d.message))
      .map((d) => `${d.code}: ${d.message}`),
  };
}

describe("real projects' CRDs: kubeforge refuses exactly what the API server refuses", () => {
  let env: TestEnvironment;
  before(async () => {
    await loadRuleCheck();
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
  });
  after(async () => {
    await env?.stop();
  });

  it('the corpus holds CRDs of at least five projects', () => {
    const projects = new Set(corpus.map((e) => e.project));
    assert.ok(projects.size >= 5, `projects: ${[...projects].join(', ')}`);
    for (const e of corpus) assert.equal(e.crd.kind, 'CustomResourceDefinition', key(e));
  });

  it("every CRD: our verdict equals the server's dry-run create, or is listed in KNOWN", async () => {
    const client = new RestClient(env.config);
    const serverWarnings: string[] = [];
    client.setWarningHandler((w) => serverWarnings.push(w));
    const formatsDiffer: string[] = [];
    let formatWarnings = 0;
    const disagree: Record<string, string> = {};
    const falseWarnings: Record<string, string> = {};
    const totals = new Map<string, { crds: number; server: number; ours: number }>();
    try {
      for (const e of corpus) {
        const { errors: ours, refusalWarnings, formats } = verdictOf(e);
        let server: string | undefined;
        serverWarnings.length = 0;
        try {
          await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
            body: e.crd,
            query: { dryRun: 'All' },
          });
        } catch (err) {
          if (!(err instanceof StatusError)) throw err;
          server = err.message;
        }
        if (server === undefined) {
          const theirs = [
            ...new Set(
              serverWarnings.map((w) => /^unrecognized format "(.*)"$/.exec(w)?.[1]).filter((f) => f !== undefined),
            ),
          ].sort();
          formatWarnings += theirs.length;
          if (JSON.stringify(theirs) !== JSON.stringify(formats))
            formatsDiffer.push(
              `${key(e)}: the server warns about ${theirs.join(', ') || 'none'}, we about ${formats.join(', ') || 'none'}`,
            );
        }
        const t = totals.get(e.project) ?? { crds: 0, server: 0, ours: 0 };
        t.crds++;
        if (server !== undefined) t.server++;
        if (ours.length) t.ours++;
        totals.set(e.project, t);
        if (server === undefined && refusalWarnings.length)
          falseWarnings[key(e)] = refusalWarnings.slice(0, 2).join(' | ');
        if ((server !== undefined) !== ours.length > 0) {
          disagree[key(e)] =
            server !== undefined
              ? `server refuses (${server.slice(0, 300)}), we write it`
              : `we refuse (${ours.slice(0, 3).join(' | ')}), the server creates it`;
        }
      }
    } finally {
      client.close();
    }
    const lines = [...totals].map(
      ([p, t]) => `${p}: ${t.crds} CRDs, refused by the server ${t.server}, refused by us ${t.ours}`,
    );
    const sum = [...totals.values()].reduce(
      (a, t) => ({ crds: a.crds + t.crds, server: a.server + t.server, ours: a.ours + t.ours }),
      { crds: 0, server: 0, ours: 0 },
    );
    lines.push(`total: ${sum.crds} CRDs, refused by the server ${sum.server}, refused by us ${sum.ours}`);
    lines.push(`created by the server but warned as refused by us: ${Object.keys(falseWarnings).length}`);
    lines.push(`unrecognized formats the server warned about (per CRD, once each): ${formatWarnings}`);
    console.log(lines.join('\n'));
    const unexpected = Object.keys(disagree).filter((k) => !(k in KNOWN));
    const agreeing = Object.keys(KNOWN).filter((k) => !(k in disagree));
    assert.deepEqual(
      unexpected.map((k) => `${k}: ${disagree[k]}`),
      [],
      'new disagreements with the API server',
    );
    assert.deepEqual(agreeing, [], 'KNOWN cases that now agree: remove them from KNOWN');
    assert.deepEqual(
      formatsDiffer,
      [],
      'the unrecognized formats we warn about (KF4615) are the ones the server warns about',
    );
    assert.deepEqual(
      Object.keys(falseWarnings)
        .filter((k) => !(k in KNOWN_FALSE_WARNINGS))
        .map((k) => `${k}: ${falseWarnings[k]}`),
      [],
      'new warnings that say the server refuses a CRD it creates',
    );
    assert.deepEqual(
      Object.keys(KNOWN_FALSE_WARNINGS).filter((k) => !(k in falseWarnings)),
      [],
      'KNOWN_FALSE_WARNINGS cases no longer warned: remove them',
    );
  });

  it('printer columns: each path is accepted, the CRDs install, and kubectl get -o wide prints every header', async () => {
    // Every path of the corpus, with its type; none may draw a column diagnostic.
    const columns: { at: string; name: string; type: string; jsonPath: string }[] = [];
    for (const e of corpus) {
      for (const v of e.crd.spec.versions as Obj[])
        for (const c of (v.additionalPrinterColumns ?? []) as Obj[])
          columns.push({ at: `${key(e)} ${v.name}`, name: c.name, type: c.type, jsonPath: c.jsonPath });
    }
    for (const c of columns) {
      const parsed = parsePrintColumnPath(c.jsonPath);
      assert.ok(parsed.ok, `${c.at} ${c.name} ${c.jsonPath}: ${parsed.ok ? '' : parsed.problem}`);
    }
    const withColumns = corpus.filter((e) =>
      (e.crd.spec.versions as Obj[]).some((v) => v.additionalPrinterColumns?.length),
    );
    for (const e of withColumns) {
      const diags = checkCRD(e.crd).filter((d) => d.code === CODES.columns);
      assert.deepEqual(
        diags.map((d) => d.message),
        [],
        `${key(e)}: column diagnostics`,
      );
    }
    const distinct = new Set(columns.map((c) => `${c.type} ${c.jsonPath}`));

    // The whole corpus, really installed.
    await installCRDs(env.config, { crds: corpus.map((e) => e.crd) as CRDObject[], timeoutMs: 120_000 });
    const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (kubectl.status !== 0)
      assert.fail('kubectl is not on PATH: install kubernetes-client (Debian) to run this check');

    const client = new RestClient(env.config);
    const refused: Record<string, string> = {};
    let objects = 0;
    let gets = 0;
    let skippedVersions = 0;
    try {
      for (const e of withColumns) {
        const crd = e.crd;
        const namespaced = crd.spec.scope === 'Namespaced';
        const storage = (crd.spec.versions as Obj[]).find((v) => v.storage) as Obj;
        const webhookConversion = crd.spec.conversion?.strategy === 'Webhook';
        const body = minimalObject(crd, storage, 'corpus-sample', namespaced ? 'default' : undefined);
        if (SPEC_EXTRA[key(e)]) body.spec = { ...body.spec, ...SPEC_EXTRA[key(e)] };
        const base = `/apis/${crd.spec.group}/${storage.name}${namespaced ? '/namespaces/default' : ''}/${crd.spec.names.plural}`;
        try {
          await client.request('POST', base, { body });
        } catch (err) {
          if (!(err instanceof StatusError)) throw err;
          refused[key(e)] = err.message;
          continue;
        }
        objects++;
        for (const v of crd.spec.versions as Obj[]) {
          if (!v.served || !v.additionalPrinterColumns?.length) continue;
          // Without the project's conversion webhook only the storage version can be read.
          if (webhookConversion && v !== storage) {
            skippedVersions++;
            continue;
          }
          const resource = `${crd.spec.names.plural}.${v.name}.${crd.spec.group}`;
          const r = spawnSync(
            'kubectl',
            [
              '--kubeconfig',
              env.kubeconfigPath,
              'get',
              resource,
              ...(namespaced ? ['-n', 'default'] : []),
              '-o',
              'wide',
            ],
            { encoding: 'utf8' },
          );
          assert.equal(r.status, 0, `${key(e)} kubectl get ${resource}: ${r.stderr}`);
          gets++;
          const header = r.stdout.split('\n')[0];
          assert.match(header, /^NAME\b/, `${resource}: ${r.stdout}`);
          for (const c of v.additionalPrinterColumns as Obj[])
            assert.ok(
              header.includes(String(c.name).toUpperCase()),
              `${resource}: header ${JSON.stringify(header)} lacks ${c.name}`,
            );
          assert.ok(
            r.stdout.split('\n')[1]?.startsWith('corpus-sample'),
            `${resource}: no row for the object: ${r.stdout}`,
          );
        }
      }
    } finally {
      client.close();
    }
    console.log(
      `printer columns: ${columns.length} columns (${distinct.size} distinct type+path) in ${withColumns.length} CRDs; ` +
        `objects created ${objects}, refused ${Object.keys(refused).length}; kubectl get -o wide runs ${gets}; versions skipped (webhook conversion) ${skippedVersions}`,
    );
    const unexpected = Object.keys(refused).filter((k) => !(k in NO_OBJECT));
    const nowBuilt = Object.keys(NO_OBJECT).filter((k) => !(k in refused));
    assert.deepEqual(
      unexpected.map((k) => `${k}: ${refused[k]}`),
      [],
      'minimal objects the server refuses',
    );
    assert.deepEqual(nowBuilt, [], 'NO_OBJECT cases that are now created: remove them');
  });
});
