// Drives `ipuaro acp` with Zed's own TypeScript ACP SDK (a client nobody on ipuaro wrote):
// initialize → session/new → a prompt whose edit is allowed → a prompt whose edit is rejected →
// a prompt cancelled while it streams. Prints one JSON report on stdout for the pytest side.
//
// usage: node client.mjs PROJECT_DIR COMMAND [ARGS...]   (e.g. python -m ipuaro acp)
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@zed-industries/agent-client-protocol";

const [project, command, ...args] = process.argv.slice(2);
if (!project || !command) {
  console.error("usage: node client.mjs PROJECT_DIR COMMAND [ARGS...]");
  process.exit(2);
}

const agentProcess = spawn(command, args, {
  cwd: project,
  stdio: ["pipe", "pipe", "inherit"],
});

class RecordingClient {
  constructor() {
    this.answer = "apply";
    this.updates = [];
    this.permissions = [];
    this.onUpdate = null;
  }

  async requestPermission(params) {
    this.permissions.push(params);
    return { outcome: { outcome: "selected", optionId: this.answer } };
  }

  async sessionUpdate(params) {
    this.updates.push({ at: performance.now(), update: params.update });
    if (this.onUpdate) this.onUpdate(params.update);
  }

  text() {
    return this.updates
      .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => u.update.content.text)
      .join("");
  }

  toolCalls() {
    const calls = new Map();
    for (const { update } of this.updates) {
      if (update.sessionUpdate === "tool_call") {
        calls.set(update.toolCallId, { kind: update.kind, status: update.status, locations: update.locations ?? [] });
      } else if (update.sessionUpdate === "tool_call_update" && calls.has(update.toolCallId) && update.status) {
        calls.get(update.toolCallId).status = update.status;
      }
    }
    return [...calls.values()];
  }

  take() {
    const turn = {
      text: this.text(),
      chunks: this.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").length,
      toolCalls: this.toolCalls(),
      permissions: this.permissions.map((p) => ({
        toolCallId: p.toolCall.toolCallId,
        options: p.options.map((o) => o.optionId),
        diffs: (p.toolCall.content ?? []).filter((c) => c.type === "diff"),
      })),
    };
    this.updates = [];
    this.permissions = [];
    return turn;
  }
}

const client = new RecordingClient();
const stream = acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));
const connection = new acp.ClientSideConnection(() => client, stream);

function withTimeout(promise, what, ms = 60000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const report = {};
try {
  const init = await withTimeout(
    connection.initialize({
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
    }),
    "initialize",
  );
  report.initialize = { protocolVersion: init.protocolVersion, loadSession: init.agentCapabilities?.loadSession };

  const session = await withTimeout(connection.newSession({ cwd: project, mcpServers: [] }), "session/new");
  report.sessionId = session.sessionId;
  report.indexing = client.take().text;

  const prompt = (text) =>
    withTimeout(connection.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text }] }), text);

  client.answer = "apply";
  report.allowed = { stopReason: (await prompt("round the tax")).stopReason, ...client.take() };

  client.answer = "reject";
  report.rejected = { stopReason: (await prompt("reword the error")).stopReason, ...client.take() };

  let cancelledAt = null;
  client.onUpdate = (update) => {
    if (cancelledAt === null && update.sessionUpdate === "agent_message_chunk") {
      cancelledAt = performance.now();
      connection.cancel({ sessionId: session.sessionId });
    }
  };
  const cancelled = await prompt("explain everything");
  const latencyMs = performance.now() - cancelledAt;
  client.onUpdate = null;
  report.cancelled = { stopReason: cancelled.stopReason, latencyMs, ...client.take() };
} catch (error) {
  report.error = String(error?.message ?? error);
  if (error?.data) report.errorData = error.data;
} finally {
  agentProcess.stdin.end();
}

const exitCode = await new Promise((resolve) => agentProcess.on("exit", (code) => resolve(code)));
report.agentExitCode = exitCode;
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(report.error ? 1 : 0);
