import { runAdminCli } from './admin/cli';

/**
 * Operator CLI (DECISIONS.md "Operator CLI"): `npm run --silent admin -- <command> [--flags]`.
 * Prints one JSON object on stdout; on failure one line on stderr and a non-zero exit (2 for a
 * usage error).
 */
void runAdminCli(process.argv.slice(2)).then((code) => process.exit(code));
