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
    deps = Object.keys(
      (JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> })
        .dependencies ?? {},
    );
  } catch {
    /* no package.json: nothing to preload */
  }
  const specifiers = ['kubeforge/runtime', ...deps.filter((d) => d !== 'kubeforge' && /^[@a-z0-9][\w./@-]*$/i.test(d))];
  const file = join(projectDir, '.kubeforge/dev/preload.mjs');
  const text = `// kubeforge dev: loads the manager's dependencies before its code is compiled.\nexport let runtime;\nfor (const s of ${JSON.stringify(specifiers)}) {\n  try {\n    await import(s);\n    // The Manager's class is not exported: its module, next to the entry point, is the one the project's code loads.\n    if (s === 'kubeforge/runtime') runtime = await import(new URL('./manager/manager.js', import.meta.resolve(s)).href);\n  } catch {\n    // not importable by name: the manager loads what it needs itself\n  }\n}\n`;
  try {
    if (readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  } catch {
    writeFileSync(file, text);
  }
  const loaded = (await import(pathToFileURL(file).href)) as {
    runtime?: { ControllerManager?: { prototype: { start: (...a: unknown[]) => unknown } } };
  };
  reportReconciles(loaded.runtime);
}

/** What `kubeforge dev` reads from the manager's output for its "reconcile" lines. */
export const RECONCILE_MESSAGE = 'kubeforge-dev:reconciled';

/**
 * The live log's reconciles: the runtime logs none, but every Manager counts them in its metrics
 * (controller_runtime_reconcile_total, per controller and result). The Manager the project's
 * code starts (the very class this process preloaded) is watched: every 200 ms, each count that
 * grew is written to stdout as one JSON line `{ msg: RECONCILE_MESSAGE, controller, result, count }`.
 */
function reportReconciles(
  runtime: { ControllerManager?: { prototype: { start: (...a: unknown[]) => unknown } } } | undefined,
): void {
  const proto = runtime?.ControllerManager?.prototype;
  if (!proto || typeof proto.start !== 'function') return;
  const start = proto.start;
  proto.start = function (
    this: {
      getMetricsRegistry?: () => {
        getSingleMetric(
          name: string,
        ): { get(): Promise<{ values: { labels: Record<string, string>; value: number }[] }> } | undefined;
      };
    },
    ...args: unknown[]
  ) {
    const registry = this.getMetricsRegistry?.();
    if (registry) {
      const seen = new Map<string, number>();
      const timer = setInterval(() => {
        const metric = registry.getSingleMetric('controller_runtime_reconcile_total');
        void metric
          ?.get()
          .then(({ values }) => {
            for (const v of values) {
              const key = `${v.labels.controller}/${v.labels.result}`;
              const delta = v.value - (seen.get(key) ?? 0);
              seen.set(key, v.value);
              if (delta > 0)
                process.stdout.write(
                  `${JSON.stringify({ msg: RECONCILE_MESSAGE, controller: v.labels.controller, result: v.labels.result, count: delta })}\n`,
                );
            }
          })
          .catch(() => {});
      }, 200);
      timer.unref();
    }
    return start.apply(this, args);
  };
}

const ready = preload(process.cwd());
process.on('message', (msg: { entry: string; args: string[]; env?: Record<string, string> }) => {
  void ready.then(async () => {
    process.argv = [process.argv[0], msg.entry, ...msg.args];
    // KUBEFORGE_DEV_BUILD: the build this manager runs, known only at launch.
    Object.assign(process.env, msg.env ?? {});
    // The IPC channel would keep the process alive once the manager stops.
    process.disconnect?.();
    await import(pathToFileURL(msg.entry).href);
  });
});
void ready.then(() => process.send?.({ preloaded: true }));
