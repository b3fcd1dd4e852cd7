// Loads the OpenClaw plugin (openclaw-plugin/index.js) as OpenClaw's host does, with the
// config given, and runs a script of steps on its tools and hook, printing one JSON line
// per step: how the tests and the plugin benchmark (plugin_search.py) reach the plugin's
// own code without starting an agent (tests/test_openclaw.py proves it inside the real
// OpenClaw).
//
//   node plugin_driver.mjs '<config JSON>' '<steps JSON>'|@FILE ['<OpenClaw config JSON>']
// A step: {"tool": "memory_search"|"memory_get"|"memory_forget", "params": {...},
//          "ctx": {sessionKey, senderIsOwner, revoked, ...}}  ({"available": false}: the tool
//          is not made for that context)
//         {"hook": "before_prompt_build", "message": TEXT}
//         {"hook": "agent_end"|"before_compaction"|"session_end", "ctx": {agentId, sessionId}}
//         {"idle": true}  (wait until live learning is done: its answers, and the warnings)
//         {"transcript": {"db": PATH, "session": ID, "events": [event, ...]}}  (append events
//           to an OpenClaw transcript database, as OpenClaw writes them)
//         {"until": step, "contains": TEXT | [TEXT, ...], "timeoutMs": MS}  (repeat `step`
//           until its answer holds TEXT, or one of them: {"ms", "tries", "found"})
//         {"parallel": [steps]}  {"kill": true}  (SIGKILL the recall process)
//         {"timed": [steps]}  (run one after another: {"ms": [...], "hits": [...]})
//         {"step": step, "after": MS, "during": step}  (`during` runs while `step` is pending)
//         {"write": PATH, "text": TEXT}  (write a file, as the agent writes a note: {"wrote"})
// A step with "stamped": true also answers "at", the driver's clock (ms) when it was done.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";

// An argument "@PATH" is read from that file (steps too long for a command line).
const [config, steps, host = {}] = process.argv
  .slice(2)
  .map((text) => JSON.parse(text.startsWith("@") ? readFileSync(text.slice(1), "utf8") : text));
const plugin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "openclaw-plugin");

const module = await import(pathToFileURL(path.join(plugin, "index.js")).href);
const service = await import(pathToFileURL(path.join(plugin, "service.js")).href);
const tools = new Map();
const hooks = new Map();
const warnings = [];
const api = {
  pluginConfig: config,
  config: host,
  logger: { info() {}, warn(line) { warnings.push(line); }, error(line) { warnings.push(line); } },
  registerTool(factory, opts) {
    // The host makes a tool for each run, from the run's context (its session).
    for (const name of opts.names) tools.set(name, factory);
  },
  registerMemoryCapability() {},
  on(name, handler) { hooks.set(name, handler); },
};
module.default.register(api);

// OpenClaw 2026.9's transcript table (skill/vm_memory_oracle/openclaw/transcripts.py).
const TRANSCRIPT = `CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
  PRIMARY KEY (session_id, seq)) STRICT`;

function appendTranscript({ db, session, events }) {
  mkdirSync(path.dirname(db), { recursive: true });
  const database = new DatabaseSync(db);
  try {
    database.exec("PRAGMA journal_mode=WAL");
    database.exec(TRANSCRIPT);
    const last = database
      .prepare("SELECT max(seq) AS seq FROM transcript_events WHERE session_id = ?")
      .get(session).seq;
    const insert = database.prepare(
      "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
    );
    let seq = last ?? -1;
    for (const event of events) insert.run(session, ++seq, JSON.stringify(event), Date.now());
    return { seq };
  } finally {
    database.close();
  }
}

/** The tool a factory makes for a run's context. A versioned one (contextVersion 2) also
 * gets the host's check that the invocation is current: it throws when the context says
 * "revoked" (the turn ended, or its sender is no longer the owner). */
function made(factory, ctx) {
  if (typeof factory === "function") return factory(ctx);
  const { revoked, ...given } = ctx;
  const assertInvocationCurrent = () => {
    if (revoked) throw new Error("this invocation is no longer current");
  };
  return factory.create({ ...given, assertInvocationCurrent });
}

async function run(step) {
  if (step.transcript) return appendTranscript(step.transcript);
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
  if (step.write) {
    mkdirSync(path.dirname(step.write), { recursive: true });
    writeFileSync(step.write, step.text);
    return { wrote: step.write };
  }
  if (step.kill) {
    const pids = service.runningPids();
    for (const pid of pids) process.kill(pid, "SIGKILL");
    return { killed: pids.length };
  }
  if (step.idle) {
    const learner = module.learnerOf(api);
    const alive = setInterval(() => {}, 1000); // the memory's processes and timers are unref'd
    try {
      await learner.idle();
    } finally {
      clearInterval(alive);
    }
    return { learned: learner.learned, warnings };
  }
  if (step.until) {
    const begun = performance.now();
    for (let tries = 1; ; tries += 1) {
      const answer = JSON.stringify(await run(step.until));
      const found = [step.contains].flat().some((text) => answer.includes(text));
      const ms = performance.now() - begun;
      if (found || ms > (step.timeoutMs ?? 30_000)) return { ms, tries, found };
      await new Promise((resolve) => setTimeout(resolve, step.everyMs ?? 20));
    }
  }
  try {
    if (step.hook) {
      const handler = hooks.get(step.hook);
      if (!handler) return { hook: null, registered: false };
      const event = { prompt: step.message, messages: [], success: true };
      return { hook: (await handler(event, step.ctx ?? {})) ?? null };
    }
    const tool = made(tools.get(step.tool), step.ctx ?? {});
    if (!tool) return { available: false };
    const result = await tool.execute("call", step.params ?? {});
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
    const done = await run(step);
    console.log(JSON.stringify(step.stamped ? { ...done, at: performance.now() } : done));
  }
}
process.exit(0);
