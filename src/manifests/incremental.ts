/**
 * Incremental `kubeforge manifests`: after an edit, only the files whose results can have changed
 * are analysed again.
 *
 * The unit is a root file (a file that can use markers). What it contributed to the last
 * successful run is kept in the cache record (its Kinds, @Rbac / @Webhook / @WebhookConfiguration
 * uses, warnings), with a key: the hash of its own text, of every local file it imports and of
 * the groupversion.ts of each of their folders, transitively (what a groupversion.ts imports is
 * followed too), as the compiler resolves them now, and of the project's global declarations (`declare global`, `declare module`). A CRD is
 * kept when every file declaring a version of its Kind kept its key and the file on disk is as
 * written; a root is analysed again when its key changed, when a CRD it contributes to was
 * touched, or when it declares a Kind (group and name) that a changed or deleted root declared.
 * A kept CRD's warnings (the CRD check's) are reported again from the record.
 * role.yaml and the webhook manifests are made from the kept uses and the new ones, unless those
 * are the last run's exactly (the generators' `inputKey`) and the files are as written: then
 * they are kept too, with the warnings their generators reported.
 *
 * Anything else (flags, versions, tsconfig, package.json, a dependency's declarations, a file the
 * analysis read outside the scanned folders) makes the run cold. Outputs are byte-identical to a
 * cold run's: the kept CRDs are the cold run's bytes, and everything else is made the same way.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Diagnostic } from '../diagnostics/index.js';
import type { RootTools } from '../loader/program.js';
import { displayPath, type GeneratorEntry, type IncrementalRecord, type RootEntry, sha256 } from './cache.js';

export type { GeneratorEntry, IncrementalRecord, RootEntry } from './cache.js';

/** The choice made before the analysis, and what the run needs after it. */
export interface Selection {
  /** Absolute paths of the roots to analyse. */
  dirty: Set<string>;
  /** Key of every current root (absolute path -> key). */
  keys: Map<string, string>;
  /** Roots whose entries are reused (absolute paths). */
  clean: Set<string>;
  /** CRD paths whose files are kept as they are. */
  keptCrds: string[];
}

const GLOBAL_DECLARATION = /\bdeclare\s+(?:global\b|module\s+['"])/;

export class IncrementalPlanner {
  selection: Selection | undefined;

  constructor(
    private readonly projectDir: string,
    private readonly previous: IncrementalRecord,
    /** Absolute path -> sha256 of every scanned source file (the run's snapshot). */
    private readonly hashes: ReadonlyMap<string, string>,
    /** Recorded outputs whose file on disk is no longer as the last run wrote it. */
    private readonly touchedOutputs: ReadonlySet<string>,
  ) {}

  private readonly shown = new Map<string, string>();

  display(abs: string): string {
    let out = this.shown.get(abs);
    if (out === undefined) {
      out = displayPath(this.projectDir, abs);
      this.shown.set(abs, out);
    }
    return out;
  }

  absolute(p: string): string {
    return isAbsolute(p) ? p : join(this.projectDir, p);
  }

  private hashOf(abs: string, tools: RootTools): string {
    const known = this.hashes.get(abs);
    if (known !== undefined) return known;
    const text = tools.text(abs);
    return text === undefined ? 'missing' : sha256(text);
  }

  /** The loader's `selectRoots`: keys every root, returns those that must be analysed. */
  select(roots: readonly string[], tools: RootTools): string[] {
    const importsMemo = new Map<string, string[]>();
    const importsOf = (f: string) => {
      const r = importsMemo.get(f) ?? tools.imports(f);
      importsMemo.set(f, r);
      return r;
    };
    // Project files with global declarations reach every file without an import.
    const globals = [...this.hashes.keys()].filter((f) => GLOBAL_DECLARATION.test(tools.text(f) ?? '')).sort();
    const globalKey = globals.map((f) => `${f}\0${this.hashOf(f, tools)}`).join('\n');
    // The analysis of a file also reads the groupversion.ts of its folder (the group and version of
    // its Kinds), and through it whatever that file imports (a group name kept in a shared const):
    // both are members of the closure, their imports followed like any other's.
    const groupVersionFile = new Map<string, string | undefined>();
    const groupVersionOf = (file: string) => {
      const dir = dirname(file);
      if (!groupVersionFile.has(dir)) {
        const f = join(dir, 'groupversion.ts');
        groupVersionFile.set(dir, this.hashes.has(f) || tools.text(f) !== undefined ? f : undefined);
      }
      return groupVersionFile.get(dir);
    };
    const keys = new Map<string, string>();
    for (const root of roots) {
      const closure = new Set<string>();
      const queue: string[] = [];
      const add = (f: string | undefined) => {
        if (f === undefined || closure.has(f)) return;
        closure.add(f);
        queue.push(f);
      };
      add(root);
      for (let f = queue.pop(); f !== undefined; f = queue.pop()) {
        add(groupVersionOf(f));
        for (const next of importsOf(f)) add(next);
      }
      // A groupversion.ts added later joins the closure, so it changes the key too.
      const parts = [...closure].sort().map((f) => `${f}\0${this.hashOf(f, tools)}`);
      keys.set(root, sha256(`${globalKey}\n${parts.join('\n')}`));
    }

    const prev = this.previous;
    const current = new Set(roots.map((r) => this.display(r)));
    const dirty = new Set<string>();
    for (const [root, key] of keys) if (prev.roots[this.display(root)]?.key !== key) dirty.add(root);
    for (const [path, owners] of Object.entries(prev.crds)) {
      if (this.touchedOutputs.has(path)) for (const o of owners) if (current.has(o)) dirty.add(this.absolute(o));
    }
    // Every root declaring a Kind that a changed or deleted root declared is read again with it.
    const declaredBy = new Map<string, string[]>();
    for (const [p, e] of Object.entries(prev.roots)) {
      for (const k of e.kinds) {
        const gk = `${k.kind}.${k.group}`;
        declaredBy.set(gk, [...(declaredBy.get(gk) ?? []), p]);
      }
    }
    const changed = [...dirty].map((r) => this.display(r));
    for (const p of Object.keys(prev.roots)) if (!current.has(p)) changed.push(p);
    for (const p of changed) {
      for (const k of prev.roots[p]?.kinds ?? []) {
        for (const peer of declaredBy.get(`${k.kind}.${k.group}`) ?? [])
          if (current.has(peer)) dirty.add(this.absolute(peer));
      }
    }
    const clean = new Set(roots.filter((r) => !dirty.has(r)));
    const cleanDisplay = new Set([...clean].map((r) => this.display(r)));
    const keptCrds = Object.entries(prev.crds)
      .filter(([path, owners]) => !this.touchedOutputs.has(path) && owners.every((o) => cleanDisplay.has(o)))
      .map(([path]) => path)
      .sort();
    this.selection = { dirty, keys, clean, keptCrds };
    return roots.filter((r) => dirty.has(r));
  }

  /**
   * The last run's entry for a generator when its input hashes to `key` again and every file it
   * wrote is on disk as written (then its files and warnings can be kept).
   */
  keptGenerator(name: string, key: string): GeneratorEntry | undefined {
    const e = this.previous.generators?.[name];
    return e && e.key === key && !e.files.some((f) => this.touchedOutputs.has(f)) ? e : undefined;
  }

  /** The roots recorded for a kept CRD. */
  previousCrd(path: string): string[] {
    return this.previous.crds[path] ?? [];
  }

  /** The warnings recorded for a kept CRD. */
  previousCrdWarnings(path: string): Diagnostic[] {
    return this.previous.crdWarnings?.[path] ?? [];
  }

  /** The entry kept for a clean root. */
  entry(root: string): RootEntry | undefined {
    return this.previous.roots[this.display(root)];
  }

  /** The group-kinds clean roots declare (`Kind.group` -> root), to find a changed root now declaring one of them. */
  cleanKinds(): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.selection?.clean ?? [])
      for (const k of this.entry(r)?.kinds ?? []) out.set(`${k.kind}.${k.group}`, r);
    return out;
  }
}

/** Whether a managed output still has the size and mtime recorded when it was written. */
export function outputAsWritten(
  projectDir: string,
  path: string,
  stamp: { size: number; mtimeMs: number } | undefined,
): boolean {
  if (!stamp) return false;
  try {
    const st = statSync(join(projectDir, path));
    return st.size === stamp.size && st.mtimeMs === stamp.mtimeMs;
  } catch {
    return false;
  }
}
