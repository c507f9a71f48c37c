// A Go port's GetConditions() / SetConditions() methods on an API class compile, but the objects
// kubeforge/runtime hands out are plain JSON: every call would fail at run time. manifests says so
// before anything runs, located at the member, with the fix (a function over the object).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeProject } from './analyze-helper.js';

describe('methods and accessors of API classes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kf-api-methods-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are located errors (KF3004) naming the function to write instead; statics and constructors are not', async () => {
    mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
    writeFileSync(
      join(dir, 'src/api/v1/groupversion.ts'),
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'port.example.com', version: 'v1' });\n",
    );
    writeFileSync(
      join(dir, 'src/api/v1/site_types.ts'),
      [
        "import type { V1Condition, V1ObjectMeta } from '@kubernetes/client-node';",
        "import { Root } from 'kubeforge/markers';",
        'export class SiteStatus {',
        '  conditions?: V1Condition[];',
        '  get ready(): boolean { return false; }',
        '}',
        '@Root()',
        'export class Site {',
        "  static readonly kindName = 'Site';",
        '  apiVersion?: string;',
        '  kind?: string;',
        '  metadata?: V1ObjectMeta;',
        '  status?: SiteStatus;',
        '  constructor() {}',
        '  getConditions(): V1Condition[] { return this.status?.conditions ?? []; }',
        '  static fromJSON(o: unknown): Site { return o as Site; }',
        '}',
        '',
      ].join('\n'),
    );
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    const errs = r.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`);
    assert.equal(errs.length, 2, errs.join('\n'));
    assert.match(
      errs[0],
      /^5:7 KF3004 class SiteStatus declares accessor ready, but the objects kubeforge\/runtime hands out \(client, cache, webhooks\) are plain JSON/,
    );
    assert.match(errs[1], /^15:3 KF3004 class Site declares method getConditions/);
    assert.match(r.diagnostics.find((d) => d.line === 15)?.hint ?? '', /export function getConditions\(obj: Site\)/);
  });
});
