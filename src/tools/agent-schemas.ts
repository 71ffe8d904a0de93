/**
 * JSON schemas the model sees for the sub-agent tools
 * (docs/reference/sub-agents.md#the-tools). The workflow answers them by
 * starting child runs; the inference activity adds which agents and stages
 * the stage may start to the descriptions.
 */
import type { JsonSchemaSpec } from './context-schemas.js';

const id = { type: 'string', description: 'The id spawn_agent returned.' };

function object(properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false };
}

export const AGENT_TOOL_SCHEMAS: readonly JsonSchemaSpec[] = Object.freeze([
  {
    name: 'fan_out',
    description:
      "Hand many small jobs to workers that run at the same time, one per item, and get back one merged report (per item: its id, whether it succeeded, and its answer or error). Each worker is a separate agent with a clean context: an item's `context` is everything it gets, so make it self-contained. Put every item in one call: the runtime paces how many run at once. This must be the only tool call of its turn. An empty `items` list is a valid answer when nothing is left to do.",
    parameters: object(
      {
        agent: { type: 'string', description: 'Another blueprint to run for each item.' },
        stage: { type: 'string', description: 'A stage of this blueprint that runs as a worker.' },
        items: {
          type: 'array',
          description: 'The work items, in the order the report lists them.',
          items: object(
            {
              id: { type: 'string', description: 'A short unique name for the item; the report uses it.' },
              context: { description: "Everything the item's worker needs: a text or an object." },
            },
            ['id', 'context'],
          ),
        },
      },
      ['items'],
    ),
  },
  {
    name: 'spawn_agent',
    description:
      "Start one sub-agent on a task. With wait = true (the default) the call returns its answer; with wait = false it returns the agent's id at once, and check_agent, wait_for_agent, send_to_agent and kill_agent take that id. The agent has a clean context: the task is everything it gets.",
    parameters: object(
      {
        blueprint: { type: 'string', description: 'Another blueprint to run.' },
        stage: { type: 'string', description: 'A stage of this blueprint that runs as a worker.' },
        task: { type: 'string', description: 'What the agent should do.' },
        seed_context: { type: 'string', description: 'Starting material, placed in its first pinned region.' },
        output_format: { type: 'string', description: 'The format of the answer you want back (json, markdown, ...).' },
        output_instructions: { type: 'string', description: 'How the answer should be shaped.' },
        wait: { type: 'boolean', description: 'Wait for the answer (default true).' },
      },
      ['task'],
    ),
  },
  {
    name: 'check_agent',
    description: 'How an agent started with spawn_agent {wait: false} is doing: still running, or its answer.',
    parameters: object({ id }, ['id']),
  },
  {
    name: 'wait_for_agent',
    description: 'Wait until an agent started with spawn_agent {wait: false} has finished, and return its answer.',
    parameters: object({ id }, ['id']),
  },
  {
    name: 'send_to_agent',
    description: 'Send a message to a running agent; it reads the message as a user turn.',
    parameters: object({ id, message: { type: 'string', description: 'The text to send.' } }, ['id', 'message']),
  },
  {
    name: 'kill_agent',
    description: 'Stop a running agent. It is cancelled, and its work so far is lost to this run.',
    parameters: object({ id }, ['id']),
  },
]);
