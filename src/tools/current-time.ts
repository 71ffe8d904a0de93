import { z } from 'zod';
import { defineTool, success } from './tool.js';

export const currentTimeTool = defineTool({
  name: 'current_time',
  description: 'The current date and time in UTC (ISO 8601).',
  schema: z.object({}).strict(),
  async run() {
    const now = new Date();
    return success(`${now.toISOString()} (UTC; ${now.toUTCString()})`);
  },
});
