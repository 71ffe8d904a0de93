/** The built-in tools by canonical name. */
import { currentTimeTool } from './current-time.js';
import { editFileTool } from './edit-file.js';
import { localeInfoTool, runtimeInfoTool, systemInfoTool } from './env-info.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { shellTool } from './shell.js';
import type { BuiltinTool } from './tool.js';
import { webFetchTool } from './web-fetch.js';
import { webSearchTool } from './web-search.js';
import { writeFileTool } from './write-file.js';

export const BUILTIN_TOOL_TABLE: ReadonlyMap<string, BuiltinTool> = new Map(
  [
    readFileTool,
    listDirTool,
    globTool,
    grepTool,
    writeFileTool,
    editFileTool,
    shellTool,
    currentTimeTool,
    systemInfoTool,
    localeInfoTool,
    runtimeInfoTool,
    webFetchTool,
    webSearchTool,
  ].map((t) => [t.name, t]),
);
