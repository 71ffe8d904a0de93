/**
 * JSON schemas the model sees for the context tools of docs/reference/context-tools.md. These
 * tools are answered inside the workflow, whose bundle must stay small, so
 * the schemas are plain objects rather than zod definitions.
 */

export interface JsonSchemaSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

const region = { type: 'string', description: 'Name of the context region.' };
const content = { type: 'string', description: 'Text to store.' };
const key = { type: 'string', description: 'Entry key (required for hashmap regions).' };
const itemId = {
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', pattern: '^[0-9]+$' },
  ],
  description: 'Checklist item id, as shown by context_list.',
};

function object(properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** `ask_user` (docs/reference/operators.md#ask_user): answered in the workflow by a person's `answer` update. */
export const ASK_USER_SCHEMA: JsonSchemaSpec = Object.freeze({
  name: 'ask_user',
  description:
    "Ask the person running this agent a question and wait for the answer, which is this call's result. Use it only when you cannot decide well without them; the run waits until they answer or the wait times out.",
  parameters: object({ question: { type: 'string', description: 'The question, self-contained.' } }, ['question']),
});

const prompt = { type: 'string', description: 'The question, self-contained.' };

/**
 * The other tools that wait for a person (docs/reference/interaction.md#the-asking-tools),
 * with the original Leviath's arguments; each is answered by the `answer` update.
 */
export const PERSON_TOOL_SCHEMAS: readonly JsonSchemaSpec[] = Object.freeze([
  ASK_USER_SCHEMA,
  {
    name: 'ask_user_choice',
    description:
      'Ask the person running this agent to pick one of a few options, and wait for the pick, which is the result ("User chose: <option>"). Use it when there are distinct ways forward and the choice is theirs to make.',
    parameters: object(
      {
        prompt,
        options: {
          type: 'array',
          items: { type: 'string' },
          minItems: 2,
          description: 'At least two options, each a short label.',
        },
      },
      ['prompt', 'options'],
    ),
  },
  {
    name: 'ask_user_confirm',
    description:
      'Ask the person running this agent a yes/no question and wait for the answer ("User answered: Yes" or "No"). Use it before something significant or hard to undo.',
    parameters: object({ prompt: { type: 'string', description: 'The yes/no question.' } }, ['prompt']),
  },
  {
    name: 'present_for_review',
    description:
      'Show the person running this agent a Markdown document (a plan, a design, a report) and wait until they have read it; the result is their feedback, or that they acknowledged it.',
    parameters: object(
      {
        title: { type: 'string', description: 'A short title for the review.' },
        markdown: { type: 'string', description: 'The document, in Markdown.' },
      },
      ['title', 'markdown'],
    ),
  },
  {
    name: 'edit_document',
    description:
      'Hand the person running this agent a document to edit themselves, and wait for their version, which is the result; adopt it as it is. Pass the whole current text as `content`.',
    parameters: object(
      {
        content: { type: 'string', description: 'The whole current text of the document.' },
        prompt: { type: 'string', description: 'What to tell the person about the edit (optional).' },
      },
      ['content'],
    ),
  },
]);

export const CONTEXT_TOOL_SCHEMAS: readonly JsonSchemaSpec[] = Object.freeze([
  {
    name: 'context_append',
    description:
      'Add text to a context region. For a hashmap, appends to the key (creating it if needed); for other kinds, adds a new entry, evicting older ones if the region overflows.',
    parameters: object({ region, content, key }, ['region', 'content']),
  },
  {
    name: 'context_write',
    description:
      "Replace a context region's content with one entry (for a hashmap, set the key's value). If it does not fit, the region is left unchanged.",
    parameters: object({ region, content, key }, ['region', 'content']),
  },
  {
    name: 'context_read',
    description:
      'Read a context region: all entries in order, or the entries under `key`. A hashmap without a key lists its keys and sizes.',
    parameters: object({ region, key: { type: 'string', description: 'Only entries with this key.' } }, ['region']),
  },
  {
    name: 'context_list',
    description:
      'List the visible regions with their kind and used/max tokens, or, given a region, its entries with index, key and size.',
    parameters: object({ region: { type: 'string', description: 'Region to list; omit to list all regions.' } }, []),
  },
  {
    name: 'context_delete',
    description: 'Free space in a region by deleting entries. Give exactly one of key, index or oldest.',
    parameters: object(
      {
        region,
        key: { type: 'string', description: 'Delete every entry with this key.' },
        index: {
          type: 'integer',
          minimum: 0,
          description: 'Delete the entry at this index (as shown by context_list).',
        },
        oldest: { type: 'integer', minimum: 1, description: 'Delete this many of the oldest entries.' },
      },
      ['region'],
    ),
  },
  {
    name: 'todo_add',
    description: 'Add an open item to a checklist region; returns its id.',
    parameters: object({ region, item: { type: 'string', description: 'The item text.' } }, ['region', 'item']),
  },
  {
    name: 'todo_done',
    description: 'Mark a checklist item done. Repeating it is harmless.',
    parameters: object({ region, id: itemId }, ['region', 'id']),
  },
  {
    name: 'todo_note',
    description: "Set a checklist item's note, replacing any earlier note.",
    parameters: object({ region, id: itemId, note: { type: 'string', description: 'The note text.' } }, [
      'region',
      'id',
      'note',
    ]),
  },
]);
