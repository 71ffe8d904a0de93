/** Shared request fixtures for the provider tests. */
import type { InferenceRequest, ToolSpec } from '../../src/providers/provider.js';

export const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workdir.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'grep',
    description: 'Search files for a pattern.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
];

/** A turn after one round of two tool calls: the shape most requests have. */
export function sampleRequest(model: string, overrides: Partial<InferenceRequest> = {}): InferenceRequest {
  return {
    model,
    system: [
      { text: '## pinned\nYou are a careful engineer.', cache: true },
      { text: '## stage_instructions\nPlan the fix first.' },
      { text: '## scratch\nnothing yet', cache: true },
    ],
    messages: [
      { role: 'user', content: 'Fix the failing test in a.ts' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'call_1', name: 'read_file', arguments: { path: 'a.ts' } },
          { id: 'call_2', name: 'grep', arguments: { pattern: 'expect' } },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'export const a = 1;' },
      { role: 'tool', toolCallId: 'call_2', toolName: 'grep', content: '[no-match] nothing found', isError: true },
      { role: 'user', content: 'Go on.' },
    ],
    tools: TOOLS,
    maxTokens: 1024,
    meta: { runId: 'run-1', stage: 'plan', turn: 3, purpose: 'turn', attempt: 1 },
    ...overrides,
  };
}
