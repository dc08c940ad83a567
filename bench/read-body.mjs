// read-body.mjs: what a large read_text_file costs on the wire and in time,
// as the official MCP client SDK sees it, for one or more builds.
//
//   node bench/read-body.mjs BUILD [BUILD...]          (from the repo root)
//   READ_BODY_N=5 READ_BODY_MIB=1,4,8 node bench/read-body.mjs build
//
// For each size (default 1, 4 and 8 MiB) a text file of 64-byte lines is
// made, and read_text_file is called on it with max_bytes set to the file's
// size.  Two measures per build and size:
//
//   wire   the bytes of the tools/call response line the server writes,
//          read from its stdout directly (no SDK): what every host parses;
//          with the body's bytes found in content[0].text and in
//          structuredContent.content, and whether it was cut (truncated,
//          next_offset).
//   time   the median and the slowest of READ_BODY_N calls (default 5)
//          through the SDK's Client and StdioClientTransport with their
//          defaults, as a host built on the SDK runs them: from callTool()
//          to its result, parsed and checked against the outputSchema.  A
//          response the SDK refuses (it closes the connection on a message
//          over 10 MiB unless maxBufferSize is raised) is reported as such.
//   whole  the calls and the time it takes, through the SDK, to read the
//          whole file, following next_offset from page to page.
//
// The output is a Markdown table, for docs/hosts.md.
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

import { loadSdk, repo } from './lib.mjs';

const { Client, StdioClientTransport } = await loadSdk('read-body');

const builds = process.argv.slice(2);
if (builds.length === 0) {
	process.stderr.write('usage: node bench/read-body.mjs BUILD [BUILD...]\n');
	process.exit(2);
}
const n = Math.max(1, Number(process.env.READ_BODY_N ?? 5));
const sizes = (process.env.READ_BODY_MIB ?? '1,4,8').split(',').map(Number);
const MIB = 1 << 20;

const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-read-body-'));
const line = `${'0123456789abcdef'.repeat(4).slice(0, 63)}\n`;
for (const mib of sizes)
	await fsp.writeFile(path.join(dir, `${mib}m.txt`), line.repeat((mib * MIB) / 64));

/* The tools/call response line for reading |file|, straight off stdout. */
function rawCall(bin, file, bytes) {
	return new Promise((resolve, reject) => {
		const p = spawn(bin, [dir], { stdio: ['pipe', 'pipe', 'ignore'] });
		const chunks = [];
		let len = 0;
		p.stdout.on('data', (c) => {
			chunks.push(c);
			len += c.length;
		});
		p.on('error', reject);
		p.on('close', () => {
			const lines = Buffer.concat(chunks, len).toString('utf8').split('\n');
			const resp = lines.find((l) => l.startsWith('{') && l.includes('"id":2'));
			if (resp === undefined)
				reject(new Error(`${bin}: no response to the call`));
			else
				resolve(resp);
		});
		const send = (m) => p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
		send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
		    capabilities: {}, clientInfo: { name: 'read-body', version: '0' } } });
		send({ method: 'notifications/initialized' });
		send({ id: 2, method: 'tools/call', params: { name: 'read_text_file',
		    arguments: { path: file, max_bytes: bytes } } });
		p.stdin.end();
	});
}

/* Times |n| calls through the SDK; returns {med, max} in ms or {error}. */
async function timed(bin, file, bytes) {
	const transport = new StdioClientTransport({ command: bin, args: [dir], stderr: 'ignore' });
	const client = new Client({ name: 'read-body', version: '0' });
	let closed = null;
	client.onerror = (e) => { closed ??= e.message; };
	await client.connect(transport);
	await client.listTools();
	const v = [];
	try {
		for (let i = 0; i < n; i++) {
			const t = process.hrtime.bigint();
			const r = await client.callTool({ name: 'read_text_file',
			    arguments: { path: file, max_bytes: bytes } }, undefined, { timeout: 120_000 });
			v.push(Number(process.hrtime.bigint() - t) / 1e6);
			if (r.isError)
				return { error: `tool error: ${r.content[0].text}` };
		}
	} catch (e) {
		return { error: closed ?? e.message };
	} finally {
		await client.close().catch(() => {});
	}
	v.sort((a, b) => a - b);
	return { med: v[Math.floor(v.length / 2)], max: v[v.length - 1] };
}

/* Reads all of |file| through the SDK, page by page; returns {calls, ms,
 * ok} (ok: the pages put together are the file) or {error}. */
async function whole(bin, file, bytes) {
	const transport = new StdioClientTransport({ command: bin, args: [dir], stderr: 'ignore' });
	const client = new Client({ name: 'read-body', version: '0' });
	let closed = null;
	client.onerror = (e) => { closed ??= e.message; };
	await client.connect(transport);
	await client.listTools();
	const want = await fsp.readFile(file, 'utf8');
	let got = '';
	let calls = 0;
	let offset = 0;
	const t = process.hrtime.bigint();
	try {
		for (;;) {
			const r = await client.callTool({ name: 'read_text_file',
			    arguments: { path: file, max_bytes: bytes, offset } }, undefined,
			    { timeout: 120_000 });
			calls++;
			got += r.content[0].text;
			if (r.structuredContent?.next_offset === undefined)
				break;
			offset = r.structuredContent.next_offset;
		}
	} catch (e) {
		return { error: closed ?? e.message };
	} finally {
		await client.close().catch(() => {});
	}
	return { calls, ms: Number(process.hrtime.bigint() - t) / 1e6, ok: got === want };
}

const mib = (b) => (b / MIB).toFixed(2);
process.stdout.write('| build | read | response | in text | in structuredContent | cut | '
    + `SDK call, median of ${n} (slowest) | whole file |\n|---|---|---|---|---|---|---|---|\n`);
for (const b of builds) {
	const bin = path.resolve(repo, b, 'toolcell-fs');
	for (const size of sizes) {
		const file = path.join(dir, `${size}m.txt`);
		const bytes = size * MIB;
		const resp = await rawCall(bin, file, bytes);
		const res = JSON.parse(resp).result;
		const text = res.content[0].text;
		const sc = res.structuredContent ?? {};
		const inSc = typeof sc.content === 'string' ? Buffer.byteLength(sc.content) : 0;
		const cut = sc.truncated ? `at line ${sc.next_offset}` : 'no';
		const t = await timed(bin, file, bytes);
		const time = t.error !== undefined ? `fails: ${t.error.split('\n')[0]}`
		    : `${t.med.toFixed(0)} ms (${t.max.toFixed(0)} ms)`;
		const w = await whole(bin, file, bytes);
		const all = w.error !== undefined ? 'fails'
		    : `${w.calls} call${w.calls > 1 ? 's' : ''}, ${w.ms.toFixed(0)} ms${w.ok ? '' : ', WRONG'}`;
		process.stdout.write(`| ${b} | ${size} MiB | ${mib(Buffer.byteLength(resp) + 1)} MiB | `
		    + `${mib(Buffer.byteLength(text))} MiB | ${inSc ? `${mib(inSc)} MiB` : 'none'}`
		    + `${sc.content_in_text ? ' (content_in_text)' : ''} | ${cut} | ${time} | ${all} |\n`);
	}
}
await fsp.rm(dir, { recursive: true, force: true });
