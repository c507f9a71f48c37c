/**
 * The manager process of `kubeforge dev`, started before it is needed: it loads the project's
 * dependencies (kubeforge/runtime, @kubernetes/client-node, every package of package.json's
 * dependencies that loads), which is most of a manager's start, then waits. On the message
 * `{ entry, args }` it sets process.argv as `node <entry> <args...>` would and imports the entry:
 * the project's freshly compiled code runs in a process whose dependencies are already loaded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Imports the project's dependencies from a module inside the project (.kubeforge/dev/preload.mjs,
 * written here), so that they resolve as the project's own imports do: same files, same module
 * instances when the entry imports them.
 */
async function preload(projectDir: string): Promise<void> {
  let deps: string[] = [];
  try {
    deps = Object.keys((JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
  } catch {
    /* no package.json: nothing to preload */
  }
  const specifiers = ['kubeforge/runtime', ...deps.filter((d) => d !== 'kubeforge' && /^[@a-z0-9][\w./@-]*$/i.test(d))];
  const file = join(projectDir, '.kubeforge/dev/preload.mjs');
  const text = `// kubeforge dev: loads the manager's dependencies before its code is compiled.\nfor (const s of ${JSON.stringify(specifiers)}) {\n  try {\n    await import(s);\n  } catch {\n    // not importable by name: the manager loads what it needs itself\n  }\n}\n`;
  try {
    if (readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  } catch {
    writeFileSync(file, text);
  }
  await import(pathToFileURL(file).href);
}

const ready = preload(process.cwd());
process.on('message', (msg: { entry: string; args: string[] }) => {
  void ready.then(async () => {
    process.argv = [process.argv[0], msg.entry, ...msg.args];
    // The IPC channel would keep the process alive once the manager stops.
    process.disconnect?.();
    await import(pathToFileURL(msg.entry).href);
  });
});
void ready.then(() => process.send?.({ preloaded: true }));
