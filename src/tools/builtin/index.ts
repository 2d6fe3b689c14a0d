// Every built-in tool, in the order they are listed to clients.
import type { BuiltinTool } from '../types.js';
import { reportProgress, spawnBackground } from './background.js';
import { echo } from './echo.js';
import { failingTool } from './failing-tool.js';
import { fileTools } from './files.js';
import { mathTools } from './math.js';
import { sleep } from './sleep.js';
import { getCurrentTime } from './time.js';
import { writeTodos } from './todos.js';
import { weatherTools } from './weather.js';
import { webFetch } from './web-fetch.js';

export const builtinTools: BuiltinTool[] = [echo, getCurrentTime, ...mathTools, ...weatherTools, writeTodos, ...fileTools, webFetch, sleep, reportProgress, failingTool, spawnBackground];
