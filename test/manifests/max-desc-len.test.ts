/**
 * `kubeforge manifests --max-desc-len <n>`: controller-tools' TruncateDescription byte for byte
 * (its own test cases, plus the multi-byte ones Go cuts as bytes), applied to every schema node
 * without touching the shared frozen schemas; through the CLI: part of the cache key, recorded in
 * PROJECT's manifests record, a bad value refused with nothing written; the cut CRDs install
 * on a real API server.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { truncateDescription, truncateSchemaDescriptions } from '../../src/manifests/desc.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { schemaOriginOf, setSchemaOrigin } from '../../src/schema/origin.js';
import { recordedMaxDescLen } from '../../src/manifests/script.js';
import { Reporter } from '../../src/diagnostics/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { DiskHost, Tree } from '../../src/machinery/index.js';
import { defaultManifestsStep } from '../../src/scaffolds/manifests-step.js';
import { TestEnvironment } from '../../src/testing/index.js';
import { treeHash } from '../helpers/tree.js';
import { serializeProject } from '../../src/project/index.js';
import { kubeforgeIn, linkKubeforgeDependencies } from '../helpers/cli.js';
import { must } from '../helpers/must.js';
import type { Obj } from '../helpers/chart.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'kf-maxdesc-'));
after(() => rmSync(work, { recursive: true, force: true }));

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('truncateDescription (controller-tools TruncateDescription)', () => {
  it('keeps a description that fits, and cuts at the last sentence terminal', () => {
    const d = 'top level description of the root object.';
    assert.equal(truncateDescription(d, bytes(d)), d);
    const s = 'This is top level description. There is an empty schema. More to come';
    assert.equal(truncateDescription(s, bytes(s) - 5), 'This is top level description. There is an empty schema.');
  });

  it('without a sentence terminal: at the last white space, then "..."; without one: the n bytes, then "..."', () => {
    const s = 'This is top level description of the root object';
    assert.equal(truncateDescription(s, bytes(s) - 2), 'This is top level description of the root...');
    assert.equal(truncateDescription('Flagwithaverylongsingleword', 10), 'Flagwithav...');
    // A terminal or a space at the first byte does not count (Go: n > 0).
    assert.equal(truncateDescription('. abcdef', 5), '....');
    assert.equal(truncateDescription(' abcdef', 4), ' abc...');
  });

  it('cuts bytes as Go does: a split character becomes U+FFFD per stray byte, as controller-gen writes it', () => {
    // "è" is two bytes (c3 a8): four bytes end inside it.
    assert.equal(truncateDescription('très calme', 3), 'tr\uFFFD...');
    // "。" (U+3002, three bytes) is a sentence terminal: Go keeps its first byte only.
    assert.equal(truncateDescription('ab。cd ef gh', 6), 'ab\uFFFD');
    assert.equal(truncateDescription('la mer est très calme', 14), 'la mer est...');
    assert.equal(truncateDescription('aujourd’hui. Oui', 40), 'aujourd’hui. Oui');
  });

  it('walks every schema node, drops descriptions at 0, and never writes to a frozen shared subtree', () => {
    const shared: JSONSchemaProps = Object.freeze<JSONSchemaProps>({
      type: 'object',
      description: 'A shared Kubernetes type. It is frozen.',
      properties: Object.freeze({
        x: Object.freeze<JSONSchemaProps>({ type: 'string', description: 'x is a field. Long.' }),
      }),
    });
    const intOrString: JSONSchemaProps = { type: 'string' };
    const same: JSONSchemaProps = { type: 'string', description: 'Short.' };
    const schema: JSONSchemaProps = {
      type: 'object',
      description: 'Root. More words here.',
      properties: {
        a: shared,
        b: shared,
        list: { type: 'array', items: { type: 'string', description: 'An item. Of a list.' } },
        map: { type: 'object', additionalProperties: { type: 'string', description: 'A value. Of a map.' } },
        one: {
          anyOf: [{ type: 'integer', description: 'Int. Or.' }, intOrString],
          'x-kubernetes-int-or-string': true,
        },
        same,
      },
    };
    const itemOrigin = { where: 'field "list" of Spec', markers: [] };
    setSchemaOrigin(schema.properties?.list.items ?? {}, itemOrigin);
    const memo = new WeakMap<JSONSchemaProps, JSONSchemaProps>();
    const cut = truncateSchemaDescriptions(schema, 10, memo);
    const props = cut.properties ?? {};
    assert.equal(cut.description, 'Root.');
    assert.equal(props.a.description, 'A shared...');
    assert.equal(props.a.properties?.x.description, 'x is a...');
    assert.equal(props.a, props.b, 'a shared subtree is cut once and stays shared');
    assert.ok(Object.isFrozen(props.a));
    assert.equal(shared.description, 'A shared Kubernetes type. It is frozen.', 'the shared schema is untouched');
    assert.equal(props.list.items?.description, 'An item.');
    assert.equal(
      schemaOriginOf(props.list.items),
      itemOrigin,
      'a copied node keeps its origin (the CRD check locates by it)',
    );
    const value = props.map.additionalProperties;
    assert.equal(typeof value === 'object' ? value.description : value, 'A value.');
    assert.equal(props.one.anyOf?.[0].description, 'Int. Or.');
    assert.equal(props.one.anyOf?.[1], intOrString, 'an unchanged node is the same object');
    assert.equal(props.same, same);
    assert.equal(schema.description, 'Root. More words here.', 'the input is not written to');
    const none = truncateSchemaDescriptions(schema, 0);
    assert.doesNotMatch(JSON.stringify(none), /description/);
    assert.equal(truncateSchemaDescriptions(schema, -1), schema);
  });
});

describe("an older project's manifests script: --max-desc-len read (legacy, read only)", () => {
  it('reads the flag of the kubeforge command only, never after && or in a # comment; nothing from another script', () => {
    const pkg = (s: string) => JSON.stringify({ scripts: { manifests: s } });
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests --max-desc-len 0')), 0);
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests --max-desc-len=120 && prettier -w config')), 120);
    assert.equal(recordedMaxDescLen(pkg("kubeforge manifests --paths 'src/a;b' --max-desc-len 7 || true")), 7);
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests && echo --max-desc-len 9')), undefined);
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests # --max-desc-len 9')), undefined);
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests --max-desc-len 3 && echo --max-desc-len 9')), 3);
    assert.equal(recordedMaxDescLen(pkg('controller-gen crd --max-desc-len 3')), undefined);
    assert.equal(recordedMaxDescLen(pkg('kubeforge manifests --max-desc-len ten')), undefined);
    assert.equal(recordedMaxDescLen('{}'), undefined);
    assert.equal(recordedMaxDescLen(undefined), undefined);
  });
});

function stage(name: string): string {
  const dir = join(work, name);
  cpSync(join(repo, 'test/fixtures/manifests/maxdesclen'), dir, { recursive: true });
  writeFileSync(join(dir, 'PROJECT'), PROJECT_TEXT);
  linkKubeforgeDependencies(repo, dir);
  return dir;
}

const kubeforge = (cwd: string, ...args: string[]) => kubeforgeIn(cwd, ...args);

const CRD = 'config/crd/bases/fixtures.kubeforge.io_ships.yaml';

/** The fixture's PROJECT (the record of the manifests options goes there). */
const PROJECT_TEXT = serializeProject({
  version: '3',
  domain: 'kubeforge.io',
  layout: ['typescript.kubeforge.io/v1'],
  projectName: 'fixture-maxdesclen',
  repo: 'fixture-maxdesclen',
  resources: [],
});

function crdOf(dir: string): Obj {
  return parseAllDocuments(readFileSync(join(dir, CRD), 'utf8'))[0].toJS();
}

/** Every description of a schema, by its path. */
function descriptions(node: unknown, path = '', out: Record<string, string> = {}): Record<string, string> {
  if (!node || typeof node !== 'object') return out;
  const schema = node as Obj;
  if (typeof schema.description === 'string') out[path || '.'] = schema.description;
  for (const [k, v] of Object.entries(schema.properties ?? {})) descriptions(v, `${path}.${k}`, out);
  if (schema.items) descriptions(schema.items, `${path}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    descriptions(schema.additionalProperties, `${path}{}`, out);
  return out;
}

describe('kubeforge manifests --max-desc-len (CLI, real API server)', () => {
  it('cuts every description of the CRD, changes the cache key, is recorded in package.json, and the CRDs install', async () => {
    const dir = stage('cli');
    const full = await kubeforge(dir, 'manifests', '--generator-version', 'test');
    assert.equal(full.code, 0, full.err);
    const whole = descriptions(crdOf(dir).spec.versions[0].schema.openAPIV3Schema);
    assert.ok(
      Object.values(whole).some((d) => bytes(d) > 40),
      'the fixture has long descriptions',
    );

    const cut = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--max-desc-len', '40');
    assert.equal(cut.code, 0, cut.err);
    assert.match(
      cut.out,
      /^UPDATE config\/crd\/bases\/fixtures\.kubeforge\.io_ships\.yaml/m,
      'a new flag is a new cache key: the CRD is made again',
    );
    assert.match(cut.out, /^UPDATE PROJECT \(plugins\.manifests\.kubeforge\.io\/v1-alpha: maxDescLen 40\)$/m);
    assert.match(
      readFileSync(join(dir, 'PROJECT'), 'utf8'),
      /^plugins:\n {2}manifests\.kubeforge\.io\/v1-alpha:\n {4}maxDescLen: 40\n/m,
    );
    assert.equal(
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.manifests,
      'kubeforge manifests',
      'the script is left as it was',
    );
    const schema40 = crdOf(dir).spec.versions[0].schema.openAPIV3Schema;
    const got = descriptions(schema40);
    assert.deepEqual(Object.keys(got), Object.keys(whole));
    for (const [path, d] of Object.entries(whole)) assert.equal(got[path], truncateDescription(d, 40), path);
    assert.equal(got['.spec'], 'ShipSpec defines the desired state of a...');
    assert.equal(got['.spec.flag'], 'Flagwithaverylongsinglewordthatneverends...');
    assert.equal(got['.spec.crew'], 'Crew is the number of sailors aboard.');
    assert.equal(got['.'], 'Ship is the Schema for the ships API.');
    const text40 = readFileSync(join(dir, CRD), 'utf8');

    const again = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--max-desc-len', '40');
    assert.equal(again.code, 0, again.err);
    assert.equal(again.out, 'manifests are up to date\n');
    // A plain run reads the record: the CRD stays cut.
    const plain = await kubeforge(dir, 'manifests', '--generator-version', 'test');
    assert.equal(plain.code, 0, plain.err);
    assert.doesNotMatch(plain.out, /config\/crd|PROJECT/);
    assert.equal(readFileSync(join(dir, CRD), 'utf8'), text40);

    // create api / create webhook plan the manifests in-process with what PROJECT records.
    const tree = new Tree(new DiskHost(dir));
    const types = 'src/api/v1/ship_types.ts';
    tree.write(
      types,
      must(tree.readText(types), types).replace(
        '  crew?: int32;',
        '  crew?: int32;\n  /** The port the ship calls at next, written by the navigator before every journey begins */\n  nextPort?: string;',
      ),
    );
    await defaultManifestsStep(tree, dir, new Reporter());
    const planned = parseAllDocuments(must(tree.readText(CRD), CRD))[0].toJS() as Obj;
    assert.equal(
      planned.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.nextPort.description,
      'The port the ship calls at next,...',
    );

    // Installs on the API server, then the CRD without descriptions replaces it.
    const env = new TestEnvironment({
      crdDirectoryPaths: [join(dir, 'config/crd/bases')],
      errorIfCRDPathMissing: true,
      crdInstallTimeout: 120_000,
      controlPlaneStartTimeout: 120_000,
    });
    await env.start();
    try {
      const rest = new RestClient(env.config);
      const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ships.fixtures.kubeforge.io';
      const installed = await rest.request('GET', path);
      assert.equal(
        installed.spec.versions[0].schema.openAPIV3Schema.properties.spec.description,
        'ShipSpec defines the desired state of a...',
      );

      const zero = await kubeforge(dir, 'manifests', '--generator-version', 'test', '--max-desc-len', '0');
      assert.equal(zero.code, 0, zero.err);
      const text0 = readFileSync(join(dir, CRD), 'utf8');
      assert.doesNotMatch(text0, /description:/);
      assert.ok(text0.length < text40.length);
      const crd0 = crdOf(dir);
      crd0.metadata.resourceVersion = installed.metadata.resourceVersion;
      const replaced = await rest.request('PUT', path, { body: crd0 });
      assert.equal(replaced.spec.versions[0].schema.openAPIV3Schema.properties.spec.description, undefined);
      await rest.request('POST', '/apis/fixtures.kubeforge.io/v1/namespaces/default/ships', {
        body: { apiVersion: 'fixtures.kubeforge.io/v1', kind: 'Ship', metadata: { name: 'one' }, spec: { crew: 3 } },
      });
    } finally {
      await env.stop();
    }
  });

  it('refuses a value that is not a whole number, 0 or more: exit 1, located, nothing written', async () => {
    const dir = stage('bad');
    const before = treeHash(dir);
    for (const value of ['-1', 'ten', '1.5']) {
      const r = await kubeforge(dir, 'manifests', `--max-desc-len=${value}`);
      assert.equal(r.code, 1, value);
      assert.match(
        r.err,
        new RegExp(
          `KF1093 +invalid --max-desc-len "${value.replace('.', '\\.')}": expected a whole number of bytes, 0 or more`,
        ),
      );
      assert.match(r.err, /hint: e\.g\. --max-desc-len 0/);
    }
    assert.equal(treeHash(dir), before);
  });
});
