/**
 * `lev validate <path>... [--json] [--deny-warnings] [--window N]`: checks
 * blueprints and shows what each stage's budgets resolve to. Exit 0 when
 * every file passes, 1 when one fails, 2 when a path cannot be read.
 */
import { relative } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { type ResolvedStageBudgets, resolveStageBudgets } from '../../blueprint/stage-layouts.js';
import type { Diagnostic } from '../../errors.js';
import { blueprintLoader } from '../blueprint-loader.js';
import { columnWidths } from '../columns.js';
import { resolveBlueprintArg } from '../installed-agents.js';

interface ValidateOptions {
  json?: boolean;
  denyWarnings?: boolean;
  window?: number;
}

interface FileReport {
  path: string;
  ok: boolean;
  diagnostics: Diagnostic[];
  stages: ResolvedStageBudgets[];
  usageProblem: boolean;
}

const USAGE_CODES = new Set(['blueprint-not-found', 'blueprint-unreadable']);

function parseWindow(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('give the window as a positive whole number of tokens, such as --window 128000.');
  }
  return n;
}

function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}

/** The file a finding is about: a script tool's own file (docs/reference/script-tools.md), else the blueprint. */
function fileOf(report: FileReport, d: Diagnostic): string {
  return d.file === undefined ? report.path : displayPath(d.file);
}

function location(report: FileReport, d: Diagnostic): string {
  const file = fileOf(report, d);
  if (d.line === undefined) return file;
  return `${file}:${d.line}:${d.column ?? 1}`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function budgetTable(stage: ResolvedStageBudgets): string[] {
  const header = ['region', 'kind', 'placement', 'budget', 'tokens', 'threshold'];
  const rows = stage.regions.map((r) => [
    r.name,
    r.kind,
    r.placement,
    r.budgetText === undefined ? 'max_tokens' : JSON.stringify(r.budgetText),
    String(r.budget),
    r.threshold === undefined ? '' : String(r.threshold),
  ]);
  const widths = columnWidths(header, rows);
  const line = (cells: string[]) =>
    `    ${cells.map((c, i) => (i === 4 || i === 5 ? c.padStart(widths[i] ?? 0) : pad(c, widths[i] ?? 0))).join('  ')}`.trimEnd();
  return [
    `  stage ${stage.name}: model ${stage.model}, window ${stage.window} tokens`,
    line(header),
    ...rows.map(line),
  ];
}

function summary(report: FileReport): string {
  const count = (severity: string) => report.diagnostics.filter((d) => d.severity === severity).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${report.path}: ${report.ok ? 'ok' : 'FAILED'} (${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('note'), 'note')})`;
}

function human(reports: FileReport[]): string {
  const out: string[] = [];
  for (const report of reports) {
    for (const d of report.diagnostics) out.push(`${location(report, d)}: ${d.severity} ${d.message} [${d.code}]`);
    out.push(summary(report));
    for (const stage of report.stages) {
      out.push('');
      for (const row of budgetTable(stage)) out.push(row);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

function json(reports: FileReport[]): string {
  const files = reports.map((r) => ({
    path: r.path,
    ok: r.ok,
    diagnostics: r.diagnostics.map((d) => {
      const out: Record<string, unknown> = {
        code: d.code,
        severity: d.severity,
        message: d.message,
        path: d.path ?? '',
      };
      if (fileOf(r, d) !== r.path) out.file = fileOf(r, d);
      if (d.line !== undefined) out.line = d.line;
      if (d.column !== undefined) out.column = d.column;
      return out;
    }),
    stages: r.stages.map((s) => ({
      name: s.name,
      window: s.window,
      regions: s.regions.map((region) => {
        const row = { name: region.name, kind: region.kind, placement: region.placement, budget: region.budget };
        return region.threshold === undefined ? row : { ...row, threshold: region.threshold };
      }),
    })),
  }));
  return `${JSON.stringify({ files }, null, 2)}\n`;
}

export function runValidate(paths: string[], opts: ValidateOptions): number {
  const loader = blueprintLoader();
  const configDiagnostics = loader.configDiagnostics;
  for (const d of configDiagnostics) {
    const where = d.line === undefined ? (d.file ?? 'config') : `${d.file}:${d.line}:${d.column ?? 1}`;
    process.stderr.write(`${where}: ${d.severity} ${d.message} [${d.code}]\n`);
  }
  const reports: FileReport[] = paths.map((path) => {
    const result = loader.load(resolveBlueprintArg(path), opts.window !== undefined ? { window: opts.window } : {});
    const errors = result.diagnostics.some((d) => d.severity === 'error');
    const warnings = result.diagnostics.some((d) => d.severity === 'warning');
    return {
      path: displayPath(result.file),
      ok: !errors && !(opts.denyWarnings && warnings),
      diagnostics: result.diagnostics,
      stages: result.blueprint ? resolveStageBudgets(result.blueprint, opts.window) : [],
      usageProblem: result.diagnostics.some((d) => USAGE_CODES.has(d.code)),
    };
  });
  process.stdout.write(opts.json ? json(reports) : human(reports));
  if (reports.some((r) => r.usageProblem)) return 2;
  const configFailed = configDiagnostics.some((d) => d.severity === 'error');
  return reports.every((r) => r.ok) && !configFailed ? 0 : 1;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Check blueprints against the schema and show the budgets each stage resolves to.')
    .argument(
      '<path...>',
      'blueprint directories (holding agent.toml or agent.leviath), .toml files or installed agent names',
    )
    .option('--json', 'print the findings and budgets as JSON')
    .option('--deny-warnings', 'fail when any warning is reported')
    .option('--window <tokens>', 'resolve every stage at this context window', parseWindow)
    .action((paths: string[], opts: ValidateOptions) => {
      process.exitCode = runValidate(paths, opts);
    });
}
