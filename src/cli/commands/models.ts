/**
 * `lev models list` and `lev models show <provider:model>`: the model table
 * (built-in rows and the user config's `[models]`) with each model's window,
 * output cap, encoding, prices, and whether this environment can call it
 * (docs/reference/commands.md#lev-models).
 */
import type { Command } from 'commander';
import { loadUserConfig } from '../../blueprint/user-config.js';
import { LevError } from '../../errors.js';
import { BUILTIN_MODELS, COMPLETION_PRICES, encodingFor, lookupModel } from '../../providers/builtin-models.js';
import { providerConfigured } from '../../runtime/node/model-choice.js';
import type { ModelInfo } from '../../shapes/model-info.js';
import { columnWidths } from '../columns.js';

interface Row {
  model: string;
  provider: string;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: string;
  configured: boolean;
  prices?: ModelInfo['prices'] & { completion?: number };
  source: 'built-in' | 'config';
}

function rows(env: NodeJS.ProcessEnv): Row[] {
  const user = loadUserConfig(env).config.models;
  const table: Record<string, ModelInfo> = { ...BUILTIN_MODELS, ...user };
  return Object.entries(table)
    .map(([ref, info]) => {
      const completion = COMPLETION_PRICES[ref];
      return {
        model: ref,
        provider: ref.split(':')[0] ?? ref,
        contextWindow: info.contextWindow,
        maxOutputTokens: info.maxOutputTokens,
        encoding: encodingFor(ref, info),
        configured: providerConfigured(ref, env),
        ...(info.prices ? { prices: { ...info.prices, ...(completion !== undefined ? { completion } : {}) } } : {}),
        source: Object.hasOwn(user, ref) ? ('config' as const) : ('built-in' as const),
      };
    })
    .sort((a, b) => a.model.localeCompare(b.model));
}

function print(lines: string[][]): void {
  const widths = columnWidths(lines[0] ?? [], lines.slice(1));
  for (const line of lines)
    process.stdout.write(
      `${line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}\n`,
    );
}

export function registerModels(program: Command): void {
  const models = program.command('models').description('The models Leviath knows: windows, output caps, prices.');
  models
    .command('list')
    .description('List the models of providers this environment can call (--all: every model in the table).')
    .option('-p, --provider <name>', 'only this provider (anthropic, openai, google, ollama, ...)')
    .option('-a, --all', 'include providers with no API key set here')
    .option('--json', 'print a JSON array')
    .action((opts: { provider?: string; all?: boolean; json?: boolean }) => {
      const all = rows(process.env).filter(
        (r) =>
          (opts.provider === undefined || r.provider === opts.provider) && (opts.all || opts.provider || r.configured),
      );
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        return;
      }
      if (all.length === 0) {
        process.stdout.write(
          opts.provider
            ? `no model of provider "${opts.provider}" in the table; lev models list --all shows every provider\n`
            : 'no provider is configured here (set an API key such as ANTHROPIC_API_KEY); lev models list --all shows the whole table\n',
        );
        return;
      }
      print([
        ['model', 'window', 'max output', 'configured'],
        ...all.map((r) => [r.model, String(r.contextWindow), String(r.maxOutputTokens), r.configured ? 'yes' : 'no']),
      ]);
    });
  models
    .command('show')
    .description('Show one model: window, output cap, encoding, prices and whether it can be called here.')
    .argument('<model>', 'provider:model, such as google:gemini-3.5-flash')
    .option('--json', 'print one JSON object')
    .action((ref: string, opts: { json?: boolean }) => {
      const table = rows(process.env);
      const row =
        table.find((r) => r.model === ref) ??
        (lookupModel(Object.fromEntries(table.map((r) => [r.model, r])) as never, ref) as Row | undefined);
      if (!row)
        throw new LevError(
          'unknown-model',
          `"${ref}" is not in the model table; lev models list --all shows the table, and [models."${ref}"] context_window = <tokens> in your config adds it.`,
        );
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ...row, requested: ref }, null, 2)}\n`);
        return;
      }
      const p = row.prices;
      print([
        ['model', row.model === ref ? ref : `${ref} (as ${row.model})`],
        ['provider', row.provider],
        ['context window', `${row.contextWindow} tokens`],
        ['max output', `${row.maxOutputTokens} tokens`],
        ['encoding', row.encoding],
        [
          'prices (USD/M)',
          p
            ? `input ${p.input}, cached read ${p.cachedRead}, cache write ${p.cacheWrite}${p.completion !== undefined ? `, output ${p.completion}` : ''}`
            : 'unknown',
        ],
        ['configured', row.configured ? 'yes' : 'no: its API key is not set here'],
        ['from', row.source === 'config' ? 'your config [models]' : 'the built-in table'],
      ]);
    });
}
