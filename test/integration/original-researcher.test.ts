/**
 * The original Leviath's `researcher` (test/fixtures/leviath-rs) run end to
 * end on the scripted model, with the keys issue 43 made work: its analyze
 * stage's `transition_prompt` is the question of the edge choice, the gather
 * stage's model `parameters` (added here; the original's agents set none)
 * reach the model with every call of the stage, and its `web_search` passes
 * the `freshness` its prompt asks for to a local Brave-like search server.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { scriptedCalls } from '../../src/providers/index.js';
import { runAgent, scopedEnv, scriptedModel, tempDir, useRuntime } from './run-helpers.js';

const QUESTION = 'Which durable agent runtimes are current?';

/** The researcher, every model chain replaced by `model`, the gather stage's with these parameters. */
function researcher(model: string): string {
  const dir = join(tempDir('researcher'), 'researcher');
  cpSync('test/fixtures/leviath-rs/agents/researcher', dir, { recursive: true });
  const file = join(dir, 'agent.leviath');
  const [provider, name] = model.split(':') as [string, string];
  let text = readFileSync(file, 'utf8').replace(
    /^model = \{ models = .*\}$/gm,
    `model = { provider = "${provider}", model = "${name}" }`,
  );
  text = text.replace(
    /(\[stages\.gather\]\nmode = "autonomous"\nmodel = \{ provider = "[^"]+", model = "[^"]+")/,
    '$1, parameters = { temperature = 0.2, max_output_tokens = 900, think = false }',
  );
  text = text.replace(
    /\[compaction\]\nprovider = "anthropic"\nmodel = "claude-sonnet-5"/,
    `[compaction]\nmodel = "${model}"`,
  );
  // The window of the original's models, so its percentage budgets resolve as they would there.
  writeFileSync(file, `${text}\n[models."${model}"]\ncontext_window = 200000\n`);
  return dir;
}

describe("the original's researcher", () => {
  const env = useRuntime();
  const vars = scopedEnv();
  const asked: string[] = [];
  let search: Server;

  beforeAll(async () => {
    search = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          web: {
            results: [
              { title: 'Runtime A 2.0', url: 'https://a.example', description: 'Released.', page_age: '2026-12-03' },
            ],
          },
        }),
      );
    });
    await new Promise<void>((r) => search.listen(0, '127.0.0.1', r));
    const config = join(tempDir('config'), 'config.toml');
    writeFileSync(
      config,
      `[web]\nallow_addresses = ["127.0.0.1"]\n[web.search]\nkind = "brave"\nurl = "http://127.0.0.1:${(search.address() as AddressInfo).port}/brave"\napi_key = "tok"\n`,
    );
    vars.set({ LEVIATH_CONFIG: config });
  });
  afterAll(async () => {
    vars.restore();
    await new Promise((r) => search?.close(r));
  });

  it('asks its transition_prompt, sends the stage parameters and searches with freshness', async () => {
    const model = scriptedModel({
      choices: { analyze: 'summarize' },
      turns: [
        {
          stage: 'gather',
          tool_calls: [
            { name: 'web_search', arguments: { query: 'latest durable agent runtimes', freshness: 'pw' } },
            {
              name: 'context_append',
              arguments: { region: 'sources_index', content: '[1] Runtime A 2.0 - https://a.example - 2026-12-03' },
            },
          ],
        },
        { stage: 'gather', text: 'Gathered.' },
        { stage: 'analyze', text: 'Runtime A 2.0 is current [1].' },
        { stage: 'summarize', text: 'Runtime A 2.0 is the current one [1].' },
        { stage: 'summary', tool_calls: [{ name: 'submit_output', arguments: { content: 'Runtime A 2.0 [1].' } }] },
      ],
    });
    const dir = researcher(model);
    const loaded = loadBlueprint(dir, { workdir: dir });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.diagnostics.filter((d) => d.code === 'unsupported-feature')).toEqual([]);
    const { result, handle } = await runAgent(env.rt, loaded.blueprint!, { task: QUESTION });
    expect(result.status).toBe('completed');
    expect(result.stages).toEqual(['gather', 'analyze', 'summarize', 'summary']);
    expect(result.output).toBe('Runtime A 2.0 [1].');

    // web_search passed freshness on; the result carried the page's date back.
    expect(asked).toEqual(['/brave?q=latest+durable+agent+runtimes&count=8&freshness=pw']);

    // Every call of the gather stage, and only of it, carried its parameters.
    const calls = scriptedCalls().filter((c) => c.runId === handle.workflowId);
    const gather = calls.filter((c) => c.stage === 'gather');
    expect(gather.length).toBeGreaterThan(0);
    for (const c of gather) expect(c.parameters).toEqual({ temperature: 0.2, max_tokens: 900, think: false });
    expect(calls.filter((c) => c.stage !== 'gather' && c.parameters !== undefined)).toEqual([]);

    // The analyze stage's edge choice asked its transition_prompt, then listed the edges.
    const history = await env.rt.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const questions = (history.events ?? []).flatMap((e) =>
      (e.activityTaskScheduledEventAttributes?.input?.payloads ?? [])
        .map((p) => Buffer.from(p.data ?? []).toString())
        .filter((t) => t.includes('"edge-choice"')),
    );
    expect(questions).toHaveLength(1);
    const question = JSON.parse(questions[0] as string)[0]?.question ?? JSON.parse(questions[0] as string).question;
    expect(question).toMatch(/^You've analyzed the material gathered so far\. Decide what happens next:/);
    expect(question).toContain('Available transitions:\ngather: More information needed on specific sub-topics');
    expect(calls.filter((c) => c.purpose === 'edge-choice').map((c) => c.stage)).toEqual(['analyze']);
  });
});
