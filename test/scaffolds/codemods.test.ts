// The code migrations `alpha update` applies (issue #44, upgrades that carry the user's code):
// their tables are held to the published API (every moved name is exported by its new module and
// not by the root; the option renames are the runtime's own), and a controller written against
// kubeforge's API before the root was curated (commit 7a62246's parent) compiles against today's
// package once migrated, with each change listed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPTION_RENAMES, RUNTIME_MOVES, RUNTIME_RENAMES, migrateSource } from '../../src/scaffolds/codemods.js';
import { MANAGER_RENAMES } from '../../src/runtime/manager/manager.js';
import { CONTROLLER_RENAMES } from '../../src/runtime/controller/controller.js';
import { packageRoot } from '../../src/util/package-root.js';
import { ts } from '../../src/util/typescript.cjs';
import { must } from '../helpers/must.js';

const root = packageRoot();
const surface = (name: string) =>
  new Set(
    readFileSync(join(root, 'test/golden/api-surface', `${name}.txt`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ')[0]),
  );

/** A controller as a user wrote it against the old root (every import from 'kubeforge/runtime'). */
const OLD = `import { type Client, newClient, controllerManagedBy, type ControllerManagerLike, enqueueRequestForOwner, mergePatch, newManager } from 'kubeforge/runtime';
import type { RateLimiter } from 'kubeforge/runtime';
import { eventually } from 'kubeforge/testing';

export function setup(mgr: ControllerManagerLike, limiter: RateLimiter): Client {
  controllerManagedBy(mgr).withOptions({ reconciliationTimeout: 5000, rateLimiter: limiter }).complete(() => undefined);
  void enqueueRequestForOwner;
  void mergePatch({});
  void eventually;
  return newClient(mgr.getConfig());
}

export const mgr = newManager({} as never, { gracefulShutdownTimeout: 1000, leaseDuration: 15000 });
`;

describe('alpha update code migrations', () => {
  it('every moved name is exported by its new module and no longer by the root; renames point at root exports', () => {
    const rootNames = surface('runtime');
    for (const [name, module] of Object.entries(RUNTIME_MOVES)) {
      assert.ok(!rootNames.has(name), `${name} is still exported by kubeforge/runtime`);
      const sub = module.replace(/^kubeforge\//, '').replace('/', '-');
      assert.ok(surface(sub).has(name), `${module} exports ${name}`);
    }
    for (const [old, r] of Object.entries(RUNTIME_RENAMES)) {
      assert.ok(!rootNames.has(old));
      assert.equal(r.module, 'kubeforge/runtime');
      assert.ok(rootNames.has(r.name), `kubeforge/runtime exports ${r.name}`);
    }
  });

  it("the option renames are the runtime's own (the ones that do not move into a nested object)", () => {
    const flat = (t: Record<string, string>) =>
      Object.fromEntries(Object.entries(t).filter(([, to]) => !to.includes('.')));
    assert.deepEqual(OPTION_RENAMES.newManager, flat(MANAGER_RENAMES));
    assert.deepEqual(OPTION_RENAMES.withOptions, flat(CONTROLLER_RENAMES));
  });

  it('a controller written against the old root compiles against today once migrated, each change listed', () => {
    const m = migrateSource(OLD, 'src/controller/old.ts', () => true);
    assert.deepEqual(m.changes.sort(), [
      'ControllerManagerLike is now Manager (imported as ControllerManagerLike)',
      'moved RateLimiter to kubeforge/runtime/controller',
      'moved enqueueRequestForOwner to kubeforge/runtime/controller',
      'moved mergePatch to kubeforge/runtime/client',
      'newManager: option gracefulShutdownTimeout is now gracefulShutdownTimeoutMs',
      'newManager: option leaseDuration is now leaseDurationMs',
      'withOptions: option reconciliationTimeout is now reconciliationTimeoutMs',
    ]);
    assert.match(
      m.text,
      /^import \{ type Client, newClient, controllerManagedBy, type Manager as ControllerManagerLike, newManager \} from 'kubeforge\/runtime';$/m,
    );
    assert.match(m.text, /^import \{ mergePatch \} from 'kubeforge\/runtime\/client';$/m);
    assert.match(m.text, /^import type \{ RateLimiter \} from 'kubeforge\/runtime\/controller';$/m);
    assert.match(m.text, /gracefulShutdownTimeoutMs: 1000, leaseDurationMs: 15000/);
    assert.doesNotMatch(m.text, /^import type \{ \} /m);
    // Migrating again changes nothing.
    assert.deepEqual(migrateSource(m.text, 'src/controller/old.ts', () => true).changes, []);
    // And it compiles against the package's entry points as they are.
    assert.deepEqual(typeErrors(m.text), []);
    assert.ok(typeErrors(OLD).length > 0, 'the old text does not compile today (the check can fail)');
  });

  it("a Result's requeueAfterMs becomes requeueAfterSeconds, the delay divided by 1000, and compiles", () => {
    const old = `import type { Result } from 'kubeforge/runtime';

interface Clock {
  getTime(): number;
}

export function later(next: Clock, now: Clock, quick: boolean, requeueAfterMs: number): Result[] {
  return [
    { requeueAfterMs: 500 },
    { requeue: false, requeueAfterMs: next.getTime() - now.getTime() },
    { requeueAfterMs: quick ? 100 : 60_000 },
    { requeueAfterMs },
  ];
}
`;
    const m = migrateSource(old, 'src/controller/later.ts', () => true);
    assert.deepEqual(m.changes, ['Result: requeueAfterMs is now requeueAfterSeconds (the delay divided by 1000)']);
    assert.match(m.text, /\{ requeueAfterSeconds: 0\.5 \}/);
    assert.match(m.text, /\{ requeue: false, requeueAfterSeconds: \(next\.getTime\(\) - now\.getTime\(\)\) \/ 1000 \}/);
    assert.match(m.text, /\{ requeueAfterSeconds: \(quick \? 100 : 60_000\) \/ 1000 \}/);
    assert.match(m.text, /\{ requeueAfterSeconds: requeueAfterMs \/ 1000 \}/);
    assert.deepEqual(migrateSource(m.text, 'src/controller/later.ts', () => true).changes, []);
    assert.deepEqual(typeErrors(m.text), []);
    assert.ok(typeErrors(old).length > 0, 'the old text does not compile today (the check can fail)');
  });

  it('a move to a module the target kubeforge lacks is not made', () => {
    const m = migrateSource("import { newClient } from 'kubeforge/runtime';\n", 'a.ts', () => false);
    assert.deepEqual(m.changes, []);
  });
});

/** Type errors of `text` as a file of a project depending on this package (its src entry points). */
function typeErrors(text: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  const entries: Record<string, string> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? target : target.types;
    if (!types?.endsWith('.d.ts')) continue;
    entries[sub === '.' ? 'kubeforge' : `kubeforge/${sub.slice(2)}`] = join(
      root,
      types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'),
    );
  }
  const file = join(root, '__migrated.ts');
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (f) => (f === file ? text : read(f));
  host.fileExists = (f) => f === file || exists(f);
  host.resolveModuleNameLiterals = (literals, containing, _ref, opts) =>
    literals.map((lit) => {
      const target = entries[lit.text];
      if (target) return { resolvedModule: { resolvedFileName: target, extension: ts.Extension.Ts } };
      return ts.resolveModuleName(lit.text, containing, opts, host);
    });
  const program = ts.createProgram([file], options, host);
  const sf = must(program.getSourceFile(file), 'program.getSourceFile(file)');
  return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}
