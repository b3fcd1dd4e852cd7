// What keeps OpenClaw from asking this plugin for its memory: the settings of a set-up done
// by half, read from OpenClaw's configuration. register() logs each as a warning; the
// skill's health check (openclaw/state.setup_findings) reads openclaw.json with the same
// rules, and the two agree on every fixture of tests/fixtures/openclaw-setup/.

const REASONS = {
  memory_slot: "another memory plugin holds the memory slot and answers memory_search",
  memory_core: "OpenClaw's memory-core stays on, and its own memory_search answers instead of this memory",
  conversation_access:
    "OpenClaw withholds the conversation from the plugin's hooks, so auto-recall adds nothing and " +
    "turns are learned only at compaction, at a session's end and by the nightly summarize, not as each ends",
  tool_search: "tool search is on, so memory_search is offered only to a model that searches its tools",
};

function mapping(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function denied(plugins) {
  const deny = plugins.deny;
  if (!Array.isArray(deny)) return new Set();
  return new Set(deny.filter((item) => typeof item === "string").map((item) => item.trim().toLowerCase()));
}

/** How a value shows in a finding: "unset" for a key not there, else its JSON. */
function shown(value) {
  return value === undefined ? "unset" : JSON.stringify(value);
}

/** `value` as `openclaw config set` takes it on a command line: a plugin id bare, true and
 * false as they are. */
function typed(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Whether `tools.toolSearch` (undefined when unset) leaves OpenClaw's tool search on, as
 * OpenClaw 2026.9 reads it: on when unset or true; an object is on unless its `enabled` is
 * false, or it holds nothing but `enabled`; off for anything else. */
export function toolSearchOn(value) {
  if (value === undefined || value === true) return true;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.enabled === "boolean") return value.enabled;
    return Object.keys(value).some((key) => key !== "enabled");
  }
  return false;
}

/** The half-set-up findings of OpenClaw's `config` (api.config) for the plugin `pluginId`:
 * one {code, setting, value, message} for each setting to change, `value` the one to set,
 * in a fixed order (the memory slot, memory-core, conversation access, tool search). Pure:
 * reads `config`, changes nothing. */
export function setupFindings(config, pluginId) {
  const plugins = mapping(mapping(config).plugins);
  const entries = mapping(plugins.entries);
  const found = [];
  const finding = (code, setting, current, value) =>
    found.push({
      code,
      setting,
      value,
      message:
        `${setting} is ${shown(current)}: ${REASONS[code]}; ` +
        `set it to ${JSON.stringify(value)} (openclaw config set ${setting} ${typed(value)})`,
    });

  const slot = mapping(plugins.slots).memory;
  if (!(typeof slot === "string" && slot.trim() === pluginId)) {
    finding("memory_slot", "plugins.slots.memory", slot, pluginId);
  }
  const core = mapping(entries["memory-core"]).enabled;
  if (core !== false && !denied(plugins).has("memory-core")) {
    finding("memory_core", "plugins.entries.memory-core.enabled", core, false);
  }
  const access = mapping(mapping(entries[pluginId]).hooks).allowConversationAccess;
  if (access !== true) {
    finding("conversation_access", `plugins.entries.${pluginId}.hooks.allowConversationAccess`, access, true);
  }
  const search = mapping(mapping(config).tools).toolSearch;
  if (toolSearchOn(search)) finding("tool_search", "tools.toolSearch", search, false);
  return found;
}
