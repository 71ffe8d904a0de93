import { z } from 'zod';
import { globFiles } from './glob-files.js';
import { defineTool, failure, success } from './tool.js';

const MAX_LISTED = 1000;

const schema = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe(
        'Glob relative to the working directory: * and ? within a name, ** across directories, {a,b} alternatives, [abc] classes.',
      ),
  })
  .strict();

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by name pattern inside the working directory, e.g. "src/**/*.ts". Results are sorted; hidden files, .git and node_modules match only when the pattern names them.',
  schema,
  async run(args, ctx) {
    const result = await globFiles(args.pattern, ctx);
    if (!result.ok) return failure(result.code, result.message);
    const notes: string[] = [];
    if (result.refused.length > 0) {
      notes.push(
        `[${result.refused.length} match(es) left out: symbolic links that point outside the working directory or cannot be resolved]`,
      );
    }
    if (result.stopped)
      notes.push(
        '[the search stopped early (it reached its limit of matches, depth, entries or time); use a narrower pattern]',
      );
    if (result.matches.length === 0) return success([`no files match \`${args.pattern}\``, ...notes].join('\n'));
    const lines = result.matches.slice(0, MAX_LISTED).map((m) => (m.isDirectory ? `${m.display}/` : m.display));
    if (result.matches.length > MAX_LISTED) {
      notes.push(`[${result.matches.length - MAX_LISTED} more matches not shown; use a narrower pattern]`);
    }
    return success([...lines, ...notes].join('\n'));
  },
});
