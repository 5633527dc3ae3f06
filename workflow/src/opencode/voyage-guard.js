// Voyage's guard for OpenCode: the OpenCode plugin `workflow run` loads into
// every OpenCode step. Before OpenCode runs a tool that runs a command or
// writes a file, the call is translated into the input of a Claude Code
// PreToolUse hook (tool names as Claude names them, `command` /
// `file_path`, `cwd`) and judged by `voyage-helper hook pre-tool-use`, the
// same denylist that guards Claude Code. A denial is thrown, so OpenCode
// refuses the call and the model reads the rule's reason as the tool's
// error; a fenced command the hook hands back replaces the original.
//
// The helper to call is `VOYAGE_GUARD_HELPER` (the runner sets it to its own
// binary). Whatever stops the judgement (no helper, a crash, an answer that
// is not JSON) refuses the call: an unattended agent is never let through
// unjudged.
//
// This file is embedded in voyage-helper and written out at run time; only
// the plugin function is exported, since OpenCode calls every export of a
// plugin module as a plugin.

import { spawnSync } from "node:child_process";

// The words every refusal starts with, which the runner looks for in the
// tool's error to record the denial.
const REFUSED = "Voyage refused this call:";

// OpenCode's tools the hook judges, by Claude Code's names (the hook's
// matcher in hooks/hooks.json: Bash and the file-writing tools).
const JUDGED = {
  bash: "Bash",
  write: "Write",
  edit: "Edit",
  multiedit: "MultiEdit",
  patch: "Edit",
  apply_patch: "Edit",
};

// The files an apply_patch / patch text touches (`*** Add File: p`,
// `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`).
function patchedPaths(text) {
  const paths = [];
  for (const line of String(text ?? "").split("\n")) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line.trim());
    if (m) paths.push(m[1].trim());
  }
  return paths;
}

// The hook inputs one OpenCode call becomes: none for a tool the hook does
// not judge, one per file a patch touches.
function hookInputs(tool, args, directory) {
  const name = JUDGED[String(tool).toLowerCase()];
  if (!name) return [];
  args = args && typeof args === "object" ? args : {};
  const base = { hook_event_name: "PreToolUse", tool_name: name, cwd: directory };
  if (name === "Bash") {
    const cwd = typeof args.workdir === "string" && args.workdir ? args.workdir : directory;
    return [{ ...base, cwd, tool_input: { command: String(args.command ?? "") } }];
  }
  const lower = String(tool).toLowerCase();
  if (lower === "patch" || lower === "apply_patch") {
    const paths = patchedPaths(args.patchText ?? args.patch_text ?? args.input);
    // A patch whose files cannot be read from it is judged as a write
    // nobody can name, which the hook refuses.
    return (paths.length ? paths : [""]).map((file_path) => ({ ...base, tool_input: { file_path } }));
  }
  const input = { file_path: String(args.filePath ?? args.file_path ?? "") };
  if (typeof args.content === "string") input.content = args.content;
  if (typeof args.oldString === "string") input.old_string = args.oldString;
  if (typeof args.newString === "string") input.new_string = args.newString;
  return [{ ...base, tool_input: input }];
}

// The hook's answer to one input: { deny: reason } or { command: fenced }
// or {}.
function judge(helper, input) {
  if (!helper) return { deny: "no voyage-helper to judge it (VOYAGE_GUARD_HELPER is not set)" };
  const ran = spawnSync(helper, ["hook", "pre-tool-use"], {
    input: JSON.stringify(input),
    encoding: "utf8",
    maxBuffer: 16 << 20,
  });
  if (ran.error) return { deny: `voyage-helper could not judge it: ${ran.error.message}` };
  if (ran.status !== 0) {
    const why = String(ran.stderr || ran.stdout || "").trim();
    return { deny: why || `voyage-helper ended with status ${ran.status ?? ran.signal}` };
  }
  const out = String(ran.stdout ?? "").trim();
  if (!out) return {};
  let answer;
  try {
    answer = JSON.parse(out);
  } catch {
    return { deny: "voyage-helper's answer is not JSON" };
  }
  const specific = answer?.hookSpecificOutput ?? {};
  if (specific.permissionDecision === "deny") {
    return { deny: String(specific.permissionDecisionReason ?? "denied by Voyage's denylist") };
  }
  const command = specific.updatedInput?.command;
  return typeof command === "string" ? { command } : {};
}

export const VoyageGuard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const helper = process.env.VOYAGE_GUARD_HELPER;
    for (const call of hookInputs(input?.tool, output?.args, directory ?? process.cwd())) {
      const answer = judge(helper, call);
      if (answer.deny !== undefined) throw new Error(`${REFUSED} ${answer.deny}`);
      if (answer.command !== undefined && output?.args) output.args.command = answer.command;
    }
  },
});
