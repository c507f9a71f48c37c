// Kubernetes judges kubeforge's CEL. packages/cel/test/corpus holds Kubernetes' own CEL test tables
// (apiextensions-apiserver's schema/cel validation, compilation and cost tests; apiserver's
// cel/library tests) and cel-spec's conformance data, extracted by packages/cel/test/oracle/celcorpus: every
// case is run through kubeforge (the checker, the cost estimate, the test kit's evaluator) and
// compared with what the Go test asserts, or with what cel-go does in the API server's
// environment for CRD rules (see corpus-runner.ts and corpus/README.md).
//
// Every disagreement is listed in KNOWN (corpus-known.ts) with its reason, and asserted: a case
// that starts to agree, or a new disagreement, fails the test. The runtime cost figures of the
// tables are kept in the corpus but not compared (the test kit meters no runtime cost), and of
// cel-go's estimate range only the maximum is (kubeforge estimates the worst case, which the
// API server's budgets are checked against).
//
// KF_CORPUS_REPORT=<file> writes every disagreement (id, source, want, got) there as JSON.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { KNOWN } from './corpus-known.js';
import { loadCorpus, runCase, type Verdict } from './corpus-runner.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const corpus = loadCorpus(resolve(root, 'packages/cel/test/corpus'));

/** Cases per file and kind: a changed extraction must be a deliberate change of this table. */
const COUNTS: Record<string, Record<string, number>> = {
  'cel-spec.json': { expr: 1389 },
  'k8s-apiextensions.json': { compile: 44, cost: 439, validate: 1198 },
  'k8s-library.json': { cost: 215, expr: 565 },
};

describe('the CEL corpus (Kubernetes test tables and cel-spec conformance data)', () => {
  it('has at least 1,000 cases, as many per source and kind as extracted, with unique ids', () => {
    const counts: Record<string, Record<string, number>> = {};
    const ids = new Set<string>();
    for (const f of corpus) {
      for (const c of f.cases) {
        const byKind = counts[f.file] ?? {};
        counts[f.file] = byKind;
        byKind[c.kind] = (byKind[c.kind] ?? 0) + 1;
        assert.ok(!ids.has(c.id), `duplicate id ${c.id}`);
        ids.add(c.id);
      }
    }
    assert.deepEqual(counts, COUNTS);
    assert.ok(ids.size >= 1000, `${ids.size} cases`);
    for (const id of Object.keys(KNOWN)) assert.ok(ids.has(id), `KNOWN names ${id}, which is not in the corpus`);
    for (const [id, reason] of Object.entries(KNOWN))
      assert.ok(reason.trim().length > 10, `KNOWN ${id} needs a reason`);
  });

  const report: { id: string; source: string; want: string; got: string }[] = [];
  for (const f of corpus) {
    const kinds = [...new Set(f.cases.map((c) => c.kind))].sort();
    for (const kind of kinds) {
      const cases = f.cases.filter((c) => c.kind === kind);
      it(`${f.file}: ${kind} cases agree with Kubernetes, or are KNOWN disagreements`, (t) => {
        const newlyWrong: string[] = [];
        const nowRight: string[] = [];
        let agreed = 0;
        for (const c of cases) {
          let v: Verdict;
          try {
            v = runCase(c, f);
          } catch (e) {
            v = { agree: false, want: JSON.stringify(c.expect), got: `threw ${(e as Error).stack ?? e}` };
          }
          if (v.agree) agreed++;
          else report.push({ id: c.id, source: c.source, want: v.want, got: v.got });
          const known = c.id in KNOWN;
          if (!v.agree && !known) newlyWrong.push(`${c.id} (${c.source})\n    want: ${v.want}\n    got:  ${v.got}`);
          if (v.agree && known) nowRight.push(`${c.id}: now agrees; remove it from KNOWN (${KNOWN[c.id]})`);
        }
        if (process.env.KF_CORPUS_REPORT) writeFileSync(process.env.KF_CORPUS_REPORT, JSON.stringify(report, null, 1));
        t.diagnostic(`${agreed} of ${cases.length} agree`);
        assert.deepEqual(
          { newlyWrong, nowRight },
          { newlyWrong: [], nowRight: [] },
          `${agreed} of ${cases.length} agree`,
        );
      });
    }
  }
});
