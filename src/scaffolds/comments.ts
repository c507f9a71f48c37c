/**
 * Switching on commented-out YAML that `init` scaffolds for later (Kubebuilder's
 * "uncomment the [WEBHOOK] sections"), line by line, idempotently. A commented YAML line is
 * `#` directly followed by the YAML (`#- ../webhook`, `#replacements:`, `#    kind: Service`);
 * prose comments (`# [WEBHOOK] ...`) and marker comments (`# +kubebuilder:...`) stay as they are.
 */

/** `#` followed by YAML: a key, a list item, or indentation (two spaces or more). */
const COMMENTED_YAML = /^#(?=[-A-Za-z.]| {2})/;

/**
 * Uncomments the consecutive lines `lines` (given without their `#`, e.g. `['configurations:',
 * '- kustomizeconfig.yaml']`). Returns the text unchanged when they are already on, and
 * undefined when neither form is there.
 */
export function uncommentLines(text: string, lines: readonly string[]): string | undefined {
  const all = text.split('\n');
  const at = (want: (l: string, j: number) => boolean) => {
    for (let i = 0; i + lines.length <= all.length; i++) if (lines.every((_, j) => want(all[i + j], j))) return i;
    return -1;
  };
  if (at((l, j) => l.trimEnd() === lines[j]) >= 0) return text;
  const start = at((l, j) => /^#\s?/.test(l) && l.replace(/^#\s?/, '').trimEnd() === lines[j]);
  if (start < 0) return undefined;
  for (let j = 0; j < lines.length; j++) all[start + j] = all[start + j].replace(/^#\s?/, '');
  return all.join('\n');
}

/**
 * Uncomments the block introduced by the comment line that starts with `tag` (e.g.
 * `# [CERTMANAGER-MUTATING]`): every commented YAML line from there to the next blank line.
 * Returns the text unchanged when the block is already on, undefined when there is no such tag.
 */
export function uncommentBlock(text: string, tag: string): string | undefined {
  const all = text.split('\n');
  const start = all.findIndex((l) => l.startsWith(tag));
  if (start < 0) return undefined;
  for (let i = start + 1; i < all.length && all[i].trim() !== ''; i++) {
    if (COMMENTED_YAML.test(all[i])) all[i] = all[i].slice(1);
  }
  return all.join('\n');
}

/** Whether the block introduced by `tag` exists and holds no commented YAML line any more. */
export function blockIsOn(text: string, tag: string): boolean {
  const all = text.split('\n');
  const start = all.findIndex((l) => l.startsWith(tag));
  if (start < 0) return false;
  for (let i = start + 1; i < all.length && all[i].trim() !== ''; i++) if (COMMENTED_YAML.test(all[i])) return false;
  return true;
}
