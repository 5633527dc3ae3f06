// The shipped OpenCode plugin run by node, its hook calling the real
// voyage-helper: argv[2] is the plugin (copied to a .mjs file), the helper
// is VOYAGE_GUARD_HELPER. Prints one JSON line per case: what the call
// became (refused with its message, or let through with its arguments).

const { VoyageGuard } = await import(process.argv[2]);
const hooks = await VoyageGuard({ directory: "/work/project" });
const before = hooks["tool.execute.before"];

const cases = [
  ["bash", { command: 'rm -rf "$HOME"', description: "clean" }],
  ["bash", { command: "echo hi", description: "greet" }],
  ["write", { filePath: "/home/u/.ssh/authorized_keys", content: "key" }],
  ["edit", { filePath: "src/main.rs", oldString: "a", newString: "b" }],
  ["apply_patch", { patchText: "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Update File: /home/u/.ssh/authorized_keys\n*** End Patch" }],
  ["read", { filePath: "/home/u/.ssh/id_rsa" }],
];
for (const [tool, args] of cases) {
  const output = { args: { ...args } };
  try {
    await before({ tool, sessionID: "s", callID: "c" }, output);
    console.log(JSON.stringify({ tool, allowed: output.args }));
  } catch (e) {
    console.log(JSON.stringify({ tool, refused: String(e.message) }));
  }
}
