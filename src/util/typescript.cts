/**
 * The TypeScript compiler API that ts-morph bundles (its `@ts-morph/common/dist/typescript.js`),
 * loaded with `require`, and compiled from a V8 code cache after the first run.
 *
 * A CommonJS file on purpose: an ES module importing ts-morph makes Node scan it, and the modules it
 * re-exports (13 MB with the bundled typescript.js), to find their export names; that scan cost a
 * quarter of a second on every `kubeforge manifests` run that analyses anything. Node reads the
 * exports of this small file instead, and `require` loads the compiler without scanning it.
 *
 * Only typescript.js is loaded, found through ts-morph's own dependency on `@ts-morph/common`:
 * the analysis uses the compiler API and nothing of ts-morph's wrappers, whose loading (ts-morph,
 * ts-morph-common, minimatch, tinyglobby) cost another 60 to 100 ms. ts-morph's `ts` export is a
 * namespace over this very module (one file, one entry in require's cache), so its functions,
 * enums and the nodes made by either are the same objects.
 *
 * Compiling typescript.js is most of what is left (Node 20 has no `module.enableCompileCache`):
 * the first run keeps V8's compiled code for it in `$XDG_CACHE_HOME/kubeforge/v8/` (written when
 * the process exits, so it holds the functions the analysis used), and later runs start from it.
 * The cache file is named by V8's version and the size and time of typescript.js; V8 rejects a
 * cache that does not fit, and it is then written again; writing one keeps only the three newest
 * (each install of typescript.js makes another). Any failure to read or write it only
 * costs the time it would have saved. `KUBEFORGE_NO_CODE_CACHE=1` turns it off.
 */
import Module = require('node:module');
import fs = require('node:fs');
import os = require('node:os');
import path = require('node:path');
import vm = require('node:vm');

type Loader = (module: { exports: unknown }, filename: string) => void;
const extensions = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
const TYPESCRIPT_JS = /[\\/]@ts-morph[\\/]common[\\/]dist[\\/]typescript\.js$/;
/** How typescript.js was compiled in this process (for tests). */
let status: 'off' | 'compiled' | 'from-cache' | 'rejected' = 'off';

function cacheDir(): string | undefined {
  if (process.env.KUBEFORGE_NO_CODE_CACHE) return undefined;
  try {
    return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kubeforge', 'v8');
  } catch {
    return undefined;
  }
}

function loadWithCodeCache(module: { exports: unknown }, filename: string, dir: string): void {
  const source = fs.readFileSync(filename, 'utf8');
  const st = fs.statSync(filename);
  const file = path.join(
    dir,
    `typescript-${process.versions.v8}-${process.arch}-${st.size}-${Math.floor(st.mtimeMs)}.bin`,
  );
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(file);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename, cachedData });
  status = !cachedData ? 'compiled' : script.cachedDataRejected ? 'rejected' : 'from-cache';
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        fs.mkdirSync(dir, { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, file);
        pruneCodeCaches(dir);
      } catch {
        // A read-only or full cache folder: the next run compiles again.
      }
    });
  }
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(
    module.exports,
    module.exports,
    Module.createRequire(filename),
    module,
    filename,
    path.dirname(filename),
  );
}

/**
 * Keeps the three newest caches of typescript.js: every install of it (each `npm ci` gives the
 * file another mtime) makes a new one of about 3 MB, and nothing else ever removes the old ones.
 * Three, so that two projects' installs used in turn keep theirs.
 */
function pruneCodeCaches(dir: string): void {
  const caches = fs
    .readdirSync(dir)
    .filter((f) => /^typescript-.*\.bin$/.test(f))
    .map((f) => ({ f, t: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of caches.slice(3)) fs.rmSync(path.join(dir, f), { force: true });
}

/** Loads typescript.js from the code cache while it is required; returns the undo. */
function withCodeCache(): () => void {
  const dir = cacheDir();
  const original = extensions['.js'];
  if (!dir) return () => undefined;
  extensions['.js'] = function (this: unknown, module, filename) {
    if (TYPESCRIPT_JS.test(filename)) loadWithCodeCache(module, filename, dir);
    else original.call(this, module, filename);
  };
  return () => {
    extensions['.js'] = original;
  };
}

/**
 * The specifier this module requires the compiler by (declared in typescript-module.d.ts as ts-morph's
 * `ts`); resolved to the typescript.js of the `@ts-morph/common` that ts-morph itself depends on,
 * wherever the package manager put it.
 */
const TYPESCRIPT_SPECIFIER = '@ts-morph/common/dist/typescript.js';

/** While the compiler is required: its specifier resolved through ts-morph; returns the undo. */
function resolvedThroughTsMorph(): () => void {
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  const fromMorph = Module.createRequire(require.resolve('ts-morph'));
  const file = path.join(path.dirname(fromMorph.resolve('@ts-morph/common')), 'typescript.js');
  mod._resolveFilename = function (request, ...rest) {
    return request === TYPESCRIPT_SPECIFIER ? file : original.call(this, request, ...rest);
  };
  return () => {
    mod._resolveFilename = original;
  };
}

const undoResolve = resolvedThroughTsMorph();
const undoCache = withCodeCache();
import typescript = require('@ts-morph/common/dist/typescript.js');
undoCache();
undoResolve();

export import ts = typescript;

/** How typescript.js was compiled in this process: without the cache, from it, or the cache was rejected. */
export function codeCacheStatus(): typeof status {
  return status;
}
