// Trunk's post-build hook (Trunk.toml): cuts the app's wasm into a main module and one chunk
// per lazily loaded panel, then optimises and precompresses what ships.
//
// Trunk 0.21 cannot split wasm (trunk issue 1022), so Trunk still builds the crate and runs
// wasm-bindgen on the whole module; this hook then redoes the last steps the way cargo-leptos
// does for Leptos' split points:
//
// 1. `wasm-split-cli` (crate wasm_split_cli_support) reads the linker's output, which keeps its
//    relocations (`-Clink-args=--emit-relocs`, .cargo/config.toml), and writes the main module,
//    a module per `#[wasm_split]` name (`split_kernel.wasm`, …), modules for code that several
//    of those share (`chunk_N.wasm`) and `__wasm_split.js`, which fetches them on demand;
// 2. `wasm-bindgen --keep-lld-exports` makes the main module's JS glue, over Trunk's;
// 3. `wasm-opt -Oz` shrinks every module (Trunk's own wasm-opt pass is off: `data-wasm-opt="0"`);
// 4. the split files get Trunk's content hash in their names, so that a cached chunk can never
//    meet a main module from another build;
// 5. index.html names each panel's modules on the shell script's tag (`data-chunks`), so that
//    a link straight to a panel fetches its chunks alongside the main module (public/shell.js);
// 6. the CUDA panel's worker (Trunk's `cuda-worker.js` and `cuda-worker_bg.wasm`, which Trunk
//    names without a hash) gets the build's hash and a loader of its own, named on the shell
//    script's tag too (`data-cuda-worker`), and `wasm-opt -Os` (docs/cuda.md, "The CUDA source
//    panel");
// 7. the first-result module (Trunk's `first-result.js` and `first-result_bg.wasm`, the model
//    alone: src/bin/first-result.rs) gets the build's hash and `wasm-opt -Oz`, and its stem is
//    named on the boot script's tag (`data-first-result`). public/start.js, inlined into the
//    head right after that tag (the CSP names its hash), requests it on a calculator link and
//    the main module's wasm after it, so Trunk's preloads of that wasm and its glue are taken
//    out; the module, run here, writes the default link's result into the page, which that
//    link shows instead of fetching the module;
// 8. every text and wasm file gets a `.gz` (gzip -9) and a `.br` (brotli 11) beside it, for
//    static hosts that serve precompressed files.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('tools/split.mjs runs as a Trunk hook (TRUNK_STAGING_DIR unset)');
const profile = process.env.TRUNK_PROFILE ?? 'release';
const source = process.env.TRUNK_SOURCE_DIR ?? process.cwd();
const targetDir = process.env.CARGO_TARGET_DIR ?? join(source, 'target');
const input = join(targetDir, 'wasm32-unknown-unknown', profile, 'coalescing-lab.wasm');
const localBin = join(source, 'node_modules', '.bin', 'wasm-opt');
const wasmOpt = existsSync(localBin) ? localBin : 'wasm-opt';

// Trunk's names: coalescing-lab-<hash>.js and coalescing-lab-<hash>_bg.wasm.
const glue = readdirSync(staging).find((f) => /^coalescing-lab-[0-9a-f]+\.js$/.test(f));
if (!glue) throw new Error(`no coalescing-lab-<hash>.js in ${staging}`);
const stem = glue.slice(0, -'.js'.length);
const hash = stem.slice('coalescing-lab-'.length);

const work = mkdtempSync(join(tmpdir(), 'coalescing-lab-split-'));
try {
  execFileSync('wasm-split-cli', [input, work, '--out-name', stem, '--target', 'web'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  execFileSync(
    'wasm-bindgen',
    [
      '--target=web',
      '--keep-lld-exports',
      '--no-demangle',
      '--no-typescript',
      `--out-name=${stem}`,
      `--out-dir=${staging}`,
      join(work, `${stem}.wasm`),
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );

  // The split modules, renamed with the build's hash; the loader names them.
  const chunks = readdirSync(work).filter((f) => /^(chunk_\d+|split_\w+)\.wasm$/.test(f));
  const renamed = (f) => `${f.slice(0, -'.wasm'.length)}-${hash}.wasm`;
  const loader = `__wasm_split-${hash}.js`;
  let loaderText = readFileSync(join(work, '__wasm_split.js'), 'utf8');
  for (const f of chunks) loaderText = loaderText.replaceAll(`"./${f}"`, `"./${renamed(f)}"`);
  writeFileSync(join(staging, loader), loaderText);
  const mainJs = join(staging, glue);
  const mainText = readFileSync(mainJs, 'utf8');
  // Only the ES imports' specifiers change: the wasm's own import module keeps its name.
  const from = 'from "./__wasm_split.js"';
  if (!mainText.includes(from)) throw new Error(`${glue} does not import ./__wasm_split.js`);
  writeFileSync(mainJs, mainText.replaceAll(from, `from "./${loader}"`));

  // Each panel's modules: its own, and the shared ones whose heading comment names it.
  const panels = {};
  for (const f of chunks) {
    const own = f.match(/^split_(\w+)\.wasm$/);
    if (own) (panels[own[1]] ??= []).unshift(renamed(f));
  }
  for (const m of loaderText.matchAll(/\/\* ([\w, ]+) \*\/\s*const __(chunk_\d+) /g)) {
    for (const name of m[1].split(', ')) (panels[name] ??= []).push(renamed(`${m[2]}.wasm`));
  }
  const html = join(staging, 'index.html');
  const shellTag = '<script src="shell.js"></script>';
  const page = readFileSync(html, 'utf8');
  if (!page.includes(shellTag)) throw new Error(`index.html has no ${shellTag}`);
  const manifest = JSON.stringify(panels).replaceAll('"', '&quot;');
  const worker = placeBuild('cuda-worker', { worker: true });
  const first = placeBuild('first-result');
  writeFileSync(
    html,
    withStart(
      page.replace(
        shellTag,
        `<script src="shell.js" data-chunks="${manifest}" data-cuda-worker="${worker.loader}"></script>`,
      ),
      first.stem,
    ),
  );

  const main = join(staging, `${stem}_bg.wasm`);
  const jobs = [
    [main, main],
    ...chunks.map((f) => [join(work, f), join(staging, renamed(f))]),
  ];
  await optimise(jobs, profile === 'release' ? 2 : 0);
  await optimise([[worker.wasm, worker.wasm]], profile === 'release' ? 1 : 0, '-Os');
  await optimise([[first.wasm, first.wasm]], profile === 'release' ? 1 : 0);
  writeFileSync(html, await withDefaultResult(readFileSync(html, 'utf8'), first));
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (profile === 'release') precompress(staging);

/**
 * The page with public/start.js inlined after the boot script's tag (which names the
 * first-result module's stem), its hash allowed by the CSP, and Trunk's preloads of the main
 * module's wasm and glue taken out: start.js requests that wasm itself, after the first
 * result's, and boot.js imports the glue once the wasm's response has begun.
 */
function withStart(page, firstStem) {
  const boot = page.match(/<script type="module" src="\.\/boot\.js"[^>]*>(?=<\/script>)/);
  if (!boot) throw new Error('index.html has no boot script tag');
  const preload = page.match(/<link rel="preload" href="\.\/coalescing-lab-[0-9a-f]+_bg\.wasm"[^>]*>/);
  if (!preload) throw new Error("index.html has no preload of the main module's wasm");
  // The main module's glue too: boot.js imports it once the wasm's response has begun, so
  // that its 12 KB do not share the link with the first result's module either.
  const gluePreload = page.match(/<link rel="modulepreload" href="\.\/coalescing-lab-[0-9a-f]+\.js"[^>]*>/);
  if (!gluePreload) throw new Error("index.html has no module preload of the main module's glue");
  const policy = "script-src 'self' 'wasm-unsafe-eval'";
  if (!page.includes(policy)) throw new Error(`index.html's CSP has no "${policy}"`);
  // Its comments and indentation are for readers of the source, not for every page load.
  const start = readFileSync(join(source, 'public', 'start.js'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'))
    .join('\n');
  if (start.includes('</script')) throw new Error('public/start.js cannot be inlined');
  const digest = createHash('sha256').update(start).digest('base64');
  return page
    .replace(preload[0], '')
    .replace(gluePreload[0], '')
    .replace(policy, `${policy} 'sha256-${digest}'`)
    .replace(`${boot[0]}</script>`, () => `${boot[0].slice(0, -1)} data-first-result="${firstStem}"></script><script>${start}</script>`);
}

/**
 * The page with the default link's first result written in (the link with no query), by the
 * first-result module that ships, run here: public/start.js shows it on that link instead of
 * fetching the module, and public/shell.js marks it at the copy's first paint. Any other link
 * fetches the module, whose result replaces this one, hidden until then (style/main.css).
 */
async function withDefaultResult(page, first) {
  const slot = '<div data-first-result></div>';
  if (!page.includes(slot)) throw new Error(`index.html has no ${slot}`);
  // wasm-bindgen's no-modules glue: a script that defines `wasm_bindgen`.
  const glue = readFileSync(join(staging, `${first.stem}.js`), 'utf8');
  const bindgen = new Function(`${glue}\nreturn wasm_bindgen;`)();
  await bindgen({ module_or_path: readFileSync(first.wasm) });
  const result = bindgen.first_result('');
  if (!result.includes('class="readouts"')) throw new Error(`the default link's first result has no readouts: ${result}`);
  return page.replace(slot, `<div data-first-result><div class="shell-default-result">${result}</div></div>`);
}

/**
 * Renames one of Trunk's `data-type="worker"` builds (wasm-bindgen's no-modules target: the
 * CUDA panel's worker, the first-result module) with the build's hash; for a worker, also
 * writes the loader that starts it as a classic worker (the first-result module runs on the
 * page's thread, and public/start.js loads its glue itself).
 */
function placeBuild(bin, { worker = false } = {}) {
  const glueFrom = join(staging, `${bin}.js`);
  const wasmFrom = join(staging, `${bin}_bg.wasm`);
  if (!existsSync(glueFrom) || !existsSync(wasmFrom)) {
    throw new Error(`no ${bin}.js and ${bin}_bg.wasm in ${staging}`);
  }
  const names = {
    stem: `${bin}-${hash}`,
    glue: `${bin}-${hash}.js`,
    wasm: `${bin}-${hash}_bg.wasm`,
    loader: `${bin}-${hash}_loader.js`,
  };
  renameSync(glueFrom, join(staging, names.glue));
  writeFileSync(join(staging, names.wasm), withoutRelocations(readFileSync(wasmFrom)));
  rmSync(wasmFrom);
  if (!worker) return { stem: names.stem, wasm: join(staging, names.wasm) };
  writeFileSync(
    join(staging, names.loader),
    // A wasm that does not load or compile rejects the promise, which a worker does not report
    // to the page; thrown again from a task of its own, it fires the Worker's `error` event,
    // and the page runs the job itself.
    `importScripts("./${names.glue}");wasm_bindgen({ module_or_path: "./${names.wasm}" })` +
      `.catch((e) => setTimeout(() => { throw e; }));\n`,
  );
  return { stem: names.stem, loader: names.loader, wasm: join(staging, names.wasm) };
}

/**
 * The wasm without the linker's `linking` and `reloc.*` sections: `--emit-relocs`
 * (.cargo/config.toml) is there for wasm-split, which the worker does not go through, and
 * wasm-opt keeps them (about 570 KB of the worker's 1.1 MB).
 */
function withoutRelocations(wasm) {
  const kept = [wasm.subarray(0, 8)];
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = wasm[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < wasm.length) {
    const start = at;
    const id = wasm[at++];
    const length = leb();
    const body = at;
    let drop = false;
    if (id === 0) {
      const nameLength = leb();
      const name = wasm.subarray(at, at + nameLength).toString();
      drop = name === 'linking' || name.startsWith('reloc.');
    }
    at = body + length;
    if (!drop) kept.push(wasm.subarray(start, at));
  }
  return Buffer.concat(kept);
}

/** Runs `wasm-opt` (`-Oz` unless told) over `[from, to]` pairs, two at a time (or copies, unoptimised). */
async function optimise(jobs, parallel, level = '-Oz') {
  if (parallel === 0) {
    for (const [from, to] of jobs) if (from !== to) writeFileSync(to, readFileSync(from));
    return;
  }
  const queue = [...jobs];
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const [from, to] = job;
      await new Promise((resolve, reject) => {
        // Rust's name section has a subsection wasm-opt does not know; it warns and drops it.
        const child = spawn(wasmOpt, [level, from, '-o', to], { stdio: ['ignore', 'ignore', 'pipe'] });
        let errors = '';
        child.stderr.on('data', (d) => (errors += d));
        child.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`wasm-opt ${from}: ${errors}`)),
        );
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Writes `.gz` and `.br` beside every file a static host would serve compressed. */
function precompress(root) {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(wasm|js|css|html|svg)$/.test(entry.name)) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (path.includes('/samples/')) continue;
    const body = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
    );
  }
}
