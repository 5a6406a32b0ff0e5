// Runs the hanoifw firmware tests under real MicroPython (the WebAssembly port) in Node.
//
//   node tests/micropython/run.mjs [--exchange IN OUT]...
//
// Copies firmware_micropython/hanoifw/*.py to /lib/hanoifw and tests/firmware/*.py to /fwtests in the wasm
// file system, then runs every test_* function of every tests/firmware/test_*.py module (mp_runner.py) and
// compiles main.py and board_config.py (they need a real board to run).
// With --exchange, it also feeds the host-made frames in IN (one "t_ms hexbytes" line per control step) to a fresh
// Controller under MicroPython and writes the replies to OUT in the same format, for pytest to decode.
// Prints one line per test and a summary; exits 1 if any test fails, 2 on a usage or set-up error.

import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HEAP_BYTES = 16 * 1024 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");

function parseArgs(argv) {
  const args = { exchanges: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--exchange" && i + 2 < argv.length) {
      args.exchanges.push({ input: argv[i + 1], output: argv[i + 2] });
      i += 2;
    } else {
      console.error(`run.mjs: unknown argument ${argv[i]}: expected [--exchange IN OUT]...`);
      process.exit(2);
    }
  }
  return args;
}

function copyPython(mp, fromDir, toDir) {
  mp.FS.mkdirTree(toDir);
  const names = readdirSync(fromDir).filter((name) => name.endsWith(".py")).sort();
  for (const name of names) {
    mp.FS.writeFile(`${toDir}/${name}`, readFileSync(join(fromDir, name)));
  }
  return names;
}

const args = parseArgs(process.argv.slice(2));
const mp = await loadMicroPython({
  heapsize: HEAP_BYTES,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
copyPython(mp, join(root, "firmware_micropython", "hanoifw"), "/lib/hanoifw");
copyPython(mp, join(root, "tests", "firmware"), "/fwtests");
copyPython(mp, here, "/mprun");
copyPython(mp, join(root, "firmware_micropython"), "/board");
args.exchanges.forEach((exchange, i) => mp.FS.writeFile(`/exchange_in_${i}.txt`, readFileSync(exchange.input)));

let failed = 0;
try {
  mp.runPython(
    [
      "import sys",
      "sys.path.insert(0, '/fwtests')",
      "sys.path.insert(0, '/mprun')",
      "import mp_runner",
      "mp_runner.run_tests('/fwtests', '/result.txt', '/board')",
      ...args.exchanges.map((_, i) => `mp_runner.exchange('/exchange_in_${i}.txt', '/exchange_out_${i}.txt')`),
    ].join("\n"),
  );
  failed = Number(mp.FS.readFile("/result.txt", { encoding: "utf8" }).trim());
  args.exchanges.forEach((exchange, i) => writeFileSync(exchange.output, mp.FS.readFile(`/exchange_out_${i}.txt`)));
} catch (error) {
  console.error(`run.mjs: MicroPython raised: ${error.message}`);
  process.exit(1);
}
process.exit(failed === 0 ? 0 : 1);
