/**
 * The readable form of a simulation (`lev context simulate` without
 * `--json`): the same facts as docs/reference/simulator.md#json-output, laid out for a terminal.
 * Its regions and prompt sections are also how `lev context <run> --turn N` shows a run's window.
 */

import { columnWidths } from '../columns.js';
import type { RegionView, SimOutput } from './output.js';

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

function table(header: string[], rows: string[][], numeric: Set<number>): string[] {
  const widths = columnWidths(header, rows);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function formatReport(out: SimOutput): string {
  const lines: string[] = [];
  lines.push(`Events (${out.results.length}):`);
  out.results.forEach((r, i) => {
    lines.push(`  ${String(i + 1).padStart(3)}. ${r.ok ? 'ok  ' : 'FAIL'} ${r.text.split('\n')[0]}`);
  });

  lines.push(
    '',
    `Window: ${out.window.used} of ${out.window.max} tokens used, calibration gap ${out.window.gap}`,
    '',
    ...regionLines(out.regions),
    '',
    ...promptLines(out.prompt),
  );

  lines.push(
    '',
    `Run: stage ${out.run.stage}, attempts ${out.run.attempts}, gates forced ${out.run.gates_forced.length}`,
  );
  for (const g of out.run.gates_forced)
    lines.push(`  forced ${g.stage} → ${g.target ?? '(end)'}: ${g.check}: ${g.detail}`);
  for (const d of out.run.diagnostics) lines.push(`  ${d.severity} [${d.code}] ${d.detail}`);
  return `${lines.join('\n')}\n`;
}

/** `Regions:`, a table of every region, then each region's entries with a preview. */
export function regionLines(regions: readonly RegionView[]): string[] {
  const lines = ['Regions:'];
  const rows = regions.map((r) => [
    r.name,
    r.kind,
    String(r.tokens),
    String(r.budget),
    r.threshold === undefined ? '' : String(r.threshold),
    String(r.entries.length),
    r.hidden ? 'hidden' : '',
  ]);
  lines.push(
    ...table(['region', 'kind', 'tokens', 'budget', 'threshold', 'entries', ''], rows, new Set([2, 3, 4, 5])).map(
      (l) => `  ${l}`,
    ),
  );
  for (const r of regions) {
    if (r.entries.length === 0) continue;
    lines.push('', `  ${r.name}:`);
    for (const e of r.entries) {
      const tags = [e.key === null ? '' : `key ${e.key}`, e.kind === 'text' ? '' : e.kind, e.summary ? 'summary' : '']
        .filter(Boolean)
        .join(', ');
      lines.push(`    [${e.index}] ${String(e.tokens).padStart(6)} tok${tags ? ` (${tags})` : ''}  ${e.preview}`);
    }
    if (r.open_items?.length)
      lines.push(
        `    open items: ${r.open_items.map((i) => `#${i.id}${i.note === undefined ? '' : ` (note: ${i.note})`}`).join(', ')}`,
      );
  }
  return lines;
}

/** `Prompt:` with every system block and message, each under a `--- role ---` line. */
export function promptLines(prompt: SimOutput['prompt']): string[] {
  const lines = [`Prompt: ${prompt.system.length} system blocks, ${prompt.messages.length} messages`];
  prompt.system.forEach((block, i) => {
    lines.push(`  --- system ${i + 1} ---`, indent(block, '  '));
  });
  for (const m of prompt.messages) {
    const calls = m.tool_calls?.length ? ` calls ${m.tool_calls.map((c) => `${c.id}:${c.name}`).join(', ')}` : '';
    const reply = m.tool_call_id ? ` for ${m.tool_call_id}` : '';
    const tail = m.tail ? ' (tail)' : '';
    lines.push(`  --- ${m.role}${tail}${reply}${calls} ---`, indent(m.content, '  '));
  }
  return lines;
}
