/**
 * Hostile or broken OpenAI-compatible servers, through the real runtime:
 * a stalled body, an HTML page with status 200, `choices: []`, a 20 MB
 * answer and a 5 MB tool argument. Each either recovers by retrying or ends
 * with a coded error; none wedges the worker or retries forever.
 */
import { describe, expect, it } from 'vitest';
import { chatCompletion, type Reply } from '../providers/wire-server.js';
import { runAgent, useRuntime, useWireModel, writeBlueprint } from './run-helpers.js';

const BLUEPRINT = `
[agent]
name = "provider-faults"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
scratch = { kind = "temporary", max_tokens = 4000 }
[stages.main]
available_tools = ["write_file"]
`;

describe('a run against a faulty provider', () => {
  const env = useRuntime();
  const wire = useWireModel({ LEVIATH_PROVIDER_TIMEOUT_MS: '1500' });
  const serve = (script: Reply[]) => wire.serve(script);

  it('gives up on a stalled answer after the deadline and retries the call', async () => {
    serve([{ stall: true }, { json: chatCompletion({ content: 'Recovered after a stall.' }) }]);
    const run = await runAgent(env.rt, writeBlueprint(BLUEPRINT), { task: 'answer' });
    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('Recovered after a stall.');
    expect(wire.server.requests).toHaveLength(2);
  });

  it('retries an HTML page sent with 200 and an answer with no choices, then uses the real answer', async () => {
    serve([
      { headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' },
      { json: { ...chatCompletion({ content: 'x' }), choices: [] } },
      { json: chatCompletion({ content: 'The real answer.' }) },
    ]);
    const run = await runAgent(env.rt, writeBlueprint(BLUEPRINT), { task: 'answer' });
    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('The real answer.');
    expect(wire.server.requests).toHaveLength(3);
  });

  it('fails a 20 MB answer at once with a coded, non-retryable error', async () => {
    serve([{ body: JSON.stringify(chatCompletion({ content: 'z'.repeat(20 * 1024 * 1024) })) }]);
    const run = await runAgent(env.rt, writeBlueprint(BLUEPRINT), { task: 'answer' });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('[provider-answer-too-large]');
    expect(wire.server.requests).toHaveLength(1);
  });

  it('hands a 5 MB tool argument back to the model as a refused call and goes on', async () => {
    const args = JSON.stringify({ path: 'big.txt', content: 'w'.repeat(5 * 1024 * 1024) });
    serve([
      {
        json: chatCompletion(
          {
            content: null,
            tool_calls: [{ id: 'big', type: 'function', function: { name: 'write_file', arguments: args } }],
          },
          'tool_calls',
        ),
      },
      { json: chatCompletion({ content: 'Split it instead.' }) },
    ]);
    const run = await runAgent(env.rt, writeBlueprint(BLUEPRINT), { task: 'write a big file' });
    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('Split it instead.');
    expect(wire.server.requests).toHaveLength(2);
    expect(wire.server.requests[1]!.raw).toContain('tool-arguments-too-large');
  });

  it('cuts a 3 MB final answer in the run result instead of failing on the payload limit', async () => {
    const answer = `${'The answer, at length. '.repeat(130_000)}THE END`;
    serve([{ json: chatCompletion({ content: answer }) }]);
    const run = await runAgent(env.rt, writeBlueprint(BLUEPRINT), { task: 'answer at length' });
    expect(run.result.status).toBe('completed');
    expect(run.result.output.startsWith('The answer, at length. ')).toBe(true);
    expect(run.result.output).toMatch(/\[output cut: the whole output is \d+ bytes stored as blob [0-9a-f]{64}/);
    expect(run.result.output.length).toBeLessThan(600_000);
  });
});
