// mcp-roundtrip.mjs: what one tools/call of toolcell-fs costs as a client
// sees it, through the official MCP client SDK over stdio.
//
//   node bench/mcp-roundtrip.mjs [BUILD] [N]      (from the repo root)
//
// It starts BUILD/toolcell-fs (default build/) on a small temporary tree,
// and times N calls (default 1000) of get_file_info on one file: back to
// back, then 5 ms apart (a client that does anything between calls, so that
// the next standby child is ready), and prints p50 and p99 in
// microseconds, with the time from spawn to the initialize result.  A ping
// row, answered by the server without a child, is the floor that the
// client, the SDK and the pipes set in the same run.  Then the same calls,
// 5 ms apart, with an audit log (two records a call), left to the kernel
// and fsynced after every record.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

import { loadSdk, repo } from './lib.mjs';

const { Client, StdioClientTransport } = await loadSdk('mcp-roundtrip');

const build = path.resolve(repo, process.argv[2] ?? 'build');
const n = Math.max(100, Number(process.argv[3] ?? 1000));

function pct(v, p) {
	const s = [...v].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
}

const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-bench-'));
await fsp.writeFile(path.join(dir, 'f.txt'), 'x'.repeat(1024));
const t0 = process.hrtime.bigint();
const transport = new StdioClientTransport({
	command: path.join(build, 'toolcell-fs'),
	args: [dir],
	stderr: 'inherit',
});
const client = new Client({ name: 'toolcell-bench', version: '0' });
await client.connect(transport);
const startUs = Number(process.hrtime.bigint() - t0) / 1000;
await client.listTools();

const args = { name: 'get_file_info', arguments: { path: path.join(dir, 'f.txt') } };
async function call() {
	const r = await client.callTool(args);
	if (r.isError)
		throw new Error(`call failed: ${JSON.stringify(r)}`);
}
async function run(gapMs, what = call) {
	const v = [];
	for (let i = 0; i < n; i++) {
		if (gapMs > 0)
			await sleep(gapMs);
		const t = process.hrtime.bigint();
		await what();
		v.push(Number(process.hrtime.bigint() - t) / 1000);
	}
	return v;
}

await run(0);		// warm up the client and the page cache
const ping = await run(5, () => client.ping());
const b2b = await run(0);
const apart = await run(5);
await client.close();

/* The same calls through a server that keeps an audit log. */
async function audited(sync) {
	const pol = path.join(dir, `audit-${sync}.policy`);
	await fsp.writeFile(pol, `allow read ${dir}\naudit ${dir}/audit-${sync}.log\n`
	    + `audit-sync ${sync}\n`, { mode: 0o600 });
	const t = new StdioClientTransport({
		command: path.join(build, 'toolcell-fs'),
		args: ['--policy', pol],
		stderr: 'inherit',
	});
	const c = new Client({ name: 'toolcell-bench', version: '0' });
	await c.connect(t);
	const one = async () => {
		const r = await c.callTool(args);
		if (r.isError)
			throw new Error(`call failed: ${JSON.stringify(r)}`);
	};
	await run(0, one);
	const v = await run(5, one);
	await c.close();
	return v;
}
const auditNone = await audited('none');
const auditEvery = await audited('every');
await fsp.rm(dir, { recursive: true, force: true });

console.log(`${n} requests per row, uid ${process.getuid()}\n`);
console.log('| row                         |    p50 us |    p99 us |');
console.log('|-----------------------------|----------:|----------:|');
const row = (name, v) => console.log(`| ${name.padEnd(27)} | ${pct(v, 50).toFixed(0).padStart(9)} | ${pct(v, 99).toFixed(0).padStart(9)} |`);
row('ping, 5 ms apart', ping);
row('back to back', b2b);
row('5 ms apart', apart);
row('5 ms apart, audit log', auditNone);
row('5 ms apart, audit + fsync', auditEvery);
console.log(`\nspawn to initialize result: ${(startUs / 1000).toFixed(1)} ms`);
