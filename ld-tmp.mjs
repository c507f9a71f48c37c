import { createRequire } from 'node:module';
import Module from 'node:module';
import vm from 'node:vm';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
const t0 = performance.now();
const mode = process.argv[2];
if (mode === 'esm') { await import('ts-morph'); }
else if (mode === 'cjs') { createRequire(import.meta.url)('ts-morph'); }
else {
  const cacheFile = '/tmp/ts.codecache';
  const orig = Module._extensions['.js'];
  Module._extensions['.js'] = function (module, filename) {
    if (!filename.endsWith('/@ts-morph/common/dist/typescript.js')) return orig(module, filename);
    const source = readFileSync(filename, 'utf8');
    const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
    const script = new vm.Script(Module.wrap(source), { filename, cachedData, importModuleDynamically: undefined });
    const fn = script.runInThisContext();
    fn.call(module.exports, module.exports, createRequire(filename), module, filename, dirname(filename));
    if (!cachedData || script.cachedDataRejected) writeFileSync(cacheFile, script.createCachedData());
  };
  createRequire(import.meta.url)('ts-morph');
  Module._extensions['.js'] = orig;
}
console.log(mode, (performance.now() - t0).toFixed(0), 'ms');
