/** The `pi-workflows` bin's body: the command line of this process, and its exit code once the output is written. */
import { flushSpans } from "../telemetry/spans.ts";
import { runCli } from "./cli.ts";
import { agentDirOf } from "./inputs.ts";

const code = await runCli(process.argv.slice(2), {
	cwd: process.cwd(),
	env: process.env,
	agentDir: agentDirOf(process.env),
	stdin: process.stdin,
	stdout: process.stdout,
	stderr: process.stderr,
});
// Spans an OpenTelemetry SDK (registered with node --import) still holds go out before the process does.
await flushSpans();
// pi's sessions may leave sockets and timers open after their children ended; the command is done once its
// output is out.
process.stdout.write("", () => process.exit(code));
