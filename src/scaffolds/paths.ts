/** Files of a generated project that more than one command reads or writes. */

/** The license header every generated TypeScript file starts with (`init --license`, `edit --license`). */
export const BOILERPLATE_FILE = 'hack/boilerplate.ts.txt';

/**
 * The header a scaffolded file gets from hack/boilerplate.ts.txt: its text with every standalone
 * `YEAR` replaced by the current year (as Kubebuilder's scaffold does with boilerplate.go.txt; the
 * file itself keeps the placeholder), then a blank line. '' for no boilerplate.
 */
export function headerFromBoilerplate(boilerplate: string | undefined, now = new Date()): string {
  if (!boilerplate) return '';
  return `${boilerplate.replace(/\bYEAR\b/g, String(now.getFullYear())).replace(/\n+$/, '')}\n\n`;
}
