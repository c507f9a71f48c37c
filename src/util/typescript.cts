/**
 * The TypeScript compiler API that ts-morph bundles, loaded with `require`, and compiled from a V8
 * code cache after the first run.
 *
 * A CommonJS file on purpose: an ES module importing ts-morph makes Node scan it, and the modules it
 * re-exports (13 MB with the bundled typescript.js), to find their export names; that scan cost a
 * quarter of a second on every `kubeforge manifests` run that analyses anything. Node reads the
 * exports of this small file instead, and `require` loads ts-morph without scanning it.
 *
 * Compiling typescript.js is most of what is left (Node 20 has no `module.enableCompileCache`):
 * the first run keeps V8's compiled code for it in `$XDG_CACHE_HOME/kubeforge/v8/` (written when
 * the process exits, so it holds the functions the analysis used), and later runs start from it.
 * The cache file is named by V8's version and the size and time of typescript.js; V8 rejects a
 * cache that does not fit, and it is then written again. Any failure to read or write it only
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
  const file = path.join(dir, `typescript-${process.versions.v8}-${process.arch}-${st.size}-${Math.floor(st.mtimeMs)}.bin`);
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
      } catch {
        // A read-only or full cache folder: the next run compiles again.
      }
    });
  }
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, Module.createRequire(filename), module, filename, path.dirname(filename));
}

/** Loads typescript.js from the code cache while ts-morph is required; returns the undo. */
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

const restore = withCodeCache();
import morph = require('ts-morph');
restore();

export import ts = morph.ts;

/** How typescript.js was compiled in this process: without the cache, from it, or the cache was rejected. */
export function codeCacheStatus(): typeof status {
  return status;
}
