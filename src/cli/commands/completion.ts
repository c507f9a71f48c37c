// `kubeforge completion bash|zsh|fish|powershell`: shell completion scripts built from the commander tree,
// so that every command and flag registered (including later ones) is completed.
import type { Command, Option } from 'commander';
import { type CliContext, UsageError } from '../context.js';

interface Node {
  /** Space-separated command path, '' for the root. */
  path: string;
  description: string;
  subcommands: string[];
  flags: { long: string; short?: string; takesValue: boolean; choices?: readonly string[]; description: string }[];
}

function collect(cmd: Command, path: string, out: Node[]): Node[] {
  const flags = (cmd.options as Option[])
    .flatMap((o) => (o.long ? [{ ...o, long: o.long }] : []))
    .map((o) => ({
      long: o.long,
      short: o.short,
      // Only a required value (`--kind <kind>`) takes the next word; an optional one (Go-style
      // booleans: `--defaulting [bool]`) is given as `--defaulting=false`, so completion goes on.
      takesValue: o.required,
      choices: o.argChoices,
      description: o.description,
    }));
  flags.push({ long: '--help', short: '-h', takesValue: false, choices: undefined, description: 'show help' });
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  out.push({ path, description: cmd.description(), subcommands: subs.map((c) => c.name()), flags });
  for (const c of subs) collect(c, path ? `${path} ${c.name()}` : c.name(), out);
  return out;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shells `completion` writes a script for. */
const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export function bashCompletion(root: Command): string {
  const nodes = collect(root, '', []);
  const valueFlags = [
    ...new Set(
      nodes.flatMap((n) =>
        n.flags.filter((f) => f.takesValue).flatMap((f) => [f.long, f.short].filter((x): x is string => Boolean(x))),
      ),
    ),
  ];
  const cases = nodes
    .map((n) => {
      const words = [...n.subcommands, ...n.flags.map((f) => f.long)].join(' ');
      return `    ${quote(n.path)}) words=${quote(words)} ;;`;
    })
    .join('\n');
  const choiceCases = nodes
    .flatMap((n) =>
      n.flags.flatMap((f) =>
        f.choices?.length
          ? [`    ${quote(f.long)}) COMPREPLY=($(compgen -W ${quote(f.choices.join(' '))} -- "$cur")); return ;;`]
          : [],
      ),
    )
    .filter((v, i, a) => a.indexOf(v) === i)
    .join('\n');
  const completionArgs = `    'completion') words='${SHELLS.join(' ')} --help' ;;`;
  return `# bash completion for kubeforge. Load it with:  source <(kubeforge completion bash)
_kubeforge() {
  local cur prev path i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
${choiceCases}
    ${valueFlags.length ? valueFlags.map(quote).join('|') : "''"}) return ;;
  esac
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${valueFlags.length ? valueFlags.map(quote).join('|') : "''"}) i=$((i + 1)) ;;
      -*) ;;
      *) path="\${path:+$path }$w" ;;
    esac
  done
  case "$path" in
${cases.replace(/ {4}'completion'\) words='[^']*' ;;/, completionArgs)}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _kubeforge kubeforge
`;
}

export function zshCompletion(root: Command): string {
  return `#compdef kubeforge
# zsh completion for kubeforge. Load it with:  source <(kubeforge completion zsh)
# (it uses zsh's bash-completion layer, so the same logic serves both shells)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(root)}`;
}

export function fishCompletion(root: Command): string {
  const nodes = collect(root, '', []);
  const lines = [
    '# fish completion for kubeforge. Load it with:  kubeforge completion fish | source',
    'complete -c kubeforge -f',
  ];
  const condition = (path: string) => {
    if (path === '') return '__fish_use_subcommand';
    const parts = path.split(' ');
    return parts.map((p) => `__fish_seen_subcommand_from ${p}`).join('; and ');
  };
  for (const n of nodes) {
    for (const sub of n.subcommands) {
      const child = nodes.find((c) => c.path === (n.path ? `${n.path} ${sub}` : sub));
      lines.push(
        `complete -c kubeforge -n ${quote(condition(n.path))} -a ${quote(sub)} -d ${quote(child?.description ?? '')}`,
      );
    }
    for (const f of n.flags) {
      let line = `complete -c kubeforge -n ${quote(n.path === '' ? 'true' : condition(n.path))} -l ${f.long.replace(/^--/, '')}`;
      if (f.short) line += ` -s ${f.short.replace(/^-/, '')}`;
      if (f.takesValue) line += ' -r';
      if (f.choices?.length) line += ` -a ${quote(f.choices.join(' '))}`;
      line += ` -d ${quote(f.description)}`;
      lines.push(line);
    }
    if (n.path === 'completion')
      lines.push(`complete -c kubeforge -n ${quote(condition('completion'))} -a '${SHELLS.join(' ')}'`);
  }
  return `${lines.join('\n')}\n`;
}

/** A PowerShell single-quoted string ('' stands for '). */
const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * PowerShell (5.1 and 7): a native argument completer with the logic of the bash script: the
 * words after `kubeforge` up to the cursor make the command path (a flag's value skipped), a
 * flag with choices completes them, another flag that takes a value completes nothing.
 */
export function powershellCompletion(root: Command): string {
  const nodes = collect(root, '', []);
  const words = nodes.map((n) => {
    const list = n.path === 'completion' ? [...SHELLS, '--help'] : [...n.subcommands, ...n.flags.map((f) => f.long)];
    return `    ${psQuote(n.path)} = @(${list.map(psQuote).join(', ')})`;
  });
  const choices = new Map<string, readonly string[]>();
  const valueFlags = new Set<string>();
  for (const n of nodes)
    for (const f of n.flags) {
      if (f.choices?.length) choices.set(f.long, f.choices);
      if (f.takesValue) for (const name of [f.long, f.short]) if (name) valueFlags.add(name);
    }
  return `# PowerShell completion for kubeforge. Load it with:
#   kubeforge completion powershell | Out-String | Invoke-Expression
# (add that line to your $PROFILE to have it in every session)
Register-ArgumentCompleter -Native -CommandName kubeforge -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $words = @{
${words.join('\n')}
  }
  $choices = @{
${[...choices].map(([flag, c]) => `    ${psQuote(flag)} = @(${c.map(psQuote).join(', ')})`).join('\n')}
  }
  $valueFlags = @(${[...valueFlags].map(psQuote).join(', ')})
  # The words typed before the one being completed, without kubeforge itself.
  $given = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | Select-Object -Skip 1 | ForEach-Object { $_.Extent.Text })
  $candidates = $null
  if ($given.Count -gt 0) {
    $prev = $given[-1]
    if ($choices.ContainsKey($prev)) { $candidates = $choices[$prev] }
    elseif ($valueFlags -contains $prev) { return }
  }
  if ($null -eq $candidates) {
    $path = ''
    for ($i = 0; $i -lt $given.Count; $i++) {
      $w = $given[$i]
      if ($valueFlags -contains $w) { $i++ }
      elseif (-not $w.StartsWith('-')) { $path = if ($path) { "$path $w" } else { $w } }
    }
    $candidates = $words[$path]
  }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`;
}

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh, fish or powershell)')
    .argument('<shell>', 'bash, zsh, fish or powershell')
    .addHelpText(
      'after',
      `
Examples:
  $ source <(kubeforge completion bash)           # this shell only
  $ kubeforge completion bash >> ~/.bashrc
  $ echo 'source <(kubeforge completion zsh)' >> ~/.zshrc
  $ kubeforge completion fish > ~/.config/fish/completions/kubeforge.fish
  PS> kubeforge completion powershell | Out-String | Invoke-Expression`,
    )
    .action((shell: string) => {
      const root = program;
      // With --json the script is the document's `script`.
      const print = (script: string) => {
        if (ctx.report) ctx.report.details.script = script;
        else ctx.out(script);
      };
      switch (shell) {
        case 'bash':
          print(bashCompletion(root));
          return;
        case 'zsh':
          print(zshCompletion(root));
          return;
        case 'fish':
          print(fishCompletion(root));
          return;
        case 'powershell':
          print(powershellCompletion(root));
          return;
        default:
          throw new UsageError(`unknown shell "${shell}" for completion`, `use one of: ${SHELLS.join(', ')}`);
      }
    });
}
