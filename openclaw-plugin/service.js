// The long-lived recall process: one `vm-memory-oracle --action serve` per data directory,
// spoken to in JSON lines over its stdin and stdout (skill/vm_memory_oracle/serve.py).
//
// It is started on the first request, not when the plugin registers (OpenClaw registers a
// plugin several times per process). A request sent while it starts waits for it, up to
// START_TIMEOUT_MS: its first run may install the bundle's Python environment. A process
// that exits is started again by the next request; one that does not answer within
// REQUEST_TIMEOUT_MS is killed, and the next request starts a new one. Every failure is an
// Error whose message says what happened, in one line.

import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const START_TIMEOUT_MS = 120_000;
export const REQUEST_TIMEOUT_MS = 30_000;
const STDERR_LINES = 20; // the end of the process's stderr, quoted when it dies
const SKILL = "vm-memory-oracle";
const ACTOR = "openclaw-plugin"; // who wrote, in the memory's audit log
const ENTRYPOINT = path.join("scripts", "vm-memory-oracle");

export class MemoryError extends Error {
  constructor(message, code = "unavailable") {
    super(message);
    this.code = code;
  }
}

/** The bundle's entrypoint: the configured bundle, else the skill where OpenClaw installs
 * skills (the agent's workspace, the managed and the personal skills directories), else the
 * bundle around this folder (a plugin linked in place). */
export function findEntrypoint({ bundlePath, workspaceDirs = [], env = process.env } = {}) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const stateDir = env.OPENCLAW_STATE_DIR || path.join(homedir(), ".openclaw");
  const candidates = bundlePath
    ? [bundlePath]
    : [
        ...workspaceDirs.filter(Boolean).map((dir) => path.join(dir, "skills", SKILL)),
        path.join(stateDir, "skills", SKILL),
        path.join(homedir(), ".agents", "skills", SKILL),
        path.dirname(here),
      ];
  for (const dir of candidates) {
    const entrypoint = path.join(dir, ENTRYPOINT);
    try {
      accessSync(entrypoint, constants.X_OK);
      return entrypoint;
    } catch {
      // not this one
    }
  }
  const where = bundlePath ? `bundlePath ${bundlePath}` : `the installed skills (${candidates.join(", ")})`;
  throw new MemoryError(
    `cannot find ${ENTRYPOINT} in ${where}; install the skill, or set ` +
      `plugins.entries.${SKILL}.config.bundlePath to the bundle's directory`,
  );
}

export class RecallProcess {
  constructor({ entrypoint, dataPath, env = process.env, logger = console,
                startTimeoutMs = START_TIMEOUT_MS, requestTimeoutMs = REQUEST_TIMEOUT_MS }) {
    Object.assign(this, { entrypoint, dataPath, env, logger, startTimeoutMs, requestTimeoutMs });
    this.child = null;
    this.ready = false;
    this.pending = new Map();
    this.nextId = 0;
    this.stderr = [];
  }

  /** The result of one request, or a MemoryError. `timeoutMs`: wait at most this long
   * (auto-recall, which must not hold up a turn). A request the process died under is sent
   * once more, to a new process: a read changes nothing, and a search asked twice at most
   * boosts its facts twice (current activation plus the boost, capped at 1), and a forget
   * sent again finishes the one killed under it first (its journal). */
  async request(op, fields = {}, options = {}) {
    try {
      return await this.send(op, fields, options);
    } catch (error) {
      if (error.code !== "crashed") throw error;
      this.logger.warn?.(`${SKILL}: ${error.message}; asking a new recall process`);
      return this.send(op, fields, options);
    }
  }

  /** `guard`: called right before the request is written, in the same synchronous step; what
   * it throws is this request's failure, and nothing is sent. */
  send(op, fields, { timeoutMs, guard } = {}) {
    guard?.();
    const child = this.child ?? this.start();
    const id = ++this.nextId;
    const waiting = timeoutMs ?? (this.ready ? this.requestTimeoutMs : this.startTimeoutMs);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.ready && timeoutMs === undefined) {
          this.stop(child, "killed: it did not answer in time");
          reject(new MemoryError(`the memory did not answer within ${waiting / 1000} s; it was restarted`, "timeout"));
        } else {
          const state = this.ready
            ? `busy after ${waiting / 1000} s`
            : `still starting after ${waiting / 1000} s (its first run installs its environment)`;
          reject(new MemoryError(`the memory is ${state}; try again shortly`, "starting"));
        }
      }, waiting);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin.write(`${JSON.stringify({ id, op, ...fields })}\n`);
    });
  }

  start() {
    const options = ["--data-path", this.dataPath, "--actor", ACTOR, "--action", "serve"];
    const child = spawn(this.entrypoint, options, {
      stdio: ["pipe", "pipe", "pipe"],
      env: this.env,
    });
    this.child = child;
    this.ready = false;
    this.stderr = [];
    child.unref(); // OpenClaw's process may end while it runs: its stdin then closes, and it ends
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream.unref?.();
    child.stdin.on("error", () => {}); // a write to a process that died: its exit says why
    createInterface({ input: child.stdout }).on("line", (line) => this.answered(line));
    createInterface({ input: child.stderr }).on("line", (line) => {
      this.stderr.push(line);
      if (this.stderr.length > STDERR_LINES) this.stderr.shift();
    });
    child.on("error", (error) => this.exited(child, `could not start ${this.entrypoint}: ${error.message}`));
    child.on("exit", (code, signal) => {
      const said = this.stderr.filter((line) => line.trim()).at(-1);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.exited(child, `the recall process ${how}${said ? `: ${said}` : ""}`);
    });
    return child;
  }

  answered(line) {
    let answer;
    try {
      answer = JSON.parse(line);
    } catch {
      this.logger.warn?.(`${SKILL}: the recall process wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    this.ready = true;
    const waiter = this.pending.get(answer.id);
    if (!waiter) return; // it timed out
    this.pending.delete(answer.id);
    clearTimeout(waiter.timer);
    if (answer.ok) waiter.resolve(answer.result);
    else waiter.reject(new MemoryError(answer.error.message, answer.error.code));
  }

  exited(child, why) {
    if (this.child !== child) return; // an older process, already replaced
    this.child = null;
    this.ready = false;
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new MemoryError(why, "crashed"));
      this.pending.delete(id);
    }
    this.logger.warn?.(`${SKILL}: ${why}`);
  }

  /** Kill `child`, failing what waits on it; `why` completes "the recall process was". */
  stop(child, why) {
    this.exited(child, `the recall process was ${why}`);
    child.kill("SIGKILL");
  }
}

const running = new Map(); // one process per entrypoint and data directory, for the whole host

/** The process of `options.role` ("recall", the default, or "learn": learns wait for the
 * lock and take seconds, so they have a process of their own) for an entrypoint and data
 * directory, started on its first request. */
export function recallProcess(options) {
  const key = [options.entrypoint, options.dataPath, options.role ?? "recall"].join("\u0000");
  if (!running.has(key)) running.set(key, new RecallProcess(options));
  const recall = running.get(key);
  recall.startTimeoutMs = options.startTimeoutMs ?? recall.startTimeoutMs;
  return recall;
}

/** The process ids of the recall processes running now (for the plugin's tests). */
export function runningPids() {
  return [...running.values()].map((recall) => recall.child?.pid).filter(Boolean);
}
