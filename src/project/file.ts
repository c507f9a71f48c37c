/**
 * PROJECT as one object: its text, its typed configuration, and where each resource entry is in
 * the text (for located messages). Every command that reads PROJECT reads it through here.
 */
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { DiagnosticError, error } from '../diagnostics/index.js';
import { parseProject, PROJECT_FILE, type ProjectConfig, type ProjectResource, serializeProject } from './config.js';

/** Anything PROJECT can be read from: a scaffold host, a tree. */
export interface ProjectSource {
  read(path: string): Buffer | undefined;
}

/** The location of a PROJECT entry in a diagnostic: the file, and the entry's line when known. */
export interface ProjectLocation {
  file: string;
  line?: number;
}

export class ProjectFile {
  private lines?: number[];

  private constructor(
    /** PROJECT's text as read. */
    readonly text: string,
    readonly config: ProjectConfig,
  ) {}

  /** Parses PROJECT's text; `path` names the file in parse errors (KF1010...). */
  static parse(text: string, path = PROJECT_FILE): ProjectFile {
    return new ProjectFile(text, parseProject(text, path));
  }

  /** Reads PROJECT in `dir` (the project root) from `source`; KF1040 when there is none. */
  static read(source: ProjectSource, dir: string): ProjectFile {
    const text = source.read(PROJECT_FILE)?.toString('utf8');
    if (text === undefined) {
      throw new DiagnosticError(
        error('KF1040', `no ${PROJECT_FILE} file in ${dir}: this folder is not a kubeforge project`, {
          hint: 'run kubeforge init first (e.g. kubeforge init --domain example.com), or run create api from the project root',
        }),
      );
    }
    return ProjectFile.parse(text, join(dir, PROJECT_FILE));
  }

  /** Where each resource entry starts in the text (1-based lines; 0 when unknown). */
  resourceLines(): readonly number[] {
    if (this.lines === undefined) {
      const doc = parseDocument(this.text);
      const items =
        (doc.get('resources', true) as { items?: { range?: [number, number, number] }[] } | undefined)?.items ?? [];
      this.lines = items.map((item) => (item.range ? this.text.slice(0, item.range[0]).split('\n').length : 0));
    }
    return this.lines;
  }

  /** Where an entry of {@link config}'s resources is: PROJECT and its line. */
  locate(r: ProjectResource): ProjectLocation {
    const line = this.resourceLines()[this.config.resources.indexOf(r)];
    return line ? { file: PROJECT_FILE, line } : { file: PROJECT_FILE };
  }

  /** The line of the entry of that group, version and kind; undefined when PROJECT has none. */
  lineOf(gvk: { group: string; version: string; kind: string }): number | undefined {
    const r = this.config.resources.find(
      (e) => e.group === gvk.group && e.version === gvk.version && e.kind === gvk.kind,
    );
    return r && this.locate(r).line;
  }

  /**
   * PROJECT's text with `entry` in place of the entry of the same group, version and kind, or
   * appended after the others; `changes` (e.g. plugin records) are merged over the configuration.
   */
  withResource(entry: ProjectResource, changes: Partial<ProjectConfig> = {}): string {
    const resources = [...this.config.resources];
    const at = resources.findIndex(
      (r) => r.group === entry.group && r.version === entry.version && r.kind === entry.kind,
    );
    if (at >= 0) resources[at] = entry;
    else resources.push(entry);
    return serializeProject({ ...this.config, ...changes, resources });
  }
}
