// The diagnostic code catalogue: every code src/ reports is listed once, and docs/diagnostics.md carries the
// current rendering of the catalogue.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  DIAGNOSTIC_CODES,
  DIAGNOSTICS_REFERENCE_END,
  DIAGNOSTICS_REFERENCE_START,
  renderDiagnosticsReference,
} from '../../src/diagnostics/codes.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

function sources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
    });
}

describe('diagnostic code catalogue', () => {
  it('lists each code once, in order', () => {
    const codes = DIAGNOSTIC_CODES.map((d) => d.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.deepEqual(codes, [...codes].sort());
    for (const d of DIAGNOSTIC_CODES) assert.match(d.code, /^KF[1-49]\d{3}$/);
  });

  it('lists every code src/ reports', () => {
    const used = new Set<string>();
    for (const file of sources(join(root, 'src'))) {
      if (file.endsWith(join('diagnostics', 'codes.ts'))) continue;
      for (const m of readFileSync(file, 'utf8').matchAll(/'(KF\d{4})'/g)) used.add(m[1]);
    }
    const listed = new Set(DIAGNOSTIC_CODES.map((d) => d.code));
    assert.deepEqual([...used].filter((c) => !listed.has(c)).sort(), [], 'add these codes to src/diagnostics/codes.ts');
    assert.deepEqual(
      [...listed].filter((c) => !used.has(c)).sort(),
      [],
      'these codes are no longer reported: remove them from src/diagnostics/codes.ts',
    );
  });

  it('docs/diagnostics.md carries the current catalogue', () => {
    const readme = readFileSync(join(root, 'docs/diagnostics.md'), 'utf8');
    const start = readme.indexOf(DIAGNOSTICS_REFERENCE_START);
    const end = readme.indexOf(DIAGNOSTICS_REFERENCE_END);
    assert.ok(start >= 0 && end > start, 'docs/diagnostics.md has no diagnostics reference section');
    assert.equal(
      `${readme.slice(start, end + DIAGNOSTICS_REFERENCE_END.length)}\n`,
      renderDiagnosticsReference(),
      'docs/diagnostics.md diagnostics reference is stale: paste renderDiagnosticsReference() into it',
    );
  });
});
