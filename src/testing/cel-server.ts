/**
 * The CEL webhook as its own process (started by TestEnvironment, src/testing/cel.ts): a test
 * that blocks its event loop (spawnSync of kubectl, a long synchronous computation) while the
 * API server calls the webhook would otherwise time the call out. Reads its settings from the
 * JSON file named by its first argument, prints `listening <port>` once it serves, exits on
 * SIGTERM, and when its parent is gone.
 */
import { readFileSync } from 'node:fs';
import type { RuleSchema } from '#cel';
import { startCELWebhook } from './cel-review.js';

interface Settings {
  host: string;
  port: number;
  certDir: string;
  schemas: [string, RuleSchema][];
}

const settings = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Settings;
const parent = process.ppid;
const hook = await startCELWebhook(new Map(settings.schemas), settings.host, settings.port, settings.certDir);
process.stdout.write(`listening ${hook.port}\n`);
const stop = () => {
  clearInterval(orphan);
  void hook.stop().then(() => process.exit(0));
};
// An orphan (the test process was killed) ends itself.
const orphan = setInterval(() => {
  if (process.ppid !== parent) stop();
}, 1000);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
