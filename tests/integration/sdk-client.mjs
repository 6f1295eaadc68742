#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// MCP client on the official TypeScript SDK, launched the way Claude Desktop, VS Code and the
// Inspector launch a server: Client + StdioClientTransport, the SDK's default environment, so the
// server's stdin and stdout are AF_UNIX sockets (Node's 'pipe' stdio).
//
// usage: sdk-client.mjs [--call NAME] [--args JSON] [--env K=V]... [--cwd DIR] [--stderr FILE]
//                       [--digest] [--timeout MS] -- COMMAND [ARG]...
//
// Connects, lists tools, calls one tool (if --call), closes, and prints one JSON object on stdout:
//   { server, protocolVersion, capabilities, instructions, tools, call, errors, closedBy }
// `errors` holds every error the transport or the client reported (onerror), in order: with SDK 1.x
// every line on the server's stdout that is not a JSON-RPC message shows up there.
// --digest replaces each text item of the call result by { type, length, sha256 } (large results).
// --stderr FILE: the server's stderr is piped into FILE instead of inherited.
// Exit status: 0 when the session completed (even with transport errors: the caller judges them),
// 1 when connecting or a request failed (the summary is still printed, with `failure`).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

function usage(msg) {
  process.stderr.write(`sdk-client: ${msg}\n`);
  process.exit(2);
}

const opts = { env: {}, digest: false, timeout: 30000 };
const argv = process.argv.slice(2);
let i = 0;
for (; i < argv.length; i++) {
  const a = argv[i];
  const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--') { i++; break; }
  else if (a === '--call') opts.call = val();
  else if (a === '--args') opts.args = JSON.parse(val());
  else if (a === '--env') { const kv = val(); const eq = kv.indexOf('='); opts.env[kv.slice(0, eq)] = kv.slice(eq + 1); }
  else if (a === '--cwd') opts.cwd = val();
  else if (a === '--stderr') opts.stderr = val();
  else if (a === '--digest') opts.digest = true;
  else if (a === '--timeout') opts.timeout = Number(val());
  else usage(`unknown option ${a}`);
}
const command = argv[i];
const args = argv.slice(i + 1);
if (!command) usage('no command');

const errors = [];
const summary = { command: [command, ...args] };

const transport = new StdioClientTransport({
  command,
  args,
  // Only what the caller adds: the SDK merges it over its default environment.
  env: Object.keys(opts.env).length ? opts.env : undefined,
  cwd: opts.cwd,
  stderr: opts.stderr ? 'pipe' : 'inherit',
});
// The client hands the negotiated version to transports that want it: record it.
transport.setProtocolVersion = (v) => { summary.protocolVersion = v; };
let stderrDone = Promise.resolve();
if (opts.stderr) {
  const out = createWriteStream(opts.stderr);
  stderrDone = new Promise((resolve) => out.on('close', resolve));
  transport.stderr.pipe(out);
}

const client = new Client({ name: 'stdiogate-sdk-client', version: '1.0.0' }, { capabilities: {} });
client.onerror = (e) => errors.push(String(e && e.message ? e.message : e));
let closed = false;
client.onclose = () => { closed = true; };

function digestContent(result) {
  if (!opts.digest || !result || !Array.isArray(result.content)) return result;
  return {
    ...result,
    content: result.content.map((c) =>
      c.type === 'text'
        ? { type: 'text', length: c.text.length, sha256: createHash('sha256').update(c.text).digest('hex') }
        : c),
  };
}

let status = 0;
try {
  await client.connect(transport, { timeout: opts.timeout });
  summary.server = client.getServerVersion();
  summary.capabilities = client.getServerCapabilities();
  summary.instructions = client.getInstructions() ?? null;
  const tools = await client.listTools(undefined, { timeout: opts.timeout });
  summary.tools = tools.tools.map((t) => t.name).sort();
  if (opts.call) {
    const result = await client.callTool({ name: opts.call, arguments: opts.args ?? {} }, undefined,
      { timeout: opts.timeout });
    summary.call = digestContent(result);
  }
  summary.closedBy = closed ? 'server' : 'client';
} catch (e) {
  status = 1;
  summary.failure = String(e && e.message ? e.message : e);
  summary.closedBy = closed ? 'server' : 'client';
}
await client.close().catch((e) => errors.push(`close: ${e.message}`));
await stderrDone;
summary.errors = errors;
process.stdout.write(JSON.stringify(summary) + '\n');
process.exitCode = status;
