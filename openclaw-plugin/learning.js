// Live learning: when an agent's turn ends, its memory learns the turn within seconds, not
// at the nightly summarize. The turn is not sent: the memory reads the agent's new rows of
// OpenClaw's own transcript database, as the nightly summarize does, so that a turn is
// learned once, keyed to its transcript row, however often and by whichever path it is
// heard of (skill/vm_memory_oracle/steps/summarize.py, summarize_agent).
//
// A hook only notes which agent has new turns and returns: the learning runs after it, in a
// process of its own (a search is never queued behind a learn). What waits is a bounded
// queue of agents, each learned whole when its turn comes, so many turns of one agent are
// one learn. A learn the memory could not do (locked by a consolidation for longer than its
// lock timeout, a process that died) is tried again after RETRY_MS, up to RETRY_FOR_MS; a
// turn the queue has no room for, or that ran out of tries, is left to the nightly
// summarize, with a warning: never lost, never blocking a turn.
//
// A workspace whose notes changed (notes.js) waits in the same queue, so that no two learns
// of one memory ever run at once: its learn copies the new lines of its changed notes
// (skill/vm_memory_oracle/openclaw/notes.py).

export const QUEUE_LIMIT = 64; // agents waiting to be learned
export const RETRY_MS = 5_000;
export const RETRY_FOR_MS = 30 * 60_000;
export const LEARN_TIMEOUT_MS = 10 * 60_000; // a learn that waits for the lock, then learns a long day
const SKILL = "vm-memory-oracle";
const NOTES = "notes:"; // a workspace's key in the queue: its absolute path holds a "/", no agent id does

/** The agent whose turn a hook's context names: its agentId, else the agent of its session
 * key ("agent:<id>:..."), else OpenClaw's default agent. */
export function agentOf(ctx) {
  if (typeof ctx?.agentId === "string" && ctx.agentId) return ctx.agentId;
  const key = ctx?.sessionKey;
  const named = typeof key === "string" ? /^agent:([^:]+):/.exec(key) : null;
  return named ? named[1] : "main";
}

export class LiveLearner {
  /** `memory`: the process learns are sent to (a RecallProcess); `stateDir`: OpenClaw's
   * state directory, whose transcripts the memory reads. */
  constructor({ memory, stateDir, logger = console, limit = QUEUE_LIMIT, retryMs = RETRY_MS,
                retryForMs = RETRY_FOR_MS, timeoutMs = LEARN_TIMEOUT_MS, now = Date.now }) {
    Object.assign(this, { memory, stateDir, logger, limit, retryMs, retryForMs, timeoutMs, now });
    this.waiting = new Map(); // agent, or "notes:" + workspace -> { session, since, tries }
    this.running = null; // the drain under way, if any
    this.learned = []; // the last answers, newest last (for the plugin's tests and benchmark)
  }

  /** Note that a turn of `agent` ended (`why`: the hook). Returns at once, whether the
   * turn was queued: when nothing else waits, its request is already written to the
   * memory's process (so an OpenClaw that exits right after the turn still has it learned). */
  ended(agent, session, why = "agent_end") {
    const known = this.waiting.get(agent);
    if (known) {
      known.session = session ?? known.session;
      known.sent = undefined; // a learn written before may have read the transcript already
    } else if (this.waiting.size >= this.limit) {
      this.logger.warn?.(
        `${SKILL}: live learning queue full (${this.limit} agents waiting); the turn of ` +
          `agent ${agent} that ended (${why}) is left to the nightly summarize`,
      );
      return false;
    } else {
      this.waiting.set(agent, { session, since: this.now(), tries: 0 });
    }
    // While another learn is under way the turn still reaches the memory's process now:
    // its requests are answered one at a time in the order written, and an OpenClaw run as
    // a one-shot command exits right after the turn, taking what waits here with it.
    if (this.running) this.sendAhead(agent);
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
    return true;
  }

  /** Write the learn of the waiting `key` to the memory's process now, for drain to await
   * when it comes to it. */
  sendAhead(key) {
    const entry = this.waiting.get(key);
    if (!entry || entry.sent) return;
    entry.sent = this.memory.request("learn", this.fieldsOf(key, entry), {
      timeoutMs: this.timeoutMs,
    });
    entry.sent.catch(() => {}); // drain awaits it, and retries what failed
  }

  fieldsOf(key, entry) {
    return entry.workspace
      ? { notes: entry.workspace }
      : { agent: key, ...(entry.session ? { session: entry.session } : {}), stateDir: this.stateDir };
  }

  /** Note that notes of the OpenClaw workspace `workspace` changed (or that the plugin
   * started: they may have changed while it was not running). Returns whether it was
   * queued; a workspace already waiting is learned once. */
  notesChanged(workspace, why = "changed") {
    const key = `${NOTES}${workspace}`;
    if (!this.waiting.has(key)) {
      if (this.waiting.size >= this.limit) {
        this.logger.warn?.(
          `${SKILL}: live learning queue full (${this.limit} waiting); the notes of ` +
            `${workspace} (${why}) are learned when they next change or the plugin next starts`,
        );
        return false;
      }
      this.waiting.set(key, { workspace, since: this.now(), tries: 0 });
    }
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
    return true;
  }

  /** Learn the waiting agents and workspaces one at a time until none waits. */
  async drain() {
    while (this.waiting.size) {
      const [key, entry] = this.waiting.entries().next().value;
      this.waiting.delete(key);
      const who = entry.workspace ? { notes: entry.workspace } : { agent: key };
      const begun = performance.now();
      try {
        const answer = await (entry.sent ??
          this.memory.request("learn", this.fieldsOf(key, entry), { timeoutMs: this.timeoutMs }));
        this.learned.push({ ...who, ms: performance.now() - begun, ...answer });
        if (this.learned.length > 100) this.learned.shift();
        for (const warning of answer.warnings ?? []) this.logger.warn?.(`${SKILL}: ${warning}`);
      } catch (error) {
        await this.failed(key, entry, error);
      }
    }
  }

  async failed(key, entry, error) {
    const lasting = error.code === "invalid_input" || error.code === "usage";
    if (lasting || this.now() - entry.since >= this.retryForMs) {
      this.logger.warn?.(
        entry.workspace
          ? `${SKILL}: live learning of the notes of ${entry.workspace} failed (${error.message}); ` +
              "they are learned when they next change or the plugin next starts"
          : `${SKILL}: live learning of agent ${key} failed (${error.message}); ` +
              "its turns are left to the nightly summarize",
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, this.retryMs).unref?.());
    const newer = this.waiting.get(key);
    this.waiting.set(key, {
      ...entry,
      session: newer?.session ?? entry.session,
      tries: entry.tries + 1,
      sent: undefined,
    });
  }

  /** Settled when nothing waits to be learned (the plugin's tests and benchmark). */
  async idle() {
    while (this.running) await this.running;
  }
}
