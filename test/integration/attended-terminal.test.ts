/**
 * `lev run --attended` at a real terminal (docs/reference/operators.md#attended-runs):
 * the command runs under a pseudo-terminal (Python's `pty.spawn`, so its
 * stdin and stdout are a TTY), the test types the answers to its inline
 * `[y/N/note]` questions, and a local OpenAI-compatible model records what
 * the model read back: the approved call ran, the denied ones did not, and
 * the note came through. The questions of the asking tools and of an
 * interaction point are asked there in their forms too
 * (docs/reference/interaction.md#at-the-terminal), on the scripted model.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { chatCompletion, type RecordedRequest, type Reply } from '../providers/wire-server.js';
import { connectClient, temporalAddress } from './helpers.js';
import { saveHistories, tempDir, useWireModel, visitOps, writeBlueprint } from './run-helpers.js';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');
/** Runs the rest of its arguments with a pseudo-terminal as their stdin, stdout and stderr. */
const PTY = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';

function writeCall(id: string, path: string): Reply {
  const args = JSON.stringify({ path, content: `${path}\n` });
  return {
    json: chatCompletion(
      { content: null, tool_calls: [{ id, type: 'function', function: { name: 'write_file', arguments: args } }] },
      'tool_calls',
    ),
  };
}

function texts(req: RecordedRequest | undefined): string {
  return JSON.stringify(req?.body?.messages ?? []);
}

/** `lev …` under a pseudo-terminal: what it printed so far, typing into it, and its exit. */
function levAtTerminal(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn('python3', ['-c', PTY, process.execPath, LEV, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let shown = '';
  child.stdout?.on('data', (d) => {
    shown += String(d);
  });
  child.stderr?.on('data', (d) => {
    shown += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    shown: () => shown,
    type: (line: string) => child.stdin?.write(`${line}\n`),
    exited,
    async waitFor(text: string | RegExp): Promise<void> {
      for (let i = 0; i < 1200; i++) {
        if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`lev never showed ${String(text)}:\n${shown}`);
    },
  };
}

describe('lev run --attended at a terminal', () => {
  const wire = useWireModel();
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  it('asks [y/N/note] inline: y runs the call, n denies it, other text denies it with that note', async () => {
    wire.serve([writeCall('w1', 'a.txt'), writeCall('w2', 'b.txt'), writeCall('w3', 'c.txt')]);
    const bp = writeBlueprint(`
[agent]
name = "at-terminal"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.main]
available_tools = ["write_file"]
[tool_permissions]
write_file = "ask"
`);
    const home = tempDir('pty-home');
    const workdir = tempDir('pty-work');
    const lev = levAtTerminal(
      [
        'run',
        bp.dir,
        '--task',
        'Write three files.',
        '--workdir',
        workdir,
        '--attended',
        '--address',
        temporalAddress(),
      ],
      { LEVIATH_HOME: home, LEVIATH_BUNDLE: inject('workflowBundlePath'), LEVIATH_BLOB_DIR: join(home, 'blobs') },
    );
    children.push(lev.child);

    await lev.waitFor('approve `write_file a.txt` (call w1)? [y/N/note]');
    lev.type('y');
    await lev.waitFor('approve `write_file b.txt` (call w2)? [y/N/note]');
    lev.type('n');
    await lev.waitFor('approve `write_file c.txt` (call w3)? [y/N/note]');
    lev.type('leave c.txt to me');
    expect(await lev.exited).toBe(0);
    expect(lev.shown()).toContain('Run completed');
    const runId = /Run id: (\S+)/.exec(lev.shown())?.[1];
    expect(runId).toBeDefined();

    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('a.txt\n');
    expect(existsSync(join(workdir, 'b.txt'))).toBe(false);
    expect(existsSync(join(workdir, 'c.txt'))).toBe(false);
    const requests = wire.server.requests;
    expect(texts(requests[1])).not.toContain('[call-denied]');
    expect(texts(requests[2])).toContain('[call-denied] The operator denied write_file b.txt. The call was not run.');
    expect(texts(requests[3])).toContain(
      '[call-denied] The operator denied write_file c.txt: leave c.txt to me. The call was not run.',
    );
    const { client, connection } = await connectClient();
    await saveHistories(client, runId as string);
    await connection.close();
  });

  it('asks a choice, a yes/no question, a review and an interaction point with its edit, in their forms', async () => {
    const work = tempDir('pty-points');
    const script = join(work, 'script.toml');
    writeFileSync(
      script,
      `[[turns]]
stage = "plan"
[[turns.tool_calls]]
name = "ask_user_choice"
arguments = { prompt = "Which store?", options = ["Postgres", "SQLite"] }
[[turns.tool_calls]]
name = "ask_user_confirm"
arguments = { prompt = "Drop the old cache?" }
[[turns]]
stage = "plan"
[[turns.tool_calls]]
name = "present_for_review"
arguments = { title = "Design", markdown = "# Design\\nA cache in front of the store." }
[[turns]]
stage = "plan"
text = "## Plan\\n1. Add the cache."
`,
    );
    const bp = writeBlueprint(`
[agent]
name = "points-at-terminal"
model = "scripted:${script}"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
plan = { kind = "pinned", max_tokens = 2000 }
[stages.plan]
mode = "interactive_points"
available_tools = ["ask_user_choice", "ask_user_confirm", "present_for_review"]
[[stages.plan.interaction_points]]
name = "plan_approval"
prompt = "Approve the plan?"
style = "multiple_choice"
options = ["Approve", "Edit", "Abort"]
edit_options = ["Edit"]
abort_options = ["Abort"]
document_region = "plan"
`);
    const home = tempDir('pty-points-home');
    const lev = levAtTerminal(
      ['run', bp.dir, '--task', 'Plan a cache.', '--workdir', work, '--attended', '--address', temporalAddress()],
      { LEVIATH_HOME: home, LEVIATH_BUNDLE: inject('workflowBundlePath'), LEVIATH_BLOB_DIR: join(home, 'blobs') },
    );
    children.push(lev.child);

    await lev.waitFor('Which store?');
    await lev.waitFor('choose 1-2> ');
    lev.type('3');
    // A number past the options is asked again.
    await lev.waitFor(/choose 1-2> [\s\S]*choose 1-2> /);
    lev.type('SQLite');
    await lev.waitFor('Drop the old cache? [y/n]');
    lev.type('n');
    await lev.waitFor('A cache in front of the store.');
    await lev.waitFor('your feedback (Enter acknowledges it)');
    lev.type('');
    await lev.waitFor('checkpoint plan_approval Approve the plan?');
    await lev.waitFor('choose 1-3> ');
    lev.type('2');
    await lev.waitFor('and press Enter to send it');
    const file = /edit (\S+) and press Enter/.exec(lev.shown())?.[1];
    expect(readFileSync(file as string, 'utf8')).toBe('## Plan\n1. Add the cache.');
    writeFileSync(file as string, '## Plan\n1. Add the cache.\n2. Measure it.');
    lev.type('');
    await lev.waitFor('2. Measure it.');
    await lev.waitFor(/choose 1-3> [\s\S]*choose 1-3> /);
    lev.type('1');
    expect(await lev.exited).toBe(0);
    expect(lev.shown()).toContain('Run completed');
    const runId = /Run id: (\S+)/.exec(lev.shown())?.[1] as string;
    const { client, connection } = await connectClient();
    await saveHistories(client, runId);
    const said = (await visitOps(client, `${runId}.1.plan`)).flatMap((op) =>
      op.call.kind === 'route'
        ? [String(op.call.result.content)]
        : op.call.kind === 'write'
          ? [String(op.call.entry.content)]
          : [],
    );
    await connection.close();
    expect(said).toEqual(
      expect.arrayContaining([
        'User chose: SQLite',
        'User answered: No',
        'User reviewed the document and acknowledged.',
        'User [plan_approval] Edit',
        'User [plan_approval] Approve',
      ]),
    );
  });
});
