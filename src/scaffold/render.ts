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

export class TemplateRenderer {
  private readonly cache = new Map<string, Compiled>();

  /** `templates` is a host rooted at the templates folder. */
  constructor(private readonly templates: Host) {}

  async render(name: string, data: unknown): Promise<string> {
    let compiled = this.cache.get(name);
    if (!compiled) {
      const source = this.templates.read(name);
      if (source === undefined) throw new Error(`template ${name} not found in ${this.templates.root}`);
      compiled = await compileTemplate(source.toString('utf8'), name);
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
