// shell-cpu.mjs: where the CPU of toolcell-shell's calls goes, beside the
// calibration server (bench/shell-floor.mjs), through the official client:
// for `echo hi` back to back and `cat` of 5 MiB, the client's own CPU per
// call (process.cpuUsage()) and the server's, its whole process tree
// (utime + stime of each process, and of the children each has reaped),
// with the wall time.  CPU, not wall time, is what tells a change apart on
// a shared machine.
//
//   node bench/shell-cpu.mjs [BUILD]          (from the repo root)
//
// Environment: CPU_N_ECHO (calls, default 1000), CPU_N_BIG (default 40),
// CPU_TMPDIR (toolcell-shell's TMPDIR, where its scratch base goes),
// CPU_SERVERS (toolcell,floor), CPU_ONLY (echo,big), CPU_PARTS=1 (also
// each long-lived process's own CPU and its reaped children's), CPU_WRAP (a command
// and its arguments that run the server: `perf record -g -o F --`).  Prints one line per
// server and scenario: p50 wall, and client and server CPU per call in ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

import { fmt, loadSdk, pct, repo, shellFixture, tree } from './lib.mjs';

const { Client, StdioClientTransport } = await loadSdk('shell-cpu');

const ours = path.join(path.resolve(repo, process.argv[2] ?? 'build'), 'toolcell-shell');
const nEcho = Number(process.env.CPU_N_ECHO ?? 1000);
const nBig = Number(process.env.CPU_N_BIG ?? 40);
const servers = (process.env.CPU_SERVERS ?? 'toolcell,floor').split(',');
const only = (process.env.CPU_ONLY ?? 'echo,big').split(',');
const TICK_MS = 1000 / 100;	/* USER_HZ */

const { BIG, big: bigPath, policy, home } = shellFixture('toolcell-shcpu-');

const SIDES = {
	toolcell: {
		spawn: {
			command: ours, args: ['--policy', policy],
			env: { PATH: '/usr/bin:/bin', HOME: home, ...(process.env.CPU_TMPDIR ? { TMPDIR: process.env.CPU_TMPDIR } : {}) },
		},
		echo: { argv: ['/bin/echo', 'hi'] },
		big: { argv: ['/bin/cat', bigPath], max_output_bytes: BIG.length },
		out: (r) => r.structuredContent?.stdout,
	},
	floor: {
		spawn: { command: process.execPath, args: [path.join(repo, 'bench/shell-floor.mjs'), bigPath], env: { PATH: '/usr/bin:/bin' } },
		echo: { argv: ['echo', 'hi'] },
		big: { argv: ['cat', bigPath] },
		out: (r) => r.content?.[0]?.text,
	},
};

/* The fields of /proc/PID/stat after the name (the state is [0]), or
 * null once the process is gone.  The name may hold anything: its last
 * ')' ends it. */
function statFields(pid) {
	try {
		const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return s.slice(s.lastIndexOf(')') + 2).split(' ');
	} catch {
		return null;
	}
}

/* Minor page faults of process |pid|: its own and its reaped children's. */
function faults(pid) {
	const f = statFields(pid);
	return f ? Number(f[7]) + Number(f[8]) : 0;
}

/* CPU ticks of process |pid|: its own and those of the children it has
 * reaped. */
function ticks(pid) {
	const f = statFields(pid);
	return f ? Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) : 0;
}

/* Ticks of each long-lived process of the tree: [own, reaped] by pid. */
function parts(pid) {
	const out = new Map();
	for (const p of tree(pid)) {
		const f = statFields(p);
		if (f)
			out.set(p, [Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])]);
	}
	return out;
}

/* The tree's CPU in ms: every process alive now, with what each reaped.
 * A process that ends between two readings without being reaped by one
 * of the tree is missed; toolcell-shell's children are the server's own
 * (CLONE_PARENT), so the server's reaped figure holds them. */
const treeMs = (pid) => tree(pid).reduce((a, p) => a + ticks(p), 0) * TICK_MS;

for (const id of servers) {
	const side = SIDES[id];
	// CPU_WRAP: a command that runs the server (perf record -g --): its
	// CPU is then the wrapper's tree's.
	const wrap = process.env.CPU_WRAP?.split(' ').filter(Boolean) ?? [];
	const spawn = wrap.length === 0 ? side.spawn
	    : { ...side.spawn, command: wrap[0], args: [...wrap.slice(1), side.spawn.command, ...side.spawn.args] };
	const transport = new StdioClientTransport({ ...spawn, stderr: 'inherit', maxBufferSize: 256 << 20 });
	const client = new Client({ name: 'toolcell-bench-cpu', version: '0' });
	await client.connect(transport);
	await client.listTools();
	const pid = transport.pid;
	for (const sc of only) {
		const n = sc === 'echo' ? nEcho : nBig;
		const want = sc === 'echo' ? 'hi\n' : BIG;
		const call = async () => {
			const r = await client.callTool({ name: 'run_command', arguments: side[sc] }, undefined, { timeout: 600_000 });
			if (side.out(r) !== want)
				throw new Error(`${id} ${sc}: wrong answer`);
		};
		for (let i = 0; i < Math.min(20, n / 10); i++)
			await call();
		const walls = [];
		const c0 = process.cpuUsage();
		const s0 = treeMs(pid);
		const f0 = tree(pid).reduce((a, p) => a + faults(p), 0);
		const p0 = parts(pid);
		for (let i = 0; i < n; i++) {
			const t = performance.now();
			await call();
			walls.push(performance.now() - t);
		}
		const c = process.cpuUsage(c0);
		const s = treeMs(pid) - s0;
		const pf = tree(pid).reduce((a, p) => a + faults(p), 0) - f0;
		const p1 = parts(pid);
		const by = [];
		for (const [p, [own, reaped]] of p1) {
			const [own0, reaped0] = p0.get(p) ?? [null, null];
			if (own0 === null)
				continue;	/* a ready child, new since */
			const role = p === pid ? 'server' : `pid ${p}`;
			by.push(`${role} own ${fmt((own - own0) * TICK_MS / n)} reaped ${fmt((reaped - reaped0) * TICK_MS / n)}`);
		}
		console.log(`${id.padEnd(8)} ${sc.padEnd(4)} n=${n} p50 ${fmt(pct(walls, 50))} ms, client CPU ${fmt((c.user + c.system) / 1000 / n)} ms/call (user ${fmt(c.user / 1000 / n)}), server tree CPU ${fmt(s / n)} ms/call, ${fmt(pf / n)} faults/call, load ${os.loadavg()[0].toFixed(2)}`);
		if (process.env.CPU_PARTS === '1')
			console.log(`   per call, ms: ${by.join('; ')}`);
	}
	await client.close();
}
