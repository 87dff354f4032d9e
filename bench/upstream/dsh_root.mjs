// A throwaway dsh root holding one log file at its canonical path
// (<root>/<projectKey(cwd)>/<id>/session.jsonl), symlinked rather than copied.
import { mkdtempSync, mkdirSync, symlinkSync } from 'node:fs';
import { resolve } from 'node:path';

export function dshRootFor(file, id, cwd, prefix = '/tmp/dsh-bench-') {
  const root = mkdtempSync(prefix);
  const key = '--' + resolve(cwd).replace(/[\/\\:]+/g, '-').replace(/^-+/, '') + '--';
  mkdirSync(`${root}/${key}/${id}`, { recursive: true });
  symlinkSync(resolve(file), `${root}/${key}/${id}/session.jsonl`);
  return root;
}
