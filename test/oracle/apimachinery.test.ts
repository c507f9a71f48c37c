// apimachinery judges kubeforge's ports of it (items 2, 3 and 5 of issue 40): label selectors
// (labels.Parse, metav1.LabelSelectorAsSelector: printed, matched, refused), the validation
// helpers and their messages, field errors as Go prints them, and metav1.Time / MicroTime on the
// wire. A Go program built from k8s.io/apimachinery (test/oracle/apimachinery/main.go, built once
// per machine and per source into ~/.cache/kubeforge/oracle/bin) answers for a shared corpus
// (corpus.ts: written hostile cases and generated ones); every answer must be equal byte for
// byte. Test infrastructure only: a machine without Go fails here with a message saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { findGo } from '../../src/envtest/go-build.js';
import {
  type FieldError,
  type Path,
  aggregateString,
  field,
  fieldErrorBody,
  fieldErrorString,
} from '../../src/runtime/webhook/fielderrors.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validateAnnotations,
  validateLabels,
  validateLabelSelector,
} from '../../src/runtime/webhook/validation.js';
import { type Selector, labelSelectorAsSelector, parseSelector } from '../../src/runtime/client/labels.js';
import { MicroTime, Time } from '../../src/runtime/util/time.js';
import { type FieldErrorSpec, corpus } from './apimachinery/corpus.js';
import { goModuleDir } from './tools.js';
import { must } from '../helpers/must.js';

/** The apimachinery release the oracle is built from (its go.mod). */
const APIMACHINERY_VERSION = 'v0.37.2';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const SRC = join(root, 'test', 'oracle', 'apimachinery');

/** Builds the oracle once per machine and per source (the name carries a hash of go.mod, go.sum, main.go). */
async function oracle(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(SRC, f)));
  const bin = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'oracle', 'bin');
  const target = join(bin, `apimachinery-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(target)) return target;
  const go = await findGo();
  if (!go)
    throw new Error(
      "the apimachinery oracle needs Go 1.21+ (go on PATH or /usr/local/go/bin/go): it compares kubeforge's selectors, validation messages and times with k8s.io/apimachinery's",
    );
  mkdirSync(bin, { recursive: true });
  const tmp = mkdtempSync(join(bin, '.apimachinery-'));
  try {
    const r = spawnSync(go, ['build', '-o', join(tmp, 'apimachinery'), '.'], {
      cwd: SRC,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod -buildvcs=false' },
      encoding: 'utf8',
      timeout: 20 * 60_000,
    });
    if (r.status !== 0)
      throw new Error(`go build of the apimachinery oracle failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
    renameSync(join(tmp, 'apimachinery'), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

/**
 * Held-out inputs nobody wrote for kubeforge: every string literal of apimachinery's own tests of
 * the code judged here (selector_test.go, labels_test.go, validation_test.go, the content
 * package's), as selectors and as names. Literals Go would decode otherwise than JSON (\\x..) are left out.
 */
function apimachineryTestLiterals(dir: string, files: string[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)) {
      try {
        const v = JSON.parse(`"${m[1]}"`) as string;
        if (v.length <= 300) out.add(v);
      } catch {
        // not JSON-compatible escapes: skipped
      }
    }
  }
  return [...out];
}

let input = corpus();
let heldOut = { selectors: 0, names: 0 };

function selectorAnswer(make: () => Selector): Record<string, unknown> {
  let s: Selector;
  try {
    s = make();
  } catch (e) {
    return { error: (e as Error).message };
  }
  return {
    string: s.toString(),
    empty: s.empty(),
    matches: input.labelSets.map((l) => (s.matches(l) ? '1' : '0')).join(''),
  };
}

function pathOf(steps: FieldErrorSpec['path']): Path {
  let p: Path | undefined;
  for (const s of steps) {
    if ('child' in s) p = p ? p.child(s.child) : field.newPath(s.child);
    else if ('index' in s) p = must(p, 'p').index(s.index);
    else p = must(p, 'p').key(s.key);
  }
  return must(p, 'p');
}

function buildError(s: FieldErrorSpec): FieldError {
  const p = pathOf(s.path);
  switch (s.type) {
    case 'required':
      return field.required(p, s.detail);
    case 'invalid':
      return field.invalid(p, s.value, s.detail ?? '');
    case 'typeInvalid':
      return field.typeInvalid(p, s.value, s.detail ?? '');
    case 'notSupported':
      return field.notSupported(p, s.value, s.valid ?? []);
    case 'forbidden':
      return field.forbidden(p, s.detail ?? '');
    case 'duplicate':
      return field.duplicate(p, s.value);
    case 'tooLong':
      return field.tooLong(p, s.value, s.max ?? 0);
    case 'tooMany':
      return field.tooMany(p, s.value as number, s.max ?? 0);
    case 'notFound':
      return field.notFound(p, s.value);
  }
  throw new Error(`unknown type ${s.type}`);
}

const sorted = (errs: FieldError[]) => errs.map(fieldErrorString).sort();
const timeOrError = (f: () => unknown) => {
  try {
    return JSON.stringify(f());
  } catch {
    return 'error';
  }
};

/** kubeforge's answers, in the shape main.go prints. */
function kubeforge(): Record<string, unknown[]> {
  return {
    selectors: input.selectors.map((s) => selectorAnswer(() => parseSelector(s))),
    labelSelectors: input.labelSelectors.map((ps) => selectorAnswer(() => labelSelectorAsSelector(ps as never))),
    names: input.names.map((n) => ({
      dns1123Label: isDNS1123Label(n),
      dns1123Subdomain: isDNS1123Subdomain(n),
      dns1035Label: isDNS1035Label(n),
      qualifiedName: isQualifiedName(n),
      labelValue: isValidLabelValue(n),
    })),
    annotations: input.annotations.map((a) => sorted(validateAnnotations(a, field.newPath('metadata', 'annotations')))),
    labels: input.labels.map((l) => sorted(validateLabels(l, field.newPath('metadata', 'labels')))),
    selectorsToCheck: input.selectorsToCheck.map((ps) =>
      sorted(validateLabelSelector(ps as never, field.newPath('spec', 'selector'))),
    ),
    fieldErrors: input.fieldErrors.map((specs) => {
      const errs = specs.map(buildError);
      return {
        errors: errs.map(fieldErrorString),
        bodies: errs.map(fieldErrorBody),
        aggregate: aggregateString(errs) ?? '',
      };
    }),
    unixMicros: input.unixMicros.map((us) => ({
      time: JSON.stringify(new Time(Math.floor(us / 1000))),
      micro: JSON.stringify(MicroTime.fromUnixMicro(us)),
    })),
    timeStrings: input.timeStrings.map((s) => ({
      time: timeOrError(() => new Time(s)),
      micro: timeOrError(() => new MicroTime(s)),
    })),
  };
}

describe("apimachinery's own answers for the shared corpus", () => {
  let goSays: Record<string, unknown[]>;
  let ours: Record<string, unknown[]>;

  before(async () => {
    const bin = await oracle();
    const dir = await goModuleDir('k8s.io/apimachinery', APIMACHINERY_VERSION);
    const selectors = apimachineryTestLiterals(dir, ['pkg/labels/selector_test.go', 'pkg/labels/labels_test.go']);
    const names = apimachineryTestLiterals(dir, [
      'pkg/util/validation/validation_test.go',
      'pkg/api/validate/content/kube_test.go',
      'pkg/api/validate/content/dns_test.go',
    ]);
    heldOut = { selectors: selectors.length, names: names.length };
    input = { ...input, selectors: [...input.selectors, ...selectors], names: [...input.names, ...names] };
    const r = spawnSync(bin, [], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    assert.equal(r.status, 0, `the apimachinery oracle failed: ${r.stderr}`);
    goSays = JSON.parse(r.stdout);
    ours = kubeforge();
  });

  /** Every input where the answers differ, with the input, Go's answer and ours. */
  function disagreements(kind: string, inputs: readonly unknown[]): string[] {
    assert.equal(goSays[kind].length, inputs.length, `${kind}: one answer per input`);
    const out: string[] = [];
    inputs.forEach((x, i) => {
      const go = JSON.stringify(goSays[kind][i]);
      const kf = JSON.stringify(ours[kind][i]);
      if (go !== kf) out.push(`${JSON.stringify(x).slice(0, 200)}\n  go:        ${go}\n  kubeforge: ${kf}`);
    });
    return out;
  }

  for (const [kind, what] of [
    ['selectors', 'labels.Parse: String(), Empty(), Matches() on every label set, or the error'],
    ['labelSelectors', 'metav1.LabelSelectorAsSelector: String(), Empty(), Matches(), or the error'],
    ['names', 'IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName, IsValidLabelValue'],
    ['annotations', 'ValidateAnnotations (keys and total size)'],
    ['labels', 'ValidateLabels'],
    ['selectorsToCheck', 'ValidateLabelSelector'],
    ['fieldErrors', "field.Error's Error() and ErrorBody(), ErrorList.ToAggregate()"],
    ['unixMicros', 'metav1.Time and MicroTime as JSON'],
    ['timeStrings', 'metav1.Time and MicroTime parsed from JSON and written back (or refused)'],
  ] as const) {
    it(`${kind}: ${what}`, () => {
      const bad = disagreements(kind, input[kind]);
      assert.deepEqual(bad, [], `${bad.length} of ${input[kind].length} disagree:\n${bad.slice(0, 15).join('\n')}`);
    });
  }

  it("the held-out part (apimachinery's own test inputs) is there", () => {
    assert.ok(heldOut.selectors > 100, `${heldOut.selectors} selector literals`);
    assert.ok(heldOut.names > 100, `${heldOut.names} name literals`);
    assert.match(
      readFileSync(join(SRC, 'go.mod'), 'utf8'),
      new RegExp(`k8s.io/apimachinery ${APIMACHINERY_VERSION}\\b`),
    );
  });

  it('the corpus exercises both verdicts (valid and refused) of each kind it judges', () => {
    const errs = (kind: string) => (goSays[kind] as { error?: string }[]).filter((a) => a.error).length;
    assert.ok(errs('selectors') > 50 && errs('selectors') < input.selectors.length - 50, 'selectors: many of each');
    assert.ok(errs('labelSelectors') > 5 && errs('labelSelectors') < input.labelSelectors.length - 5);
    const names = goSays.names as { dns1123Label: string[]; qualifiedName: string[] }[];
    assert.ok(names.filter((n) => n.dns1123Label.length === 0).length > 20);
    assert.ok(names.filter((n) => n.qualifiedName.length > 0).length > 20);
  });
});
