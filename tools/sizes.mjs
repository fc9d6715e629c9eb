// `make sizes`: what the main module (the first load) is made of, by twiggy's three reports.
//
// The shipped modules carry no names, so this redoes the split hook's steps (tools/split.mjs)
// on the release build's linker output into a temporary folder, keeping the name section
// (`wasm-opt -Oz -g`): the same code as dist/, with names. Then, for the main module:
// `twiggy top` (the biggest items), `twiggy dominators` (what keeps the most code alive) and
// `twiggy monos` (generic functions by their monomorphised copies).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const rows = Number(process.env.ROWS ?? 15);
const input = join('target', 'wasm32-unknown-unknown', 'release', 'coalescing-lab.wasm');
const work = mkdtempSync(join(tmpdir(), 'coalescing-lab-sizes-'));
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] }).toString();
try {
  run('wasm-split-cli', [input, work, '--out-name', 'main', '--target', 'web']);
  run('wasm-bindgen', ['--target=web', '--keep-lld-exports', '--no-demangle', '--no-typescript', '--out-name=main', `--out-dir=${join(work, 'bg')}`, join(work, 'main.wasm')]);
  const named = join(work, 'main-named.wasm');
  // wasm-opt warns that it drops a name subsection it does not know; the function names stay.
  execFileSync('wasm-opt', ['-Oz', '-g', join(work, 'bg', 'main_bg.wasm'), '-o', named], { stdio: 'ignore' });
  const reports = [
    ['top', '-n', String(rows)],
    ['dominators', '-d', '3', '-r', String(rows)],
    ['monos', '-m', String(rows), '-n', '0'],
  ];
  for (const report of reports) {
    console.log(`\n## twiggy ${report.join(' ')} (main module)\n`);
    console.log(run('twiggy', [...report, named]));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
