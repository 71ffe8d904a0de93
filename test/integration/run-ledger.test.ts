/**
 * What a person reads about a finished run besides its answer, against the real dev server with
 * the scripted model: `lev stages` (the per-stage ledger), `lev context` (the window over its
 * turns, and one turn's regions and prompt rebuilt from its histories), the run's title in
 * `lev ps`, `lev show` and the Web UI's summary, and the `artifacts` its answer names in
 * `lev result` (docs/reference/cli.md#a-runs-ledger-window-and-title).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';
import { scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

describe("a run's ledger, window history, title and artifacts", () => {
  const env = useRuntime();

  async function finishedRun() {
    const model = scriptedModel({
      turns: [
        {
          stage: 'gather',
          text: 'Writing the table.',
          tool_calls: [{ name: 'write_file', arguments: { path: 'out/data.csv', content: 'a,b\n1,2\n' } }],
        },
        { stage: 'gather', text: 'The table is written.' },
        {
          stage: 'report',
          text: 'Submitting.',
          tool_calls: [
            { name: 'submit_output', arguments: { content: 'One row; see the table.', artifacts: ['./out/data.csv'] } },
          ],
        },
      ],
    });
    const bp = writeBlueprint(`[agent]\nname = "ledgered"\nmodel = "${model}"
[stages.gather]
available_tools = ["write_file"]
[stages.gather.transitions.report]
[stages.report]
mode = "output"
`);
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: bp,
        title: 'Ledger check',
        task: 'Tabulate the rows.',
        caller: {},
        workdir: tempDir('ledger'),
        options: DEFAULT_RUN_OPTIONS,
      },
      { taskQueue: env.rt.taskQueue },
    );
    const result = await runOutcome(handle);
    expect(result.status).toBe('completed');
    return { runId: handle.workflowId, handle, result };
  }

  const at = () => ['--address', temporalAddress()];
  const blobs = () => ({ env: { LEVIATH_BLOB_DIR: env.rt.blobDir } });

  it('prints each stage visit with its turns, tokens, end and the stage it went on to', async () => {
    const { runId, result } = await finishedRun();
    const json = await lev(['stages', runId, '--json', ...at()]);
    expect(json.code).toBe(0);
    const ledger = JSON.parse(json.stdout);
    expect(ledger.from).toBe(0);
    expect(ledger.runEnded).toEqual({ status: 'completed' });
    expect(ledger.visits.map((v: Record<string, unknown>) => [v.visit, v.stage, v.turns, v.end, v.next])).toEqual([
      [1, 'gather', 2, 'completed', 'report'],
      [2, 'report', 1, 'completed', null],
    ]);
    for (const v of ledger.visits) {
      expect(v.usage.promptTokens).toBeGreaterThan(0);
      expect(v.endedAt).toBeGreaterThanOrEqual(v.startedAt);
    }
    // The ledger adds up to what the run's result says it spent.
    expect(ledger.total.usage.promptTokens).toBe(result.usage.promptTokens);
    expect(ledger.total.usage.completionTokens).toBe(result.usage.completionTokens);
    expect(ledger.total.turns).toBe(3);

    const table = await lev(['stages', runId, ...at()]);
    expect(table.stdout).toMatch(/^VISIT\s+STAGE\s+STARTED/);
    expect(table.stdout).toMatch(/\s1\s+gather\s.*\s+completed\s+report\n/);
    expect(table.stdout).toMatch(/\s2\s+report\s.*\s+completed\s+\(run completed\)\n/);
    expect(table.stdout).toMatch(/\s+TOTAL\s+3\s/);

    const unknown = await lev(['stages', 'no-such-run', ...at()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('[run-not-found]');
  });

  it('counts every turn of a visit that went on as new, and was handed over when its run did', async () => {
    const model = scriptedModel({
      turns: [
        ...Array.from({ length: 10 }, (_, i) => ({
          stage: 'main',
          text: `Pass ${i + 1}.`,
          tool_calls: [{ name: 'current_time', arguments: {} }],
        })),
        { stage: 'main', text: 'All passes done.' },
        { stage: 'wrap', text: 'Wrapped.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "long-ledger"\nmodel = "${model}"\n[stages.main]\navailable_tools = ["current_time"]\nmax_iterations = 100\n[stages.main.transitions.wrap]\n[stages.wrap]\n`,
    );
    // The visit goes on as new every 3 turns, the run past 40 events of history (handing its visit over).
    const options = { ...DEFAULT_RUN_OPTIONS, runHistoryEvents: 40, turnsPerRun: 3, progressReportMs: 0 };
    const handle = await startRun(
      env.rt.client,
      { blueprint: bp, task: 'Keep working.', caller: {}, workdir: tempDir('ledger'), options },
      { taskQueue: env.rt.taskQueue },
    );
    const result = await runOutcome(handle);
    const ledger = JSON.parse((await lev(['stages', handle.workflowId, '--json', ...at()])).stdout);
    expect(ledger.visits.map((v: Record<string, unknown>) => [v.stage, v.turns, v.end, v.next])).toEqual([
      ['main', 11, 'completed', 'wrap'],
      ['wrap', 1, 'completed', null],
    ]);
    expect(ledger.total.usage).toEqual({
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      cacheReadTokens: result.usage.cacheReadTokens,
      cacheWriteTokens: result.usage.cacheWriteTokens,
    });
  });

  it("shows the window after each turn, and the regions and prompt one turn read, rebuilt from the run's histories", async () => {
    const { runId } = await finishedRun();
    const history = JSON.parse((await lev(['context', runId, '--json', ...at()])).stdout);
    expect(history.turns.map((t: { turn: number; stage: string }) => [t.turn, t.stage])).toEqual([
      [0, 'gather'],
      [1, 'gather'],
      [2, 'report'],
    ]);
    const lines = (await lev(['context', runId, ...at()])).stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^turn 0 \[gather\] window \d+\/\d+: .*conversation \d+/);

    // Turn 1 read the first reply and, after it, the write's result: more than the window as turn 0's reply ended.
    const turn = await lev(['context', runId, '--turn', '1', '--json', ...at()], blobs());
    expect(turn.code).toBe(0);
    const w = JSON.parse(turn.stdout);
    expect(w).toMatchObject({ runId, turn: 1, stage: 'gather', stageTurn: 1, purpose: 'turn' });
    expect(w.window.used).toBeGreaterThan(history.turns[0].window.used);
    expect(w.window.used).toBeLessThanOrEqual(history.turns[1].window.used);
    expect(w.regions.find((r: { name: string }) => r.name === 'conversation').tokens).toBeGreaterThan(0);
    // The task is pinned, in the system section; the reply and the result are messages.
    expect(w.prompt.system.join('\n')).toContain('Tabulate the rows.');
    const said = w.prompt.messages.map((m: { content: string }) => m.content).join('\n');
    expect(said).toContain('Writing the table.');
    const text = (await lev(['context', runId, '--turn', '1', ...at()], blobs())).stdout;
    expect(text).toMatch(/^Run \S+, turn 1: stage gather \(its turn 1\)/);
    expect(text).toContain('Regions:');
    expect(text).toContain('Prompt:');

    const beyond = await lev(['context', runId, '--turn', '99', ...at()], blobs());
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('[context-turn-unknown]');
    expect(beyond.stderr).toContain('turns 0 to 2');
    const elsewhere = await lev(['context', runId, '--turn', '1', ...at()], {
      env: { LEVIATH_BLOB_DIR: tempDir('no-blobs') },
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('[blob-missing]');
    expect((await lev(['context', 'no-such-run', ...at()])).stderr).toContain('[run-not-found]');
  });

  it('keeps the title for lev ps, lev show and the Web UI, and the artifacts for lev result', async () => {
    const { runId, handle, result } = await finishedRun();
    expect(await (await handle.describe()).staticSummary()).toBe('ledgered: Ledger check');
    const rows = JSON.parse((await lev(['ps', '--json', '--blueprint', 'ledgered', ...at()])).stdout);
    expect(rows.find((r: { runId: string }) => r.runId === runId)).toMatchObject({ title: 'Ledger check' });
    expect((await lev(['ps', '--blueprint', 'ledgered', ...at()])).stdout).toMatch(/^RUN ID\s+TITLE\s+BLUEPRINT/);
    expect((await lev(['show', runId, ...at()])).stdout).toContain('Title:    Ledger check');

    expect(result.artifacts).toEqual(['out/data.csv']);
    const json = JSON.parse((await lev(['result', runId, '--json', ...at()])).stdout);
    expect(json).toMatchObject({ output: { text: 'One row; see the table.' }, artifacts: ['out/data.csv'] });
    const plain = await lev(['result', runId, ...at()]);
    expect(plain.stdout).toBe('One row; see the table.\n');
    expect(plain.stderr).toContain('Files produced (1):\n  out/data.csv');
  });
});
