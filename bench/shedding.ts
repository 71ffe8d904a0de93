/**
 * `npm run bench -- shedding [--turns N]`: whether shedding in chunks (down
 * to a low-water mark, docs/reference/regions.md#chunked-eviction) buys any
 * prompt cache, region kind by region kind. One scripted session under token
 * pressure: search results and notes fill a `temporary` scratch region (a
 * rewritten region, rendered in the tail after the conversation), and long
 * replies fill a `bulk` sliding window (the conversation, rendered as the
 * messages). The same session runs four times, each region freeing only what
 * a write needs or shedding in chunks, and every prompt goes through the real
 * OpenAI and Anthropic adapters to a local recording server
 * (`bench/prompt-session.ts`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBlueprint } from '../src/blueprint/load.js';
import { LOW_WATER } from '../src/blueprint/volatility.js';
import type { Blueprint, RegionDef } from '../src/shapes/frozen-blueprint.js';
import {
  ANTHROPIC_MODEL,
  countStagePrompts,
  median,
  OPENAI_MODEL,
  pct,
  runSession,
  sessionCost,
  sourceFile,
  type Turn,
} from './prompt-session.js';

const BLUEPRINT = `
[agent]
name = "shedding"
model = "${ANTHROPIC_MODEL}"
entry_stage = "work"

[context.regions]
task               = { kind = "pinned", max_tokens = 2000, volatility = "stable" }
stage_instructions = { kind = "pinned", max_tokens = 1000 }
scratch            = { kind = "temporary", max_tokens = 3000 }
conversation       = { kind = "sliding_window", max_tokens = 12000, max_items = 1000, strategy = "bulk", overflow = 10 }

[stages.work]
system_prompt = "Trace where charges are posted twice. Search the code, keep short notes in scratch, and report."
available_tools = ["grep", "context_append"]

[stages.work.tool_routing]
default_region = "scratch"
`;

const TASK = 'Find every place a charge can be posted twice and explain each one.';

/** A reply of about `tokens` tokens, different on every turn so no two messages share text. */
function reply(i: number, tokens: number): string {
  return sourceFile(`reasoning about step ${i}`, tokens).replaceAll('export function', 'considering');
}

function session(turns: number): Turn[] {
  return Array.from({ length: turns }, (_, i): Turn => {
    const say = reply(i, 250);
    if (i === turns - 1) return { say };
    if (i % 3 === 2)
      return { say, call: { name: 'context_append', args: { region: 'scratch', content: reply(1000 + i, 200) } } };
    return { say, call: { name: 'grep', args: { pattern: `postCharge${i}` } } };
  });
}

function toolOutput(turn: Turn): string {
  return sourceFile(`grep ${String(turn.call?.args.pattern)}`, 400);
}

type Rule = 'need' | 'chunked';

/** The blueprint with every region of `kind` shedding by `rule`. */
function withRule(bp: Blueprint, kind: RegionDef['kind'], rule: Rule): Blueprint {
  const set = (d: RegionDef): RegionDef => {
    if (d.kind !== kind) return d;
    const { shedTo: _, ...rest } = d;
    return rule === 'chunked' ? { ...rest, shedTo: LOW_WATER } : rest;
  };
  return {
    ...bp,
    regions: bp.regions.map(set),
    stages: bp.stages.map((s) => (s.regions ? { ...s, regions: s.regions.map(set) } : s)),
  };
}

export default async function run(args: string[] = []): Promise<void> {
  const turns = args[0] === '--turns' ? Number(args[1]) : 60;
  if (!Number.isInteger(turns) || turns < 4) throw new Error('--turns takes a whole number of at least 4');
  const dir = mkdtempSync(join(tmpdir(), 'leviath-shedding-'));
  let base: Blueprint;
  try {
    writeFileSync(join(dir, 'agent.toml'), BLUEPRINT);
    const loaded = loadBlueprint(dir);
    if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    base = countStagePrompts(loaded.blueprint);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const turnsPlan = session(turns);
  console.log(
    `shedding bench: ${turns} turns; scratch (temporary, 3,000 tokens, rendered in the tail) takes 400-token search ` +
      'results and 200-token notes; conversation (bulk sliding window, 12,000 tokens) takes 250-token replies',
  );
  const header = [
    'temporary',
    'bulk window',
    'reusable prefix, median (OpenAI)',
    'previous kept, median',
    `input cost cached/uncached ${ANTHROPIC_MODEL}`,
    `input cost cached/uncached ${OPENAI_MODEL}`,
  ];
  const lines: string[][] = [];
  for (const temporary of ['chunked', 'need'] as const)
    for (const window of ['chunked', 'need'] as const) {
      const bp = withRule(withRule(base, 'temporary', temporary), 'sliding_window', window);
      const { rows } = await runSession({ bp, stage: 'work', task: TASK, turns: turnsPlan, toolOutput });
      const pairs = rows.filter((r) => r.share !== undefined);
      const a = sessionCost(rows, ANTHROPIC_MODEL);
      const o = sessionCost(rows, OPENAI_MODEL);
      lines.push([
        temporary,
        window,
        pct(median(pairs.map((r) => r.share!))),
        pct(median(pairs.map((r) => r.kept!))),
        a ? `${pct(a.cached / a.uncached)} ($${a.cached.toFixed(4)})` : 'no prices',
        o ? `${pct(o.cached / o.uncached)} ($${o.cached.toFixed(4)})` : 'no prices',
      ]);
    }
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const fmt = (cells: string[]) => cells.map((x, c) => (c < 2 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!)));
  console.log(fmt(header).join('  '));
  for (const l of lines) console.log(fmt(l).join('  '));
}
