// The notes of OpenClaw's workspaces, learned as they change: what OpenClaw's own memory
// searched (memory/*.md, USER.md) stays findable with this plugin in its place. A workspace
// is learned when the plugin starts (its notes may have changed meanwhile) and again about
// NOTES_DEBOUNCE_MS after a note changes, through the live learner's queue, so that no two
// learns run at once. The memory copies only the lines not copied before
// (skill/vm_memory_oracle/openclaw/notes.py), so a learn that finds nothing new is cheap.
//
// The watches and timers are unref'd: they never keep OpenClaw's process alive.

import { existsSync, watch } from "node:fs";
import path from "node:path";

export const NOTES_DEBOUNCE_MS = 1_000;
const SKILL = "vm-memory-oracle";
const USER_NOTE = "USER.md";
const NOTES_DIR = "memory";

const watched = new Map(); // learner -> Set of workspaces watched for it, for the whole host

/** Learn the notes of `workspace` now and whenever they change, once per learner. */
export function watchNotes(learner, workspace, { logger = console, debounceMs = NOTES_DEBOUNCE_MS } = {}) {
  if (!watched.has(learner)) watched.set(learner, new Set());
  const workspaces = watched.get(learner);
  if (workspaces.has(workspace) || !existsSync(workspace)) return false;
  workspaces.add(workspace);
  new NotesWatcher({ learner, workspace, logger, debounceMs }).start();
  return true;
}

export class NotesWatcher {
  constructor({ learner, workspace, logger, debounceMs }) {
    Object.assign(this, { learner, workspace, logger, debounceMs });
    this.timer = null;
    this.notes = null; // the watch on memory/, once it exists
  }

  start() {
    this.learner.notesChanged(this.workspace, "start");
    try {
      // The workspace itself: USER.md (often replaced, not written in place) and memory/
      // appearing or being replaced.
      const top = watch(this.workspace, { persistent: false }, (_event, name) => {
        if (name === USER_NOTE) this.changed();
        if (name === NOTES_DIR) {
          this.notes?.close(); // a memory/ made anew is another directory to watch
          this.notes = null;
          this.watchNotesDir();
          this.changed();
        }
      });
      top.on("error", () => top.close());
      top.unref?.();
    } catch (error) {
      this.logger.warn?.(`${SKILL}: cannot watch ${this.workspace} (${error.message}); its notes are learned when the plugin starts`);
      return;
    }
    this.watchNotesDir();
  }

  /** Watch memory/ if it exists and is not watched yet. */
  watchNotesDir() {
    if (this.notes) return;
    const directory = path.join(this.workspace, NOTES_DIR);
    try {
      const notes = watch(directory, { persistent: false }, (_event, name) => {
        if (!name || name.endsWith(".md")) this.changed();
      });
      notes.on("error", () => {
        notes.close();
        if (this.notes === notes) this.notes = null; // removed: watched again when it returns
      });
      notes.unref?.();
      this.notes = notes;
    } catch {
      // no memory/ yet: the workspace's watch sees it appear
    }
  }

  changed() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.learner.notesChanged(this.workspace, "changed"), this.debounceMs);
    this.timer.unref?.();
  }
}
