// Loads the OpenClaw plugin (openclaw-plugin/index.js) as OpenClaw's host does, with the
// config given, and runs a script of steps on its tools and hook, printing one JSON line
// per step: how the tests and the plugin benchmark (plugin_search.py) reach the plugin's
// own code without starting an agent (tests/test_openclaw.py proves it inside the real
// OpenClaw).
//
//   node plugin_driver.mjs '<config JSON>' '<steps JSON>'
// A step: {"tool": "memory_search"|"memory_get", "params": {...}}
//         {"hook": "before_prompt_build", "message": TEXT}
//         {"parallel": [steps]}  {"kill": true}  (SIGKILL the recall process)
//         {"timed": [steps]}  (run one after another: {"ms": [...], "hits": [...]})
//         {"step": step, "after": MS, "during": step}  (`during` runs while `step` is pending)
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [config, steps] = process.argv.slice(2).map((text) => JSON.parse(text));
const plugin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "openclaw-plugin");

const module = await import(pathToFileURL(path.join(plugin, "index.js")).href);
const service = await import(pathToFileURL(path.join(plugin, "service.js")).href);
const tools = new Map();
const hooks = new Map();
module.default.register({
  pluginConfig: config,
  config: {},
  logger: { info() {}, warn() {}, error() {} },
  registerTool(factory, opts) {
    for (const name of opts.names) tools.set(name, factory({}));
  },
  registerMemoryCapability() {},
  on(name, handler) { hooks.set(name, handler); },
});

async function run(step) {
  if (step.parallel) return Promise.all(step.parallel.map(run));
  if (step.timed) {
    const ms = [];
    const hits = [];
    for (const each of step.timed) {
      const begun = performance.now();
      const result = await run(each);
      ms.push(performance.now() - begun);
      hits.push(result.details?.results?.length ?? -1);
    }
    return { ms, hits };
  }
  if (step.kill) {
    const pids = service.runningPids();
    for (const pid of pids) process.kill(pid, "SIGKILL");
    return { killed: pids.length };
  }
  try {
    if (step.hook) return { hook: (await hooks.get(step.hook)?.({ prompt: step.message }, {})) ?? null };
    const result = await tools.get(step.tool).execute("call", step.params ?? {});
    return { details: result.details, text: result.content[0].text };
  } catch (error) {
    return { thrown: error.message };
  }
}

for (const step of steps) {
  if (step.during) {  // a step, with `during` run while it is pending
    const pending = run(step.step);
    await new Promise((resolve) => setTimeout(resolve, step.after ?? 0));
    const meanwhile = await run(step.during);
    console.log(JSON.stringify({ result: await pending, meanwhile }));
  } else {
    console.log(JSON.stringify(await run(step)));
  }
}
process.exit(0);
