/**
 * Template rendering: handlebars bodies read through a host (the `templates/` folder of the
 * kubeforge that runs), compiled once, rendered with `strict` so that a misspelt variable is
 * an error rather than an empty string. Handlebars is imported lazily: it costs ~25 ms.
 */
import type { Host } from './host.js';

type Handlebars = typeof import('handlebars');
type Compiled = (data: unknown) => string;

let handlebarsPromise: Promise<Handlebars> | undefined;

async function loadHandlebars(): Promise<Handlebars> {
  handlebarsPromise ??= import('handlebars').then((m) => {
    const hb = ((m as { default?: Handlebars }).default ?? m) as Handlebars;
    const env = hb.create() as unknown as Handlebars;
    env.registerHelper('json', (v: unknown) => JSON.stringify(v));
    env.registerHelper('eq', (a: unknown, b: unknown) => a === b);
    env.registerHelper('lower', (v: unknown) => String(v).toLowerCase());
    env.registerHelper('upper', (v: unknown) => String(v).toUpperCase());
    return env;
  });
  return handlebarsPromise;
}

/** Ends text with exactly one LF and turns CRLF into LF. Empty stays empty. */
export function normalizeText(text: string): string {
  const lf = text.replace(/\r\n/g, '\n');
  return lf === '' ? '' : `${lf.replace(/\n+$/, '')}\n`;
}

const SIMPLE_MUSTACHE = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}/g;

/**
 * A template whose only mustaches are plain paths (`{{name}}`, `{{versions.node}}`) renders the
 * same with a substitution as with handlebars (noEscape, strict), without paying for
 * handlebars' parser and code generator (~5 ms per template here, most of init's time). Any
 * block, helper, partial, comment or escape sends the template to handlebars.
 */
export function compileSimple(source: string): Compiled | undefined {
  const rest = source.replace(SIMPLE_MUSTACHE, '');
  if (source.includes('\\{{') || source.includes('{{{') || rest.includes('{{') || rest.includes('}}')) return undefined;
  return (data: unknown) =>
    source.replace(SIMPLE_MUSTACHE, (_m, path: string) => {
      let value: unknown = data;
      for (const key of path.split('.')) {
        if (
          value === null ||
          value === undefined ||
          !(typeof value === 'object' || typeof value === 'function') ||
          !(key in (value as object))
        ) {
          throw new Error(`"${key}" not defined in ${path === key ? 'the data' : path}`);
        }
        value = (value as Record<string, unknown>)[key];
      }
      return value === null || value === undefined ? '' : String(value);
    });
}

export class TemplateRenderer {
  private readonly cache = new Map<string, Compiled>();

  /** `templates` is a host rooted at the templates folder. */
  constructor(private readonly templates: Host) {}

  async render(name: string, data: unknown): Promise<string> {
    let compiled = this.cache.get(name);
    if (!compiled) {
      const source = this.templates.read(name);
      if (source === undefined) throw new Error(`template ${name} not found in ${this.templates.root}`);
      const text = source.toString('utf8');
      compiled = compileSimple(text) ?? (await compileTemplate(text, name));
      this.cache.set(name, compiled);
    }
    try {
      return normalizeText(compiled(data));
    } catch (e) {
      throw new Error(`template ${name}: ${(e as Error).message}`);
    }
  }
}

/** Compiles one handlebars body (no HTML escaping; unknown variables throw). */
export async function compileTemplate(source: string, name = '<inline>'): Promise<Compiled> {
  const hb = await loadHandlebars();
  try {
    const fn = hb.compile(source, { noEscape: true, strict: true });
    return (data: unknown) => fn(data);
  } catch (e) {
    throw new Error(`template ${name}: ${(e as Error).message}`);
  }
}
