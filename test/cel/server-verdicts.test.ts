// The API server judges kubeforge's CEL verdicts. Every rule of the corpus (./rule-corpus.ts) is put on a
// schema in a CRD and the CRD is created on the real kube-apiserver with dryRun=All (the server
// compiles each rule and estimates its cost then); kubeforge's CRD check (checkCRD) gives its own
// verdict on the same CRD. "written" (no error; warnings allowed) must equal "created", and
// "refused" must equal "refused". Rules cover the Kubernetes CEL libraries (lists, sets, regex,
// url, ip/cidr, quantity, semver, format), the cel-go extensions (strings, two-variable
// comprehensions, ext lists), optional syntax, transition rules, messageExpression, reserved-word
// and escaped field names, type errors and costs near the budgets. The server decides what is
// right; the test never says so itself.
//
// Disagreements are listed in KNOWN below with the reason, and asserted: a case that starts to
// agree, or a new disagreement, fails the test. On a server older than 1.25 (no CEL) the file
// has nothing to judge and says so by failing: it runs in the suite on the current server only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkCRD, loadRuleCheck } from '../../src/manifests/crdcheck/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { apiServerMinor } from '../../src/testing/environment.js';
import { TestEnvironment } from '../../src/testing/index.js';
import { CASES, caseKey, crdFor } from './rule-corpus.js';

/**
 * Where kubeforge's verdict is not the API server's today, with the reason. Asserted: a case
 * that starts to agree, or a new disagreement, fails the test. (The cost estimate is the
 * server's: test/cel/cost-oracle compares it with the server's code rule by rule.)
 */
const KNOWN: Record<string, string> = {};

describe('the API server judges kubeforge CEL verdicts', () => {
  const minor = apiServerMinor(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver')) ?? 0;
  const env = new TestEnvironment({ useExistingCluster: false });
  let rest: RestClient;
  /** Case index -> [kubeforge, server, what each said]. */
  const verdicts = new Map<number, { ours: 'written' | 'refused'; server: 'created' | 'refused'; why: string }>();

  before(async () => {
    assert.ok(minor >= 25, `this corpus needs an API server that compiles CEL (1.25+), not 1.${minor}`);
    await env.start();
    rest = new RestClient(env.config);
    await loadRuleCheck();
    for (const [i, c] of CASES.entries()) {
      const crd = crdFor(c, i);
      const errors = checkCRD(crd).filter((d) => d.severity === 'error');
      let server: 'created' | 'refused' = 'created';
      let said = '';
      try {
        await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: crd,
          query: { dryRun: 'All' },
        });
      } catch (e) {
        if (!(e instanceof StatusError) || e.code !== 422) throw e;
        server = 'refused';
        said = e.message;
      }
      verdicts.set(i, {
        ours: errors.length ? 'refused' : 'written',
        server,
        why: errors.length ? errors.map((d) => `${d.code} ${d.message}`).join('; ') : said,
      });
    }
  });
  after(async () => {
    rest?.close();
    await env.stop();
  });

  it(`has a corpus of at least 300 rules (${CASES.length})`, () => {
    assert.ok(CASES.length >= 300, `${CASES.length} rules`);
  });

  it('every rule: written by kubeforge if and only if the API server creates the CRD (listed exceptions aside)', () => {
    const disagreements: Record<string, string> = {};
    for (const [i, v] of verdicts) {
      if ((v.ours === 'written') !== (v.server === 'created')) {
        const c = CASES[i];
        disagreements[caseKey(c)] = `kubeforge ${v.ours}, server ${v.server}: ${v.why.slice(0, 300)}`;
      }
    }
    const unexpected = Object.fromEntries(Object.entries(disagreements).filter(([k]) => !(k in KNOWN)));
    const resolved = Object.keys(KNOWN).filter((k) => !(k in disagreements));
    assert.deepEqual({ unexpected, resolved }, { unexpected: {}, resolved: [] });
  });

  it('both sides refuse some rules and write others (the corpus tells them apart)', () => {
    const refused = [...verdicts.values()].filter((v) => v.server === 'refused').length;
    assert.ok(refused >= 30 && refused <= CASES.length - 100, `${refused} of ${CASES.length} refused by the server`);
  });
});
