/** The storage version of a Kind with several versions: the one whose class carries `@StorageVersion()`. */
import { type Diagnostic, error } from '../diagnostics/index.js';
import { PROJECT_FILE, type ProjectConfig, type ProjectResource } from '../project/index.js';
import type { Tree } from '../machinery/index.js';
import { typesFileOf } from './resource-names.js';
import type { TsEditor } from './tsedit.js';

/**
 * Makes sure one version of a Kind with several carries `@StorageVersion()`: when none does, it
 * is added to `preferred` (ts-morph). Returns the problems (a missing file or class) and the
 * version that is (or becomes) the storage version. `others` are the Kind's version entries.
 */
export async function ensureStorageVersion(
  tree: Tree,
  editor: TsEditor,
  config: ProjectConfig,
  versions: readonly ProjectResource[],
  preferred: ProjectResource,
): Promise<{ storage?: { version: string; file: string; line: number }; added: boolean; problems: Diagnostic[] }> {
  const problems: Diagnostic[] = [];
  for (const r of versions) {
    const file = typesFileOf(config, r);
    const text = tree.readText(file);
    if (text === undefined) continue;
    const sf = editor.parse(file, text);
    const line = editor.decoratorLine(
      sf,
      r.kind,
      editor.importedAs(sf, 'kubeforge/markers', 'StorageVersion') ?? 'StorageVersion',
    );
    if (line !== undefined) return { storage: { version: r.version, file, line }, added: false, problems };
  }
  const file = typesFileOf(config, preferred);
  const text = tree.readText(file);
  if (text === undefined) {
    problems.push(
      error('KF1068', `${file} is missing: kubeforge marks the ${preferred.kind} class there as the storage version`, {
        file,
        hint: `restore it, or record where ${preferred.kind} ${preferred.version} lives in the "path" of its ${PROJECT_FILE} entry`,
      }),
    );
    return { added: false, problems };
  }
  const sf = editor.parse(file, text);
  if (!editor.getClass(sf, preferred.kind)) {
    problems.push(
      error('KF1068', `${file} declares no class ${preferred.kind}: kubeforge marks it as the storage version`, {
        file,
        hint: `add @StorageVersion() to the root class of ${preferred.kind} ${preferred.version} by hand`,
      }),
    );
    return { added: false, problems };
  }
  // Under an alias when the file declares a StorageVersion of its own (a Kind of that name).
  const decorator = editor.importName(sf, 'kubeforge/markers', 'StorageVersion');
  editor.addDecorators(sf, preferred.kind, [decorator]);
  tree.write(file, sf.getFullText());
  return {
    storage: { version: preferred.version, file, line: editor.decoratorLine(sf, preferred.kind, decorator) ?? 0 },
    added: true,
    problems,
  };
}
