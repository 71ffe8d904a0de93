/**
 * The one classification of a tool call (`src/runtime/calls.ts`): what the
 * stage visit asks, starts and answers, and the permission levels an
 * agent-tool call is checked against.
 */
import { describe, expect, it } from 'vitest';
import { agentCallRefusal, agentPermissionLayers, classifyCall, notGrantedText } from '../../src/runtime/calls.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

function bp(toml: string): Blueprint {
  const loaded = loadToml(toml);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

const BP = bp(`[tool_permissions]
shell = "ask"
spawn_agent = "ask"
[safe_commands]
shell = ["ls"]
[stages.main]
allow_blocking_tools = true
available_tools = ["shell", "read_file", "ask_user", "context_write", "spawn_agent", "fan_out"]
`);

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

describe('classifyCall', () => {
  it('refuses a tool the stage was not given, whatever kind it is', () => {
    expect(classifyCall(BP, 'main', call('write_file'), false)).toEqual({ kind: 'refused' });
    expect(notGrantedText(BP, 'main', 'write_file')).toContain('[tool-not-granted]');
  });

  it('tells questions, context tools, agent tools and built-ins apart', () => {
    expect(classifyCall(BP, 'main', call('ask_user', { question: 'why?' }), false)).toEqual({ kind: 'question' });
    expect(classifyCall(BP, 'main', call('context_write'), false)).toEqual({ kind: 'context' });
    expect(classifyCall(BP, 'main', call('fan_out'), false)).toEqual({ kind: 'agent', approval: false });
    expect(classifyCall(BP, 'main', call('read_file', { path: 'a' }), false)).toEqual({
      kind: 'builtin',
      approval: false,
    });
  });

  it('makes an `ask` call wait for a person only in an attended run, and not when the safe list covers it', () => {
    const shell = call('shell', { command: 'make test' });
    expect(classifyCall(BP, 'main', shell, false)).toEqual({ kind: 'builtin', approval: true });
    expect(classifyCall(BP, 'main', shell, true)).toEqual({ kind: 'builtin', approval: false });
    expect(classifyCall(BP, 'main', call('shell', { command: 'ls' }), false)).toEqual({
      kind: 'builtin',
      approval: false,
    });
    expect(classifyCall(BP, 'main', call('spawn_agent', { task: 't' }), false)).toEqual({
      kind: 'agent',
      approval: true,
    });
  });

  it('asks about a default safe command whose arguments write, unless the visit was recorded before that rule', () => {
    const deletes = call('shell', { command: 'git branch -D main' });
    expect(classifyCall(BP, 'main', deletes, false)).toEqual({ kind: 'builtin', approval: true });
    expect(classifyCall(BP, 'main', deletes, false, [], 'keys')).toEqual({ kind: 'builtin', approval: false });
    expect(classifyCall(BP, 'main', call('shell', { command: 'git branch -a' }), false)).toEqual({
      kind: 'builtin',
      approval: false,
    });
  });
});

describe('a script tool of the blueprint (docs/reference/script-tools.md#how-a-call-runs)', () => {
  const scripted = loadToml(
    '[tool_permissions]\nfile_issue = "ask"\n[stages.main]\navailable_tools = ["lookup_owner", "file_issue"]\n[stages.other]\navailable_tools = ["read_file"]',
    {
      'tools/lookup_owner.rhai': '// @tool lookup_owner\n"team"',
      'tools/file_issue.rhai': '// @tool file_issue\n"filed"',
    },
  ).blueprint!;

  it('is a call the tool activity runs, waiting for a person when its permission is ask', () => {
    expect(classifyCall(scripted, 'main', call('lookup_owner'), false)).toEqual({ kind: 'builtin', approval: false });
    expect(classifyCall(scripted, 'main', call('file_issue'), false)).toEqual({ kind: 'builtin', approval: true });
    expect(classifyCall(scripted, 'main', call('file_issue'), true)).toEqual({ kind: 'builtin', approval: false });
  });

  it('is refused in a stage that was not given it', () => {
    expect(classifyCall(scripted, 'other', call('lookup_owner'), false)).toEqual({ kind: 'refused' });
    expect(notGrantedText(scripted, 'other', 'lookup_owner')).toMatch(/^\[tool-not-granted\] stage "other"/);
  });
});

describe('agent-tool permissions', () => {
  const ancestor = { permissions: { tools: { fan_out: 'deny' as const } }, safeCommands: [] };

  it("checks the stage's own permissions, then every ancestor's; an approval stands only for the stage's own", () => {
    expect(agentPermissionLayers(BP, 'main', [ancestor], false)).toHaveLength(2);
    expect(agentPermissionLayers(BP, 'main', [ancestor], true)).toEqual([ancestor]);
    expect(agentPermissionLayers(BP, 'main', undefined, true)).toEqual([]);
  });

  it('lets an approved spawn go ahead and refuses what an ancestor denies', () => {
    const spawn = call('spawn_agent', { task: 't' });
    expect(agentCallRefusal(BP, 'main', spawn, undefined, false, false)).toMatch(/^\[permission-ask\]/);
    expect(agentCallRefusal(BP, 'main', spawn, undefined, true, false)).toBeUndefined();
    expect(agentCallRefusal(BP, 'main', call('fan_out'), [ancestor], true, false)).toMatch(/^\[permission-denied\]/);
  });
});
