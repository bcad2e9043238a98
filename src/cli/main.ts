#!/usr/bin/env node
/**
 * The `pi-workflows` bin. The command loads pi's SDK, some 1,900 modules: Node's compile cache keeps V8's code for
 * them on disk (in the temp folder; `NODE_DISABLE_COMPILE_CACHE=1` turns it off), which takes a share off every later
 * start, as pi's own command does. It must be on before the modules load, hence the body comes by `import()`.
 */
import * as nodeModule from "node:module";

// Node 20 (where `check` and `--help` run too) has no compile cache: a named import would fail there at link time.
nodeModule.enableCompileCache?.();
// A command that runs workflows starts again once: on the package's own Node 22 when this one is too old for pi, and
// with glibc's trim threshold, which glibc reads only at a process's start (src/cli/own-node.ts).
const { relaunched } = await import("./own-node.ts");
const code = await relaunched(process.argv.slice(2), process.env);
if (code !== undefined) process.exit(code);
await import("./process-command.ts");
