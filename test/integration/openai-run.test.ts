/**
 * A two-stage agent on the OpenAI-compatible provider, through the real
 * runtime on the dev server, against a local HTTP server that speaks the
 * `/v1/chat/completions` wire format: what the server was sent, what the
 * run returned, and that the API key never reached workflow history.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from './helpers.js';
import { runAgent, scopedEnv, startRuntime, type TestRuntime, tempDir, writeBlueprint } from './run-helpers.js';

const KEY = 'sk-it-7d3e91c4a2b85f60e1d9';

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: ChatMessage[]; tools?: { function: { name: string } }[] };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

type Reply = { content: string; tool_calls?: ReturnType<typeof call>[] };

/** The model's answers in the two-stage run, in the order the runtime asks for them. */
const TWO_STAGE: Reply[] = [
  {
    content: 'Let me read the spec and keep a note.',
    tool_calls: [
      call('call_read', 'read_file', { path: 'spec.md' }),
      call('call_note', 'context_append', { region: 'notes', content: 'The spec fixes the answer at 42.' }),
    ],
  },
  { content: 'Research done.' },
  {
    content: 'Writing it down.',
    tool_calls: [call('call_write', 'context_write', { region: 'final_output', content: 'The answer is 42.' })],
  },
  { content: 'The answer is in final_output.' },
];

function completion(replies: Reply[], i: number) {
  const reply = replies[i] ?? { content: 'Nothing more to do.' };
  return {
    id: `chatcmpl-${i}`,
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', ...reply },
        finish_reason: 'tool_calls' in reply ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 100 + i, completion_tokens: 10 + i, total_tokens: 110 + 2 * i },
  };
}

function startServer(received: Received[], replies: () => Reply[]): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw) as Received['body'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(replies(), received.length - 1)));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const systemText = (r: Received) =>
  r.body.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content ?? '')
    .join('\n');
/** The tail after the conversation, where the temporary `notes` region renders (docs/reference/rendering.md#tail). */
const tailText = (r: Received) => {
  const last = r.body.messages.at(-1);
  return last?.role === 'user' && last.content?.startsWith('## notes') ? last.content : '';
};
const toolNames = (r: Received) => (r.body.tools ?? []).map((t) => t.function.name).sort();

describe('a run on the OpenAI-compatible provider', () => {
  const received: Received[] = [];
  let replies: Reply[] = [];
  const serve = (script: Reply[]) => {
    received.length = 0;
    replies = script;
  };
  const vars = scopedEnv();
  let server: Server;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;

  beforeAll(async () => {
    server = await startServer(received, () => replies);
    vars.set({ OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, OPENAI_API_KEY: KEY });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
    await new Promise((r) => server?.close(r));
    vars.restore();
  });

  it('researches, writes the answer, reports usage, and keeps the key out of history', async () => {
    serve(TWO_STAGE);
    const bp = writeBlueprint(`
[agent]
name = "openai-e2e"
model = "openai:gpt-4o"
entry_stage = "research"

[context.regions]
task               = { kind = "pinned", max_tokens = 500 }
stage_instructions = { kind = "pinned", max_tokens = 500 }
notes              = { kind = "temporary", max_tokens = 2000 }
final_output       = { kind = "pinned", max_tokens = 1000 }

[stages.research]
system_prompt = "Read the spec and note what matters."
available_tools = ["read_file", "context_append"]
[stages.research.transitions.write]

[stages.write]
system_prompt = "Write the answer to final_output."
available_tools = ["context_write"]
`);
    const workdir = tempDir('openai-work');
    writeFileSync(join(workdir, 'spec.md'), 'Spec: every answer in this project is 42.\n');
    const task = 'Find the answer the spec prescribes.';
    const run = await runAgent(rt, bp, { task, workdir });

    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['research', 'write']);
    expect(run.result.output).toBe('The answer is 42.');

    expect(received).toHaveLength(4);
    for (const r of received) {
      expect(r.url).toBe('/v1/chat/completions');
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.body.model).toBe('gpt-4o');
    }
    const [first, second, third, fourth] = received as [Received, Received, Received, Received];

    // Research: the pinned task and the stage's instructions in the system text; the run's tools,
    // with the stage's own stated (docs/reference/rendering.md#the-tool-list).
    expect(systemText(first)).toContain(task);
    expect(systemText(first)).toContain('Read the spec and note what matters.');
    expect(systemText(first)).toContain('In stage "research" you may call only: read_file, context_append.');
    for (const r of received) expect(toolNames(r)).toEqual(['context_append', 'context_write', 'read_file']);

    // The second request pairs each tool call with its result, right after the assistant turn.
    const msgs = second.body.messages;
    const asked = msgs.findIndex((m) => m.role === 'assistant' && m.tool_calls?.length);
    expect(asked).toBeGreaterThanOrEqual(0);
    const ids = msgs[asked]!.tool_calls!.map((c) => c.id);
    expect(ids).toEqual(['call_read', 'call_note']);
    expect(msgs.slice(asked + 1, asked + 3).map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_read'],
      ['tool', 'call_note'],
    ]);
    const secondText = `${systemText(second)}\n${msgs.map((m) => m.content ?? '').join('\n')}`;
    expect(secondText).toContain('every answer in this project is 42');
    expect(tailText(second)).toContain('The spec fixes the answer at 42.');
    expect(systemText(second)).not.toContain('The spec fixes the answer at 42.');

    // Write: the new stage's instructions replace the old ones; the note carried over.
    expect(systemText(third)).toContain('Write the answer to final_output.');
    expect(systemText(third)).not.toContain('Read the spec and note what matters.');
    expect(tailText(third)).toContain('The spec fixes the answer at 42.');
    expect(systemText(third)).toContain('In stage "write" you may call only: context_write.');
    expect(systemText(fourth)).toContain('The answer is 42.');

    // Usage is the server's own numbers, summed per stage and for the run.
    expect(run.result.usage).toMatchObject({
      calls: 4,
      promptTokens: 100 + 101 + 102 + 103,
      completionTokens: 10 + 11 + 12 + 13,
    });
    expect(run.result.usage.perStage.research).toMatchObject({ calls: 2, promptTokens: 201, completionTokens: 21 });
    expect(run.result.usage.perStage.write).toMatchObject({ calls: 2, promptTokens: 205, completionTokens: 25 });

    // Neither the run's nor its stage visits' histories carry the key.
    const workflows = [
      run.handle.workflowId,
      `${run.handle.workflowId}.1.research`,
      `${run.handle.workflowId}.2.write`,
    ];
    for (const id of workflows) {
      const bytes = Buffer.from(
        temporal.api.history.v1.History.encode(await conn.client.workflow.getHandle(id).fetchHistory()).finish(),
      );
      // Payloads are stored as plain JSON bytes, so the search sees inside them: the task is there, the key is not.
      expect(bytes.includes(task)).toBe(true);
      expect(bytes.includes(KEY)).toBe(false);
    }
  });

  it('sends a large file read in full while the run history holds only a reference to it', async () => {
    const log = Array.from(
      { length: 300 },
      (_, i) => `2026-11-28T02:${String(i % 60).padStart(2, '0')} req ${String(i).padStart(6, '0')} ok`,
    ).join('\n');
    serve([
      { content: 'Reading the log.', tool_calls: [call('call_log', 'read_file', { path: 'big.log' })] },
      { content: 'The log is clean.' },
    ]);
    const bp = writeBlueprint(`
[agent]
name = "openai-large"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
logs = { kind = "temporary", max_tokens = 20000 }
[stages.main]
available_tools = ["read_file"]
[stages.main.tool_routing]
default_region = "logs"
max_result_tokens = 20000
`);
    const workdir = tempDir('openai-large');
    writeFileSync(join(workdir, 'big.log'), `${log}\n`);
    const run = await runAgent(rt, bp, { task: 'check the log', workdir });
    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('The log is clean.');
    expect(received).toHaveLength(2);
    const second = received[1]!;
    const sent = `${systemText(second)}\n${second.body.messages.map((m) => m.content ?? '').join('\n')}`;
    expect(sent).toContain('req 000000 ok');
    expect(sent).toContain('req 000299 ok');
    for (const id of [run.handle.workflowId, `${run.handle.workflowId}.1.main`]) {
      const bytes = Buffer.from(
        temporal.api.history.v1.History.encode(await conn.client.workflow.getHandle(id).fetchHistory()).finish(),
      );
      expect(bytes.includes('req 000299 ok')).toBe(false);
    }
  });
});
