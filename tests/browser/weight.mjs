// Page weight: the `gzip -9` size of everything in dist/ (html, js, wasm, css, icons),
// which is everything the page loads. Shared by the test and the bench. It runs the gzip
// program itself, since Node's zlib compresses the wasm a few percent differently; brotli
// (quality 11, as tools/split.mjs writes the .br files) is for the bench's second column.
import { readdir, readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { DIST } from './harness.mjs';

/**
 * The issue "First load" goals, in bytes of gzip: the calculator's first load (everything
 * fetched before its first result), and the whole app with every panel fetched.
 */
export const FIRST_LOAD_GOAL = 180_000;
export const WHOLE_APP_GOAL = 450_000;

/**
 * What `make test` enforces, per load (gzip bytes): the measured sizes of the split build
 * (tools/split.mjs) with a few KB of headroom, so that no load grows unnoticed. Lower a guard
 * when a load shrinks; raise one only in the commit that adds a feature, and say so there.
 * `make bench` reports the verdict against the goals above.
 */
export const GUARDS = {
  // first 350_000 → 360_000: the newcomer's way in (hostile pass M9) adds 11 KB gzip to the
  // calculator's load: the folded introduction and glossary 2.7 KB, the lessons of the 18
  // worked examples, the terms' tooltips, the phone's headline bar and exact byte units.
  // first 360_000 → 363_000: the CUDA source panel (#27) adds 2.4 KB gzip to the first load:
  // its tab, link parameters and loader 1.1 KB of the main wasm, its styles 0.8 KB (one
  // stylesheet), the static first content's tab and section 0.2 KB, the drop's bindings and
  // the chunk loader 0.3 KB.
  // first 363_000 → 364_500: the CUDA panel's Web Worker (#27, twelfth session) measured at
  // 363.8 KB gzip (from 362.9 at the previous commit, same machine): the main wasm +0.78 KB,
  // its glue +0.06 KB (the worker is reached through Reflect, so web-sys's Worker bindings
  // add no shims), index.html's worker attribute +0.1 KB; then `cmeasure` in the link, read
  // and checked for the notice, 0.14 KB (364.0 KB). The build's hash is in several names,
  // and its length varies by a digit: the rest is margin.
  // first 364_500 → 365_500: the first result before the main module (#26, fifteenth session)
  // measured at 364.7 KB gzip (from 363.8): index.html +0.7 KB (public/start.js inlined in the
  // head without its comments, 0.5 KB; the copy's introduction and comparison lines, which
  // put the result where the app puts it, 0.2 KB), shell.js and boot.js +0.15 KB.
  // first 365_500 → 366_000: the engine's affine measure in the main module (#26,
  // sixteenth session; measured 365_504 B)
  // first 366_000 → 367_000: the calculator's results one paint after a keystroke (#26,
  // eighteenth session), measured at 366_168 B from 365_502 B on the same machine: the effect
  // that follows the inputs, its two timers and the pending mark the browser tests wait on.
  // first 367_000 → 369_000: the calculator built in stages behind its first content (#26,
  // nineteenth session), measured at 368_074 B: two more `Show`s over the results and the
  // lane table, their stage timers and the first content's swap, for a Lighthouse TBT of
  // 77–204 ms on `/` and `embed=1` where it read 301–544 (docs/performance.md, "The
  // calculator built in stages").
  // first 369_000 → 365_000: the calculator's and the banks' sorts by insertion (#26,
  // twenty-seventh session; 368_274 → 364_345 B): `sort_unstable`'s code left the main module
  // for the chunks whose warp core still sorts with it (below).
  // first 365_000 → 366_000: the default link's first result written into the page at build
  // time (#26, the same session; 364_345 → 365_453 B: the result's HTML 0.9 KB, its class
  // and mark in start.js, shell.js and the CSS), so that link fetches no module.
  // first 366_000 → 367_000: the CUDA panel's way in for a newcomer and its phone layout,
  // measured at 366_295 B from 365_600 B: the stylesheet's link-styled buttons, the skip link
  // and the source view's compact gutter under 600 px (one stylesheet, on the first load),
  // and the introduction's sentence that names the CUDA tab.
  // first 367_000 → 368_000: whole programs' link parameters (`argv`, `pick`, and a bad
  // pick's notice, read with the link on the first load) and the stylesheet's console and
  // picked launch row, measured at 367_467 B from 366_733 B built before the change.
  first: 368_000,
  // kernel_trace 165_000 → 176_000: the hostile-pass fixes add 12.2 KB gzip to that chunk
  // (a paged trace table, the label on stale figures, sparse distinct-sector pages: 6.3 KB;
  // the heat map and worst lists by sectors, excess, wavefronts or conflicts: 5.9 KB).
  // cuda: 230_000, the CUDA source panel's chunk and the chunks it shares (#27: the
  // interpreter, the source view, the tables). kernel_trace 176_000 → 180_000: the warp core's
  // tally and cache are now in a chunk shared with the CUDA panel (its own sections and the
  // calls between modules), and the per-sector cache and distinct-sector calls are inlined
  // into each chunk: +7.3 KB gzip. cuda 230_000 → 255_000: the interpreter's ninth-session
  // features measured at 245.8 KB gzip in all: the race and bounds checks (#25), cooperative
  // groups' tiles and cg::reduce, the worst warp lists and one warp's executions, member
  // initialiser lists, the nesting and type-depth guards. cuda 255_000 → 318_000: the panel's
  // later parts measured at 311.3 KB gzip (from 245.8): presets with their sources and lessons,
  // the race and bounds reports, the worst warps and one warp's executions with their
  // calculator hand-off, packed sources (miniz_oxide's deflate and inflate), the CSV; most of
  // it Leptos' view and signal code for the new parts (docs/performance.md, "The CUDA panel's
  // later parts").
  // cuda 318_000 → 336_000: the panel per warp (#27, eleventh session) measured at 332.7 KB gzip
  // (from 314.0): the heat map with its exports and the Roofline hand-off reuse the kernel
  // view's chart and hand-off code, which now sits in the chunk both load (/* cuda,
  // kernel_trace */: +11.7 KB, plotters' chart builder and both backends' drawing), and the
  // panel's own new parts 6.2 KB. kernel_trace 180_000 → 184_000: the same move measured at
  // 181.6 KB (from 179.8): the code it shares now crosses modules. roofline 90_000 → 96_000:
  // measured at 93.9 KB on main before the panel per warp (b067638; Machine mode's label
  // placement, c314622, added 4.3 KB without moving the guard) and 94.0 KB after it.
  // cuda 336_000 → 371_000: the page's side of the CUDA worker measured at 368.8 KB gzip (from
  // 332.3 at the previous commit): reading the worker's figures back (serde's derived
  // decoders for the analysis, its sites, reports, worst lists and heat map, and serde_json's
  // parser) is nearly all of the 36.5 KB. cuda_worker: the worker itself (src/worker.rs), its
  // own load, fetched when a run first goes to it: the model alone at opt-level s, 237.3 KB.
  // cuda 371_000 → 378_000 and cuda_worker 240_000 → 248_000: drilling into a warp that loops
  // too long for the page's thread in a worker of its own (`Drill`, `Reply::Executions`)
  // measured at 376.0 KB (+6.7: encoding the request and placement, decoding the executions,
  // the pick's state) and 246.1 KB (+8.9: decoding the drill, encoding the executions).
  // kernel_trace 184_000 → 220_000, cuda 378_000 → 380_000, cuda_worker 248_000 → 281_000:
  // the kernel view's launches in the worker (#28's trap isolation, thirteenth session)
  // measured at 217.8 KB (from 181.6: reading the worker's figures back, serde_json and the
  // decoders it shares with the CUDA panel now in a chunk both load, and the runner), 378.5 KB
  // (+2.5: the worker's handle, shared) and 279.0 KB (+32.9: the kernel engine, its
  // expression language and the inputs' checks, in the worker).
  // kernel_trace 220_000 → 234_000 and cuda_worker 281_000 → 315_000: traces read in the
  // worker (the same session) measured at 231.9 KB (+14.1: decoding the trace's figures and
  // rows, the reader) and 312.6 KB (+33.6: the NVBit and Accel-Sim readers, the stream).
  // first_result: the first-result module (src/bin/first-result.rs, the model alone at
  // opt-level z), fetched on a calculator link before the main module: 54.7 KB gzip measured
  // (52.5 KB of wasm, 2.2 KB of wasm-bindgen's glue).
  // cuda_worker 315_000 → 316_000: the engine's fast paths (#26, sixteenth session; 315_456 B).
  // cuda 380_000 → 382_000: the CUDA panel built in stages on a cold link (#26, twentieth
  // session; 381_096 B from 379_237): the stages' `Show`s over the fields, the results column,
  // the sites and the figures per warp, the deferred first run and its short slices.
  // kernel_trace 234_000 → 236_000: the index as a linear form over the launch and the
  // multiplies without __multi3 (#26, twenty-third session; 235_323 B, its own module +1.9 KB): the
  // interval arithmetic and the per-warp form; the kernel view's 4096² transpose 857–904 →
  // 651–659 ms in the page. The CUDA worker fell 313_366 → 308_705 B the same build.
  // kernel_trace 236_000 → 237_000: the heat map's cells read back as runs (the same session;
  // 235_898 → 236_010 B), which took the 4096² transposes' answer from 923 KB to 5.6 KB.
  // cuda_worker 316_000 → 400_000: the worker at opt-level 3 (#26, twenty-fifth session;
  // 312_409 → 391_858 B), which ran the kernel view's 4096² transposes in the page 19–21 %
  // faster (docs/performance.md, "The worker at opt-level 3"), and its warm-up (`model::warm`,
  // → 398_695 B, most of it the CUDA presets' sources).
  // cuda 382_000 → 383_000: the front end's word that a warp's addresses are affine (#26,
  // twenty-sixth session; 381_718 → 382_074 B): the warp core's unchecked path, in every
  // module that holds the tally (kernel_trace 236_010 → 236_426 B, the worker 399_371 →
  // 399_766 B); the kernel view's naive 4096² transpose 274 → 238 ms in the page.
  // first_result 56_000 → 48_000, cuda 383_000 → 385_000, kernel_trace 237_000 → 240_000:
  // the first result without core's float formatting or `sort_unstable` (#26,
  // twenty-seventh session; 55_1xx → 47_272 B, docs/performance.md, "The first result without
  // core's float formatting or sort"); the sort's code the main module no longer holds now
  // sits in the chunk the two panels share (382_167 → 384_530 B, 236_760 → 239_125 B).
  // cuda 385_000 → 387_000, kernel_trace 240_000 → 241_000, cuda_worker 400_000 → 408_000:
  // the kernel view's cache model in a second worker (#26, twenty-eighth session;
  // docs/performance.md, "The cache model in a second worker"): the worker 399_7xx → 407_241 B
  // (the cache server, the stream's words both ways, the ports, the paired warm-up), the chunk
  // the two panels share 384_530 → 386_635 B (the pair's handle and the tally's handed-off
  // path), 239_125 → 240_159 B.
  // cuda 387_000 → 398_000, cuda_worker 408_000 → 412_000: the CUDA panel's hostile and
  // newcomer fixes, measured at 396_639 B (from 386_635) and 410_992 B (from 407_241): in the
  // model, which both carry, the bounds check over every allocation and shared array as signed
  // regions, the launch's integer constants (`sizeof`, casts, C's operators), CUDA's
  // per-dimension and static-shared limits, the budgets' advice and the template checks;
  // in the page alone, the paste's refusal, the source read once per edit, the long source
  // view's gaps, the skip link, the primer's link, the file read and the cancel's words, and
  // "Use this launch"'s selection. Not attributed byte by byte.
  // cuda 398_000 → 426_000, cuda_worker 412_000 → 443_000: measured at 425_071 B (from
  // 396_639) and 442_362 B (from 410_992), in the model that both carry: the launch read in
  // the file's scope (its macros, constants and types) and the file's own launches proposed,
  // the defines (`-D`) with what each replaced, the budgets' projection and advice, blocks run
  // barrier by barrier (a warp parks and resumes), memory that holds values and the launch's
  // data (`name[N]=iota|zero|rand(SEED)`, glibc's `rand`); in the page alone, the defines
  // field and the phone view's folded figures. Not attributed byte by byte.
  // cuda 426_000 → 435_000, cuda_worker 443_000 → 454_000: device `printf`, measured at
  // 434_289 B and 453_318 B: the model's glibc-exact `printf` (`clib::printf`, core's exact
  // float formatting for `%f`, `%e` and `%g`), the calls' output kept in order, and the panel's
  // "What printf printed".
  // cuda 435_000 → 443_000, cuda_worker 454_000 → 468_000: whole programs, measured at
  // 442_006 B (from 434_333) and 467_065 B (from 453_471). Host code's runtime itself is not
  // linked: it is reached only through the hooks a program's run creates (measured without
  // them: 460_333 B). What is: host functions and launches read by the parser, atomics that
  // compute their values, a launch's arguments as host code passes them and its allocations'
  // real sizes, and the interpreter's host branches.
  // cuda 443_000 → 472_500, cuda_worker 468_000 → 518_500: whole programs on the page,
  // measured at 471_455 B (from 441_972 built from the same tree before the change) and
  // 517_240 B (from 466_732). The worker now links host code's runtime, which only it runs.
  // The page's 29.5 KB, by name in the unsplit module (twiggy, 102 KB raw in all): Leptos's
  // view and reactive code for Run, the arguments, the console and the launch picker (about
  // two thirds), serde for the program's replies, the launch rows and the worker handle. The
  // console, the rows and the picker's options are written as escaped markup by one effect
  // each: with a view per row and per piece the chunk measured 482_448 B.
  // cuda 472_500 → 477_500, cuda_worker 518_500 → 522_000: initcheck, measured at 476_550 B
  // and 521_142 B: device memory's written bits, the check at each global load, its finding
  // carried with the analysis (serde), worded, and drawn as the checks' rows.
  // cuda 477_500 → 481_000, cuda_worker 522_000 → 525_000: the six whole-program presets'
  // sources in the panel's chunk (3.7 KB, measured at 480_229 B), and host code's locals in
  // host memory in the worker (measured at 524_113 B).
  // cuda_worker 525_000 → 528_000: cudaGetDeviceProperties (the model's device, the
  // cudaDeviceProp read from its declaration) and a host array's decay, measured at 526_991 B.
  // cuda 481_000 → 496_500, cuda_worker 528_000 → 534_000: several files (measured at
  // 495_923 B and 533_343 B). In both: `#include "…"` read from the headers (the files'
  // search, each header's pass through the preprocessor, whose pass is no longer inlined),
  // every line worded with its file, a struct that points to its own type, the kernel's
  // check for host memory. In the panel: the headers' fields (written as markup by one
  // effect: with a view per header the chunk measured 499_642 B, with a keyed list 503_217 B),
  // several files picked or dropped, the link's packed headers, the headers' rows in the
  // source view.
  // cuda 496_500 → 497_500, cuda_worker 534_000 → 540_500: host code's std::cout and
  // <iomanip> (the worker alone runs host code: 538_361 B measured with them), and the barrier
  // report that names both lines (measured at 496_381 B and 539_204 B).
  // cuda 497_500 → 498_000, cuda_worker 540_500 → 541_000: struct types' layouts behind a
  // RefCell, emptied by the run's arena so that a struct that points to itself is freed
  // (measured at 497_218 B and 540_229 B).
  panels: { kernel_trace: 241_000, roofline: 96_000, probe: 82_000, cuda: 498_000, cuda_worker: 541_000, first_result: 48_000 },
  // whole 665_000 → 692_000: the kernel_trace chunk's 12.2 KB above and the first load's 12.3 KB.
  // whole 692_000 → 875_000: the CUDA source panel's 225 KB and the above.
  // whole 875_000 → 900_000: the CUDA chunk's 20 KB of the ninth session's checks and features.
  // whole 900_000 → 965_000: the CUDA chunk's 65.5 KB of the panel's later parts.
  // whole 965_000 → 977_000: the panel per warp measured at 974.2 KB (from 965.7 on main,
  // already past the guard by the roofline chunk's 4.3 KB): the CUDA chunk's own 6.2 KB, the
  // moved code's module crossings, the first load's 0.5 KB.
  // whole 977_000 → 1_248_000: the CUDA worker's 237.3 KB and the page's side of it above.
  // whole 1_248_000 → 1_263_000: the drill-down in a worker above (1261.0 KB measured).
  // whole 1_263_000 → 1_315_000: the kernel view's launches in the worker above (1312.8 KB).
  // whole 1_315_000 → 1_365_000: traces read in the worker above (1362.1 KB).
  // whole 1_365_000 → 1_420_000: the first-result module and the first load's growth above
  // (1416.7 KB measured).
  // whole 1_420_000 → 1_423_000: the engine's fast paths in each module (#26, sixteenth
  // session; 1_421_636 B).
  // whole 1_423_000 → 1_425_000: the calculator built in stages above (1_424_045 B).
  // whole 1_425_000 → 1_428_000: the CUDA panel in stages above (1_427_000 B from 1_424_045;
  // the cuda chunk's 1.9 KB, the rest the modules' layout shifting by a few hundred bytes).
  // whole 1_428_000 → 1_515_000: the worker at opt-level 3 and its warm-up above (1_513_557 B).
  // whole 1_515_000 → 1_517_000: the CSS's paint boundary (0.2 KB) and the word above
  // (1_515_512 B).
  // whole 1_517_000 → 1_509_000: the first result's 7.8 KB above, and the default link's
  // result in the page (1_508_346 B).
  // whole 1_509_000 → 1_519_000: the cache model in a second worker above (1_518_756 B).
  // whole 1_519_000 → 1_534_000: the CUDA panel's hostile and newcomer fixes above
  // (1_532_474 B).
  // whole 1_534_000 → 1_593_000: the CUDA chunk's and its worker's growth above
  // (1_592_525 B measured).
  // whole 1_593_000 → 1_613_000: device `printf` above (1_612_274 B measured).
  // whole 1_613_000 → 1_635_000: whole programs above (1_633_707 B measured).
  // whole 1_635_000 → 1_716_000: whole programs on the page above (1_714_052 B measured).
  // whole 1_716_000 → 1_724_000: initcheck above (1_723_019 B measured).
  // whole 1_724_000 → 1_731_000: the program presets above (1_730_013 B measured).
  // whole 1_731_000 → 1_735_000: cudaGetDeviceProperties above (1_733_426 B measured).
  // whole 1_735_000 → 1_756_000: several files above (1_754_437 B measured).
  // whole 1_756_000 → 1_762_500: std::cout and the barrier report above (1_760_976 B).
  // whole 1_762_500 → 1_763_500: the struct arena above (1_762_588 B measured).
  whole: 1_763_500,
};

/**
 * `[{file, raw, gzip, brotli}]` for every file under dist/ the page loads. The sample traces
 * in `samples/` are left out: they are fetched only when a trace link asks.
 */
export async function pageWeight(root = DIST) {
  const files = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (path.slice(root.length + 1).startsWith('samples/')) continue;
    // Precompressed copies (tools/split.mjs) are the same bytes for hosts that serve them.
    if (/\.(gz|br)$/.test(entry.name)) continue;
    const body = await readFile(path);
    const gzip = execFileSync('gzip', ['-9', '-c', path], { maxBuffer: 64 << 20 }).length;
    const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    files.push({ file: path.slice(root.length + 1), raw: body.length, gzip, brotli });
  }
  return files;
}

/**
 * The page's loads, in gzip bytes: `first`, what the app needs for its first result (every
 * file but the split modules, the workers and the first-result module); `panels[name]`, what opening a panel adds (its `split_<name>` module and
 * the shared `chunk_N` modules that name it); `whole`, everything; `brotli`, the same three in
 * brotli bytes. The panels and what each chunk serves are read from the loader that wasm-split
 * writes (`__wasm_split-<hash>.js`, where a `/* kernel, probe *\/` comment heads each shared
 * chunk).
 */
export async function loads(root = DIST) {
  const files = await pageWeight(root);
  const loaderFile = files.find((f) => /^__wasm_split-[0-9a-f]+\.js$/.test(f.file));
  if (!loaderFile) throw new Error('dist/ has no __wasm_split-<hash>.js: is the build split?');
  const loader = await readFile(join(root, loaderFile.file), 'utf8');
  const users = new Map();
  for (const m of loader.matchAll(/\/\* ([\w, ]+) \*\/\s*const __(chunk_\d+) /g)) {
    users.set(m[2], m[1].split(', '));
  }
  // Each panel's files: its own module, then the shared chunks that name it.
  const panelFiles = {};
  // The CUDA panel's Web Worker (its loader, glue and wasm) is fetched when a CUDA run
  // first needs it: a load of its own, `cuda_worker`.
  const worker = (f) => /^cuda-worker-[0-9a-f]+(_loader\.js|\.js|_bg\.wasm)$/.test(f.file);
  // The first-result module (src/bin/first-result.rs: its glue and wasm) is fetched on a
  // calculator link, before the main module: a load of its own, `first_result`, which is all
  // the first result needs beyond the page, its CSS and its scripts.
  const firstResult = (f) => /^first-result-[0-9a-f]+(\.js|_bg\.wasm)$/.test(f.file);
  const split = (f) => worker(f) || firstResult(f) || /^(split_\w+|chunk_\d+)-[0-9a-f]+\.wasm$/.test(f.file);
  for (const f of files) {
    const own = f.file.match(/^split_(\w+)-[0-9a-f]+\.wasm$/);
    if (own) (panelFiles[own[1]] ??= []).push(f);
  }
  for (const f of files) if (worker(f)) (panelFiles.cuda_worker ??= []).push(f);
  for (const f of files) if (firstResult(f)) (panelFiles.first_result ??= []).push(f);
  for (const f of files) {
    const chunk = f.file.match(/^(chunk_\d+)-[0-9a-f]+\.wasm$/);
    if (!chunk) continue;
    const names = users.get(chunk[1]);
    if (!names) throw new Error(`${f.file} is not named in ${loaderFile.file}`);
    for (const name of names) (panelFiles[name] ??= []).push(f);
  }
  const sums = (key) => {
    const sum = (list) => list.reduce((total, f) => total + f[key], 0);
    const panels = Object.fromEntries(Object.entries(panelFiles).map(([name, list]) => [name, sum(list)]));
    return { first: sum(files.filter((f) => !split(f))), panels, whole: sum(files) };
  };
  return { ...sums('gzip'), brotli: sums('brotli'), files };
}
