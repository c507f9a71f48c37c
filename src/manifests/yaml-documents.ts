/**
 * The one reader of multi-document YAML for what kubeforge generates or is given as manifests
 * (CRD files, role.yaml, kustomize output, the base of --check-compat): the objects of the text,
 * in order, and the first syntax error handed to the caller, who knows which diagnostic it is.
 * (The writer is ./yaml.ts.)
 */
import { parseAllDocuments } from 'yaml';

/** A YAML syntax error: its message (one line) and where it is (1-based). */
export interface YamlSyntaxError {
  message: string;
  line: number;
  column: number;
}

export interface ReadYamlOptions {
  /**
   * Called with the first syntax error; throws the caller's diagnostic. Without it, a document
   * with errors is read as far as it parses (a best-effort reader, such as `kubeforge dev`'s).
   */
  onError?: (e: YamlSyntaxError) => never;
  /** Only the objects of this kind (else every mapping with a string `kind`). */
  kind?: string;
}

/** The mappings with a string `kind` of a multi-document YAML text, in order (empty and comment-only documents dropped). */
export function readYamlObjects(text: string, options: ReadYamlOptions = {}): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text, { prettyErrors: false })) {
    const e = doc.errors[0];
    if (e && options.onError) {
      const before = text.slice(0, e.pos[0]);
      options.onError({
        message: e.message.split('\n')[0],
        line: before.split('\n').length,
        column: e.pos[0] - before.lastIndexOf('\n'),
      });
    }
    const v = doc.toJS() as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.kind !== 'string' || (options.kind !== undefined && o.kind !== options.kind)) continue;
    out.push(o);
  }
  return out;
}
