/**
 * The process benches run end to end at a small size (issue 13's smoke run): their own dev
 * server, a `lev worker` process and the fake model. Their figures are printed, never asserted.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function bench(...args: string[]): string {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 170_000,
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout;
}

/** The values of each row a bench prints, by column. */
function rows(output: string): Record<string, string>[] {
  const lines = output.split('\n').filter((l) => l.startsWith('|'));
  const cells = (l: string) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(lines[0]!);
  return lines.slice(2).map((l) => {
    const values = cells(l);
    return Object.fromEntries(header.map((h, i) => [h, values[i]!]));
  });
}

/** The values of the one row a bench prints, by column. */
function row(output: string): Record<string, string> {
  return rows(output)[0]!;
}

describe('process benches', () => {
  it('burst runs two agents to the end beside both floors and reports every column', () => {
    // Its idle figures are read at once: printed, never asserted.
    const out = bench('burst', '2', '--latency', '50', '--turns', '3', '--settle-ms', '0', '--floor-local');
    expect(out).not.toContain('did not complete');
    const byRun = Object.fromEntries(rows(out).map((r) => [r.run, r]));
    expect(Object.keys(byRun)).toEqual([
      'floor (activity)',
      'floor (local activity)',
      'leviath',
      'leviath / floor (activity)',
      'leviath / floor (local activity)',
    ]);
    for (const run of ['floor (activity)', 'floor (local activity)', 'leviath']) {
      expect(byRun[run]!.N).toBe('2');
      expect(byRun[run]!['model calls']).toBe('6');
    }
    expect(Object.keys(byRun.leviath!)).toEqual(
      expect.arrayContaining(['worker CPU ms/turn', 'history bytes/turn all/turn']),
    );
    expect(byRun['leviath / floor (activity)']!['CPU ms/turn']).toMatch(/×$/);
  });

  it('days drives a run for two short simulated days, through continue-as-new', () => {
    // Twenty reports a simulated day, and a run that goes on as new every 60 events, so both days do.
    const out = bench(
      'days',
      '--days',
      '2',
      '--turn-secs',
      '4320',
      '--messages-per-day',
      '4',
      '--history-events',
      '60',
    );
    const days = out.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(days).toHaveLength(2);
    const [, , continued, largest] = days[1]!
      .split('|')
      .slice(1, -1)
      .map((c) => Number(c.trim()));
    expect(continued).toBeGreaterThan(0);
    expect(largest).toBeLessThan(400);
  });

  it('crash resumes every agent on the replacement worker', () => {
    // The calls the killed worker held are retried after a 2 s heartbeat timeout instead of the default 20 s.
    const r = row(bench('crash', '2', '--latency', '100', '--turns', '5', '--heartbeat-secs', '2'));
    expect(r['runs completed']).toBe('2/2');
  });
});
