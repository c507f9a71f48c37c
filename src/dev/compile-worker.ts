/**
 * The worker thread holding `kubeforge dev`'s WarmCompiler (compiler.ts): builds on each message
 * `{ id }` and answers `{ id, result }`, so that compiling runs beside the manifests analysis.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarmCompiler } from './compiler.js';

const { projectDir, outDir } = workerData as { projectDir: string; outDir: string };
const compiler = new WarmCompiler(projectDir, outDir);
let primed = false;
parentPort!.on('message', (msg: { id: number }) => {
  try {
    const result = compiler.build();
    parentPort!.postMessage({ id: msg.id, result });
    if (!primed && result.ok) {
      // Right after the first (cold) build, while the manager starts: see WarmCompiler.prime().
      primed = true;
      compiler.prime();
      compiler.build();
    }
  } catch (e) {
    parentPort!.postMessage({
      id: msg.id,
      result: { ok: false, text: `the compiler failed: ${(e as Error).stack ?? e}`, ms: 0, emitted: 0 },
    });
  }
});
