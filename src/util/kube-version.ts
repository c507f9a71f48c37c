/** What a kube-apiserver binary says of its own version, for callers that adapt to it. */
import { spawnSync } from 'node:child_process';

const minors = new Map<string, number | undefined>();

/** The minor version a kube-apiserver binary reports (`Kubernetes v1.37.2` -> 37), once per binary; undefined when it cannot say. */
export function apiServerMinor(binary: string): number | undefined {
  if (!minors.has(binary)) {
    const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 15_000 });
    const m = /Kubernetes v1\.(\d+)\./.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    minors.set(binary, m ? Number(m[1]) : undefined);
  }
  return minors.get(binary);
}
