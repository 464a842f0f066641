import { join } from 'node:path';

/**
 * Node's arguments before a TypeScript entry, for the processes tests start (`spawn(process.execPath,
 * [...TYPESCRIPT_NODE_ARGS, 'scripts/admin.ts', …])`): the sources compiled by swc as jest compiles
 * them (typescriptHook.cjs), cheaper per process than tsx's loader. `npm run dev` itself is the one
 * process tests start through tsx, as a developer does.
 */
export const TYPESCRIPT_NODE_ARGS: readonly string[] = ['--require', join(__dirname, 'typescriptHook.cjs')];
