// lib.mjs: what the benchmarks that drive servers through the official
// client share (fs-vs-ref.mjs, mcp-roundtrip.mjs, read-body.mjs,
// shell-ab.mjs, shell-cpu.mjs, shell-vs-anchors.mjs, sqlite-vs-anchors.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/* The repository's root. */
export const repo = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
/* The official MCP client SDK, as the tests install it (tests/e2e/sdk). */
export const sdkDir = path.join(repo, 'tests/e2e/sdk/node_modules/@modelcontextprotocol/sdk');

/*
 * Loads the client of the SDK in sdkDir: its Client, StdioClientTransport
 * and ResultSchema.  When it is not installed, says so as the script
 * |name| and what to run, and exits 1.
 */
export async function loadSdk(name) {
	const sdk = path.join(sdkDir, 'dist/esm');
	if (!fs.existsSync(sdk)) {
		console.error(`${name}: ${sdkDir} is missing: run make bench (or npm ci in tests/e2e/sdk)`);
		process.exit(1);
	}
	const { Client } = await import(path.join(sdk, 'client/index.js'));
	const { StdioClientTransport } = await import(path.join(sdk, 'client/stdio.js'));
	const { ResultSchema } = await import(path.join(sdk, 'types.js'));
	return { Client, StdioClientTransport, ResultSchema };
}

/* The version in the package.json of |dir|. */
export function pkgVersion(dir) {
	return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

/* The |p|th percentile of the values |v| (nearest rank). */
export function pct(v, p) {
	const s = [...v].sort((a, b) => a - b);
	return s[Math.max(0, Math.ceil((s.length * p) / 100) - 1)];
}

/* A figure with three significant digits or so; '?' for none. */
export function fmt(v) {
	if (!Number.isFinite(v))
		return '?';
	if (v >= 100)
		return v.toFixed(0);
	if (v >= 10)
		return v.toFixed(1);
	return v.toFixed(2);
}

/* Peak resident set of process |pid| (VmHWM), in MiB; NaN once it is
 * gone. */
export function vmHWM(pid) {
	if (!fs.existsSync(`/proc/${pid}/status`))
		return NaN;
	const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
	return m ? Number(m[1]) / 1024 : NaN;
}

/* |pid| and its descendants. */
export function tree(pid) {
	const out = [pid];
	for (let i = 0; i < out.length; i++) {
		let kids = '';
		try {
			for (const t of fs.readdirSync(`/proc/${out[i]}/task`))
				kids += ` ${fs.readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8')}`;
		} catch { /* gone */ }
		out.push(...kids.split(/\s+/).filter(Boolean).map(Number));
	}
	return out;
}

/* Proportional set size of |pid|'s whole tree, in MiB, and its size. */
export function treePss(pid) {
	let kb = 0;
	const pids = tree(pid);
	for (const p of pids) {
		try {
			kb += Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
		} catch { /* gone */ }
	}
	return { mib: kb / 1024, n: pids.length };
}

/*
 * Times each side of |ids| in turn: |warm| operations each first, then
 * |n| in two rounds, every side in turn in each, so that all see the same
 * load.  |time(id, count, first, record)| runs |count| operations,
 * numbered from |first|, into res[id], keeping their times when |record|;
 * a throw makes res[id] { error }.  A side whose res has na, error or
 * capped set is passed over.
 */
export async function rounds(ids, res, warm, n, time) {
	const attempt = async (id, count, first, record) => {
		try {
			await time(id, count, first, record);
		} catch (e) {
			res[id] = { error: e.message };
		}
	};
	for (const id of ids)
		if (!res[id].na)
			await attempt(id, warm, 0, false);
	let first = 0;
	for (const count of [Math.ceil(n / 2), n - Math.ceil(n / 2)]) {
		for (const id of ids) {
			const r = res[id];
			if (!r.na && !r.error && !r.capped && count > 0)
				await attempt(id, count, first, true);
		}
		first += count;
	}
}

/* A cell of a markdown table: no pipe, no line break. */
export const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ');
/* The p50 of a result's samples, NaN for none. */
export const p50 = (r) => (r?.samples?.length ? pct(r.samples, 50) : NaN);
/* A result with samples, no wrong answer and no error. */
export const passed = (r) => r?.samples?.length > 0 && !r.wrong && !r.error;

/*
 * The shell benchmarks' 5 MiB output: 81,920 numbered lines of 64 bytes,
 * so that a line lost, cut or moved shows.
 */
export function bigText() {
	const tail = `${'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.slice(0, 57)}\n`;
	return Array.from({ length: 81_920 }, (_, i) => `${String(i).padStart(5, '0')} ${tail}`).join('');
}

/*
 * The files of the shell benchmarks that measure toolcell-shell alone: a
 * new directory named from |prefix| in the system's temporary directory,
 * removed at exit, holding data/big.txt (bigText()), a policy that lets
 * calls run /bin/echo and /bin/cat and read data, and an empty home.
 */
export function shellFixture(prefix) {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
	process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
	const BIG = bigText();
	const data = path.join(root, 'data');
	fs.mkdirSync(data);
	const big = path.join(data, 'big.txt');
	fs.writeFileSync(big, BIG);
	const policy = path.join(root, 'shell.policy');
	fs.writeFileSync(policy, `allow read ${data}\n\n[shell]\nprogram /bin/echo\nprogram /bin/cat\n`, { mode: 0o600 });
	const home = path.join(root, 'home');
	fs.mkdirSync(home);
	return { root, BIG, data, big, policy, home };
}
