// shell-ab.mjs: two builds of toolcell-shell, A and B, through one
// official client, their calls in turn (A B, then B A, ...), so that both
// see the same load and the same client: on a shared machine a change
// of a few milliseconds shows in the paired differences where it is lost
// between separate runs.
//
//   node bench/shell-ab.mjs BUILD_A BUILD_B [big|echo] [N]   (from the repo root)
//
// big: `cat` of 5 MiB (81,920 numbered lines of 64 bytes), checked byte
// for byte; echo: `echo hi` (each server then gets a call every other
// call: not back to back).  N pairs, 40 by default, after 3 warm-up
// pairs.  Prints each build's p50 and the p50 of B's time minus A's.
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

import { fmt, loadSdk, pct, repo, shellFixture } from './lib.mjs';

const { Client, StdioClientTransport } = await loadSdk('shell-ab');

const [A, B, scen = 'big', N = '40'] = process.argv.slice(2);
if (!A || !B || !['big', 'echo'].includes(scen)) {
	console.error('usage: node bench/shell-ab.mjs BUILD_A BUILD_B [big|echo] [N]');
	process.exit(2);
}
const n = Number(N);
const { BIG, big, policy, home } = shellFixture('toolcell-shab-');
const args = scen === 'big' ? { argv: ['/bin/cat', big], max_output_bytes: BIG.length } : { argv: ['/bin/echo', 'hi'] };
const want = scen === 'big' ? BIG : 'hi\n';

async function start(build) {
	const transport = new StdioClientTransport({
		command: path.join(path.resolve(repo, build), 'toolcell-shell'), args: ['--policy', policy],
		env: { PATH: '/usr/bin:/bin', HOME: home }, stderr: 'ignore', maxBufferSize: 256 << 20,
	});
	const client = new Client({ name: 'toolcell-bench-ab', version: '0' });
	await client.connect(transport);
	await client.listTools();
	return client;
}

const clients = [await start(A), await start(B)];
const ms = [[], []];
for (let i = 0; i < n + 3; i++) {
	for (const k of i % 2 ? [1, 0] : [0, 1]) {
		const t = performance.now();
		const r = await clients[k].callTool({ name: 'run_command', arguments: args }, undefined, { timeout: 600_000 });
		const took = performance.now() - t;
		if (r.structuredContent?.stdout !== want)
			throw new Error(`${k ? B : A}: not the whole output`);
		if (i >= 3)
			ms[k].push(took);
	}
}
const diff = ms[0].map((a, i) => ms[1][i] - a);
console.log(`${scen}, ${n} pairs: ${A} p50 ${fmt(pct(ms[0], 50))} ms, ${B} p50 ${fmt(pct(ms[1], 50))} ms, `
    + `${B} - ${A} p50 ${fmt(pct(diff, 50))} ms, load ${os.loadavg()[0].toFixed(2)}`);
for (const c of clients)
	await c.close();
