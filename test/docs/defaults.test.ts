/**
 * The reference pages state the defaults the loader applies. Each default
 * here is read from a blueprint the loader has just parsed (not from a copy
 * of the constants), and compared with the Default column of the key's row
 * in the page's table, so a changed default fails until its page follows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveBudget } from '../../src/blueprint/budget.js';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';

function load(toml: string): Blueprint {
  const { blueprint, diagnostics } = loadBlueprintFromString(toml, '/tmp/defaults', '/tmp/defaults/agent.toml');
  if (!blueprint) throw new Error(diagnostics.map((d) => d.message).join('; '));
  return blueprint;
}

/**
 * The cell after the one holding `key` in the first table row naming it under
 * the heading `section`, reduced to its first word.
 */
function documentedDefault(page: string, section: string, key: string): string | undefined {
  const text = readFileSync(`docs/reference/${page}`, 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  if (start < 0) return undefined;
  const end = text.indexOf('\n## ', start + 1);
  for (const line of text.slice(start, end < 0 ? undefined : end).split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').map((c) => c.trim());
    const at = cells.indexOf(`\`${key}\``);
    if (at < 0) continue;
    const cell = cells[at + 1] ?? '';
    return cell.replace(/[`"]/g, '').split(/\s+/)[0];
  }
  return undefined;
}

const bp = load(`
[context.regions]
plain   = {}
window  = { kind = "sliding_window" }
bulk    = { kind = "sliding_window", strategy = "bulk" }
compact = { kind = "sliding_window", strategy = "compact" }
files   = { kind = "hashmap" }

[context.file_tracking]

[stages.a.tool_routing]

[stages.a.transitions.b]
gate = { require_regions = ["plain"] }

[stages.b]
`);
const region = (name: string) => bp.regions.find((r) => r.name === name)!;
const stage = bp.stages[0]!;
const edge = stage.transitions[0]!;

describe('reference defaults', () => {
  it('match the region keys the loader fills in', () => {
    const plain = region('plain');
    const documented = {
      kind: documentedDefault('regions.md', 'Common keys', 'kind'),
      admission: documentedDefault('regions.md', 'Common keys', 'admission'),
      volatility: documentedDefault('regions.md', 'Common keys', 'volatility'),
      summarizable: documentedDefault('regions.md', 'Common keys', 'summarizable'),
      required: documentedDefault('regions.md', 'Common keys', 'required'),
      describe_in_prompt: documentedDefault('regions.md', 'Common keys', 'describe_in_prompt'),
      max_tokens: documentedDefault('regions.md', 'Common keys', 'max_tokens'),
      max_items: documentedDefault('regions.md', 'Per-kind keys', 'max_items'),
      strategy: documentedDefault('regions.md', 'Per-kind keys', 'strategy'),
      overflow: documentedDefault('regions.md', 'Per-kind keys', 'overflow'),
      compact_count: documentedDefault('regions.md', 'Per-kind keys', 'compact_count'),
    };
    expect(documented).toEqual({
      kind: plain.kind,
      admission: plain.admission,
      volatility: plain.volatility,
      summarizable: String(plain.summarizable),
      required: String(plain.required),
      describe_in_prompt: String(plain.describeInPrompt),
      max_tokens: String(resolveBudget(plain, 200_000)),
      max_items: String(region('window').maxItems),
      strategy: region('window').strategy,
      overflow: String(region('bulk').overflow),
      compact_count: String(region('compact').compactCount),
    });
  });

  it('match the blueprint tables the loader fills in', () => {
    const documented = {
      model: documentedDefault('blueprint.md', 'Agent', 'model'),
      max_summary_tokens: documentedDefault('blueprint.md', 'Compaction', 'max_summary_tokens'),
      temperature: documentedDefault('blueprint.md', 'Compaction', 'temperature'),
      region: documentedDefault('blueprint.md', 'File tracking', 'region'),
      track_reads: documentedDefault('blueprint.md', 'File tracking', 'track_reads'),
      track_writes: documentedDefault('blueprint.md', 'File tracking', 'track_writes'),
      default_region: documentedDefault('blueprint.md', 'Tool routing', 'default_region'),
      persist: documentedDefault('blueprint.md', 'Tool routing', 'persist'),
      allow_complete: documentedDefault('blueprint.md', 'Stages', 'allow_complete'),
      condition: documentedDefault('blueprint.md', 'Transitions', 'condition'),
      transform: documentedDefault('blueprint.md', 'Transitions', 'transform'),
      max_attempts: documentedDefault('blueprint.md', 'Gate', 'max_attempts'),
    };
    expect(documented).toEqual({
      model: stage.model,
      max_summary_tokens: String(bp.compaction.maxSummaryTokens),
      temperature: String(bp.compaction.temperature),
      region: bp.fileTracking?.region,
      track_reads: String(bp.fileTracking?.trackReads),
      track_writes: String(bp.fileTracking?.trackWrites),
      default_region: stage.toolRouting?.defaultRegion,
      persist: String(stage.toolRouting?.persist),
      allow_complete: String(stage.allowComplete),
      condition: edge.condition,
      transform: edge.transform,
      max_attempts: String(edge.gate?.maxAttempts),
    });
  });

  it('match the runtime regions the loader appends', () => {
    const text = readFileSync('docs/reference/regions.md', 'utf8').replace(/\s+/g, ' ');
    const missing = ['tool_results', 'conversation', 'final_output']
      .map(region)
      .filter((r) => !text.includes(`\`${r.name}\` (${r.kind}, ${r.maxTokens}`));
    expect(missing.map((r) => r.name)).toEqual([]);
  });
});
