/**
 * bench:cli: CLI start-up and init speed, measured against a baseline in the same run.
 *
 *   help  `kubeforge --help` cold start (a new node process each time) vs `node -e 0`
 *   init  `kubeforge init --domain example.com --skip-install` into a fresh folder (wall time)
 *
 * Medians of interleaved runs. The last line reads `bench:cli help=<ratio>x init=<seconds>s`.
 * Targets (issue 2): help within 2x of node -e 0; init under 1 s.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/util/package-root.js';
import { median } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const INIT_RUNS = Number(process.env.BENCH_INIT_RUNS ?? 7);
const cli = join(packageRoot(), 'bin', 'kubeforge.js');

function time(args: string[], cwd?: string): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (exit ${r.status}): ${r.stderr}`);
  return ms;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

// Warm the file-system cache once for each command.
time(['-e', '0']);
time([cli, '--help']);

const baseline: number[] = [];
const help: number[] = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(time(['-e', '0']));
  help.push(time([cli, '--help']));
}

const work = mkdtempSync(join(tmpdir(), 'kf-bench-cli-'));
const init: number[] = [];
try {
  for (let i = 0; i < INIT_RUNS; i++) {
    const dir = join(work, `guestbook-${i}`);
    mkdirSync(dir);
    init.push(time([cli, 'init', '--domain', 'example.com', '--skip-install'], dir));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const ratio = median(help) / median(baseline);
const initSeconds = median(init) / 1000;
console.log(`node -e 0              median ${fmt(median(baseline))} (min ${fmt(Math.min(...baseline))}, ${RUNS} runs)`);
console.log(
  `kubeforge --help       median ${fmt(median(help))} (min ${fmt(Math.min(...help))}, ${RUNS} runs)  ${ratio.toFixed(2)}x  target <= 2x`,
);
console.log(
  `init --skip-install    median ${fmt(median(init))} (min ${fmt(Math.min(...init))}, ${INIT_RUNS} runs)  target < 1 s`,
);
console.log(`bench:cli help=${ratio.toFixed(2)}x init=${initSeconds.toFixed(3)}s`);
