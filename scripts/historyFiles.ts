import { readFileSync, writeFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const HistoryMessage = temporal.api.history.v1.History;

/**
 * Workflow histories as JSON files, for replay tests. The SDK's historyToJSON/historyFromJSON
 * fail in this install (its protojson helper comes from a newer protobufjs than the generated
 * types: "type must be a Type"), so the files hold the generated types' own JSON form: field
 * names in camelCase, 64-bit numbers and enum names as strings, bytes in base64.
 */
export function writeHistoryFile(path: string, history: History): void {
  const json = HistoryMessage.toObject(HistoryMessage.fromObject(history), { longs: String, enums: String, bytes: String });
  writeFileSync(path, JSON.stringify(json, null, 2) + '\n');
}

export function readHistoryFile(path: string): History {
  return HistoryMessage.fromObject(JSON.parse(readFileSync(path, 'utf8')));
}
