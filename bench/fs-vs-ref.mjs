// fs-vs-ref.mjs: toolcell-fs beside the reference filesystem server
// (@modelcontextprotocol/server-filesystem from npm), both driven by the
// official MCP client SDK over stdio, on one generated tree, in one run.
//
//   node bench/fs-vs-ref.mjs [BUILD]                      (from the repo root)
//   BENCH_QUICK=1 nice node bench/fs-vs-ref.mjs build      (few iterations)
//
// The reference server is pinned by bench/ref/package.json and
// bench/ref/package-lock.json; this script runs `npm ci` there when it is
// not installed yet (make test never does).  It is started as
// `node bench/ref/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js DIR`,
// toolcell-fs as `BUILD/toolcell-fs --policy P`, P saying `allow write DIR`.
//
// Scenarios: cold start (spawn to the initialize result, fresh processes),
// then, through one long-lived process of each server, read 1 KiB, read
// 10 MiB, list 10,000 entries, search names in a 50,000-file tree, the
// directory tree of 5,000 entries and write 1 KiB (again through a second
// toolcell-fs whose policy says write-sync none: no fsync, as the
// reference writes); last, the peak RSS
// (VmHWM) of each server process.  Each scenario runs its iterations in two
// rounds, toolcell-fs then the reference then toolcell-fs then the
// reference, so that both see the same load on a shared machine.  Every
// timed call is preceded by a pause of BENCH_GAP_MS (default 5 ms) for both
// servers: a client that does anything between calls.  A tool that
// toolcell-fs does not list yet is reported as not offered, not as a
// failure.
//
// Environment: BENCH_QUICK=1 (few iterations: a smoke run), BENCH_GAP_MS,
// BENCH_CAP_S (time cap per server and scenario, default 60, 20 when
// quick), BENCH_ONLY (scenario ids separated by commas, e.g. "cold,tree":
// the others are left out of the run and the table).  Prints a markdown
// table on stdout; progress goes to stderr.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

import { fmt, loadSdk, pct, pkgVersion, repo, sdkDir, vmHWM } from './lib.mjs';

const { Client, StdioClientTransport } = await loadSdk('fs-vs-ref');

const buildArg = process.argv[2] ?? 'build';
const ours = path.join(path.resolve(repo, buildArg), 'toolcell-fs');
if (!fs.existsSync(ours)) {
	console.error(`fs-vs-ref: ${ours} does not exist: run make first`);
	process.exit(1);
}

const quick = process.env.BENCH_QUICK === '1';
const gapMs = Number(process.env.BENCH_GAP_MS ?? 5);
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const runs = (id) => only === null || only.has(id);
const capMs = 1000 * Number(process.env.BENCH_CAP_S ?? (quick ? 20 : 60));
const CALL_TIMEOUT = 600_000;

const log = (...a) => console.error('fs-vs-ref:', ...a);

// ---------------------------------------------------------------- reference

const refDir = path.join(repo, 'bench/ref');
const refPkg = '@modelcontextprotocol/server-filesystem';
const refEntry = path.join(refDir, 'node_modules', refPkg, 'dist/index.js');

/* Installs the pinned reference server with npm ci, when missing or older
 * than the lockfile.  npm's output goes to stderr: stdout is the table. */
function installReference() {
	const stamp = path.join(refDir, 'node_modules/.package-lock.json');
	const lock = path.join(refDir, 'package-lock.json');
	if (fs.existsSync(stamp) && fs.existsSync(refEntry)
	    && fs.statSync(stamp).mtimeMs >= fs.statSync(lock).mtimeMs)
		return;
	log(`installing ${refPkg} into bench/ref (npm ci)`);
	execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'],
	    { cwd: refDir, stdio: ['ignore', 2, 2] });
}

installReference();
const refVersion = pkgVersion(path.join(refDir, 'node_modules', refPkg));
const pinned = JSON.parse(fs.readFileSync(path.join(refDir, 'package.json'), 'utf8'))
    .dependencies[refPkg];
if (refVersion !== pinned) {
	console.error(`fs-vs-ref: bench/ref has ${refPkg} ${refVersion}, not the pinned ${pinned}`);
	process.exit(1);
}
const refSdkVersion = pkgVersion(path.join(refDir, 'node_modules/@modelcontextprotocol/sdk'));
const clientSdkVersion = pkgVersion(sdkDir);

// ---------------------------------------------------------------- the tree

const KiB = 1024;
const MiB = 1024 * KiB;
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-vsref-')));
let cleaned = false;
function cleanup() {
	if (!cleaned)
		fs.rmSync(root, { recursive: true, force: true });
	cleaned = true;
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'])
	process.on(sig, () => { cleanup(); process.exit(130); });

const T = {
	small: path.join(root, 'small.txt'),
	big: path.join(root, 'big.txt'),
	list: path.join(root, 'list'),
	search: path.join(root, 'search'),
	tree: path.join(root, 'tree'),
	write: path.join(root, 'write'),
};
const EXPECT = { list: 10_000, searchFiles: 50_000, searchHits: 2_000, tree: 5_000 };

/* Text of |size| bytes in lines of 64 (63 characters and a newline). */
function lines(size) {
	const line = `${'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, 63)}\n`;
	return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

function generate() {
	const t0 = performance.now();
	fs.writeFileSync(T.small, lines(KiB));
	fs.writeFileSync(T.big, lines(10 * MiB));

	fs.mkdirSync(T.list);
	for (let i = 0; i < EXPECT.list; i++)
		fs.writeFileSync(path.join(T.list, `entry-${String(i).padStart(5, '0')}.txt`), '');

	// 50 x 40 directories of 25 files each, one of them a .md file.
	fs.mkdirSync(T.search);
	for (let a = 0; a < 50; a++) {
		for (let b = 0; b < 40; b++) {
			const d = path.join(T.search, `d${a}`, `s${b}`);
			fs.mkdirSync(d, { recursive: true });
			for (let c = 0; c < 25; c++)
				fs.writeFileSync(path.join(d, c === 7 ? `note-${c}.md` : `file-${c}.txt`), '');
		}
	}

	// 10 directories of 9 files and 10 subdirectories of 48 files each:
	// 10 + 90 + 100 + 4,800 = 5,000 entries.
	fs.mkdirSync(T.tree);
	for (let a = 0; a < 10; a++) {
		const d = path.join(T.tree, `dir${a}`);
		fs.mkdirSync(d);
		for (let f = 0; f < 9; f++)
			fs.writeFileSync(path.join(d, `top-${f}.txt`), '');
		for (let b = 0; b < 10; b++) {
			const s = path.join(d, `sub${b}`);
			fs.mkdirSync(s);
			for (let f = 0; f < 48; f++)
				fs.writeFileSync(path.join(s, `leaf-${f}.txt`), '');
		}
	}

	for (const side of ['ours', 'oursNoSync', 'ref'])
		fs.mkdirSync(path.join(T.write, side), { recursive: true });
	return performance.now() - t0;
}

log(`generating the tree under ${root}`);
const genMs = generate();
log(`generated in ${(genMs / 1000).toFixed(1)} s`);

const policy = path.join(os.tmpdir(), `toolcell-vsref-${process.pid}.policy`);
fs.writeFileSync(policy, `allow write ${root}\n`, { mode: 0o600 });
// The same with write-sync none: write_file without fsync, as the
// reference writes, for one row beside the default's.
const policyNoSync = path.join(os.tmpdir(), `toolcell-vsref-${process.pid}-nosync.policy`);
fs.writeFileSync(policyNoSync, `allow write ${root}\nwrite-sync none\n`, { mode: 0o600 });
process.on('exit', () => {
	fs.rmSync(policy, { force: true });
	fs.rmSync(policyNoSync, { force: true });
});

// ---------------------------------------------------------------- servers

const SIDES = {
	ours: { label: 'toolcell-fs', command: ours, args: ['--policy', policy] },
	oursNoSync: { label: 'toolcell-fs (write-sync none)', command: ours, args: ['--policy', policyNoSync] },
	ref: { label: 'reference', command: process.execPath, args: [refEntry, root] },
};

/* Spawns one server and connects the client; returns the time from the
 * spawn to the initialize result, in ms. */
async function start(side) {
	const s = SIDES[side];
	// The SDK drops a connection whose read buffer passes maxBufferSize
	// (10 MiB by default in 1.32.2): a 10 MiB file, escaped, is more.
	const transport = new StdioClientTransport({
		command: s.command, args: s.args, stderr: 'pipe', maxBufferSize: 256 * MiB,
	});
	let err = '';
	transport.stderr?.setEncoding('utf8');
	transport.stderr?.on('data', (d) => { if (err.length < 8192) err += d; });
	const client = new Client({ name: 'toolcell-bench-vsref', version: '0' });
	const t0 = performance.now();
	try {
		await client.connect(transport, { timeout: 60_000 });
	} catch (e) {
		e.message += `\n${s.label} stderr:\n${err}`;
		throw e;
	}
	const ms = performance.now() - t0;
	const exit = { at: null };
	transport._process?.once('exit', (code, signal) => {
		Object.assign(exit, { at: performance.now(), code, signal });
	});
	return { client, transport, pid: transport.pid, ms, exit, stderr: () => err };
}

// ---------------------------------------------------------------- measuring

/* Integer arguments of |tool|'s input schema that bound its output (max_*,
 * limit, depth, cap), raised to the schema's maximum so that the whole
 * answer comes back; |fixed| wins. */
function raiseCaps(tool, fixed) {
	const args = {};
	for (const [name, p] of Object.entries(tool?.inputSchema?.properties ?? {})) {
		if ((p.type === 'integer' || p.type === 'number')
		    && /^max|_max$|limit|depth|cap/i.test(name))
			args[name] = p.maximum ?? 1_000_000;
	}
	return { ...args, ...fixed };
}

/* Entries of a tree: the reference's {name, type, children} objects, or
 * toolcell-fs's, where a regular file is a bare name. */
function countTree(nodes) {
	let n = 0;
	for (const x of Array.isArray(nodes) ? nodes : [])
		n += typeof x === 'string' ? 1 : 1 + countTree(x?.children);
	return n;
}

function text(r) {
	return r?.content?.find((c) => c.type === 'text')?.text ?? '';
}

const bigSize = fs.statSync(T.big).size;
const writeBody = lines(KiB);

/*
 * The scenarios.  n: timed calls per server (full, quick); warm: untimed
 * calls first; call(side, tool, i): the request; check(side, result):
 * undefined, or a note on a result that is not the whole answer.
 */
const SCENARIOS = [
	{
		id: 'read-small', title: 'read 1 KiB (read_text_file)', tool: 'read_text_file',
		n: [1000, 100], warm: [20, 5], target: 1, targetText: '≥ 1',
		call: () => ({ path: T.small }),
		check: (side, r) => (r.structuredContent?.truncated === true
		    || !text(r).includes(writeBody.slice(0, 200)) ? 'not the whole file' : undefined),
	},
	{
		id: 'read-big', title: 'read 10 MiB (read_text_file)', tool: 'read_text_file',
		n: [30, 3], warm: [2, 1], targetText: '—',
		call: (side) => (side === 'ours'
		    ? { path: T.big, max_bytes: bigSize + 64 * KiB } : { path: T.big }),
		check: (side, r) => (r.structuredContent?.truncated === true
		    || text(r).length < bigSize ? `${text(r).length} of ${bigSize} bytes in the text` : undefined),
	},
	{
		id: 'list', title: 'list 10,000 entries (list_directory)', tool: 'list_directory',
		n: [200, 20], warm: [5, 2], targetText: '—',
		call: (side) => (side === 'ours' ? { path: T.list, limit: EXPECT.list } : { path: T.list }),
		check: (side, r) => {
			const n = (text(r).match(/entry-\d{5}\.txt/g) ?? []).length;
			return r.structuredContent?.truncated === true || n !== EXPECT.list
			    ? `${n} of ${EXPECT.list} entries in the text` : undefined;
		},
	},
	{
		id: 'search', title: 'search names, 50,000 files (search_files)', tool: 'search_files',
		n: [5, 1], warm: [1, 0], target: 5, targetText: '≥ 5',
		call: (side, tool) => (side === 'ours'
		    ? raiseCaps(tool, { path: T.search, pattern: '**/*.md' })
		    : { path: T.search, pattern: '**/*.md' }),
		check: (side, r) => {
			const n = (text(r).match(/note-7\.md/g) ?? []).length;
			return r.structuredContent?.truncated === true || n !== EXPECT.searchHits
			    ? `${n} of ${EXPECT.searchHits} matches in the text` : undefined;
		},
	},
	{
		id: 'tree', title: 'directory tree, 5,000 entries (directory_tree)', tool: 'directory_tree',
		n: [100, 10], warm: [2, 1], target: 5, targetText: '≥ 5',
		call: (side, tool) => (side === 'ours'
		    ? raiseCaps(tool, { path: T.tree }) : { path: T.tree }),
		check: (side, r) => {
			let n;
			if (side === 'ref')
				n = countTree(JSON.parse(text(r)));
			else
				n = Math.min(countTree(r.structuredContent?.tree),
				    (text(r).match(/leaf-\d+\.txt|top-\d\.txt|dir\d|sub\d/g) ?? []).length);
			return r.structuredContent?.truncated === true || n < EXPECT.tree
			    ? `${n} of ${EXPECT.tree} entries` : undefined;
		},
	},
	{
		id: 'write-small', title: 'write 1 KiB (write_file)', tool: 'write_file',
		n: [1000, 100], warm: [20, 5], target: 1, targetText: '≥ 1',
		call: (side, tool, i) => ({ path: path.join(T.write, side, `w${i % 100}.txt`), content: writeBody }),
		after: (side) => (fs.readFileSync(path.join(T.write, side, 'w0.txt'), 'utf8') === writeBody
		    ? undefined : 'the file written is not the content sent'),
	},
	{
		// toolcell-fs with write-sync none: no fsync, as the reference.
		id: 'write-nosync', title: 'write 1 KiB, toolcell-fs with write-sync none (write_file)',
		tool: 'write_file', oursSide: 'oursNoSync',
		n: [1000, 100], warm: [20, 5], target: 1, targetText: '≥ 1',
		call: (side, tool, i) => ({ path: path.join(T.write, side, `w${i % 100}.txt`), content: writeBody }),
		after: (side) => (fs.readFileSync(path.join(T.write, side, 'w0.txt'), 'utf8') === writeBody
		    ? undefined : 'the file written is not the content sent'),
	},
];

/* The server that plays |side| ('ours' or 'ref') in scenario |sc|. */
const serverOf = (sc, side) => (side === 'ours' ? sc.oursSide ?? 'ours' : side);

/* Times |n| calls of one scenario on one server, adding to |r| (null for
 * untimed warm-up calls); stops when r.spent passes the time cap. */
async function timeCalls(srv, side, sc, n, first, r) {
	for (let i = 0; i < n; i++) {
		if (r && r.spent > capMs) {
			r.capped = true;
			return;
		}
		if (gapMs > 0)
			await sleep(gapMs);
		const args = sc.call(side, srv.tools.get(sc.tool), first + i);
		const t = performance.now();
		const res = await srv.client.callTool({ name: sc.tool, arguments: args }, undefined,
		    { timeout: CALL_TIMEOUT, maxTotalTimeout: CALL_TIMEOUT });
		const ms = performance.now() - t;
		if (res.isError)
			throw new Error(`tool error: ${text(res).slice(0, 200)}`);
		if (r) {
			r.samples.push(ms);
			r.spent += ms + gapMs;
			if (r.samples.length === 1 && sc.check) {
				const note = sc.check(side, res);
				if (note)
					srv.notes.push(`${sc.title}: ${note}`);
			}
		}
	}
}

// ---------------------------------------------------------------- the run

for (const id of only ?? []) {
	if (id !== 'cold' && !SCENARIOS.some((c) => c.id === id)) {
		console.error(`fs-vs-ref: BENCH_ONLY: no scenario '${id}' (cold, ${SCENARIOS.map((c) => c.id).join(', ')})`);
		process.exit(2);
	}
}

const results = new Map();	// scenario id -> {ours, ref}, each {samples, capped} | {na} | {error}
const startedAt = new Date();
const loadBefore = os.loadavg();

// Cold start: fresh processes, alternating, nothing called.
if (runs('cold')) {
	const n = quick ? 5 : 20;
	const cold = { ours: { samples: [] }, ref: { samples: [] } };
	log(`cold start x${n}`);
	for (let i = 0; i < n + 1; i++) {
		for (const side of ['ours', 'ref']) {
			const s = await start(side);
			if (i > 0)	// the first spawn of each warms the page cache
				cold[side].samples.push(s.ms);
			await s.client.close();
		}
	}
	results.set('cold', cold);
}

const srv = {};
for (const side of ['ours', 'ref', 'oursNoSync']) {
	const s = await start(side);
	const listed = await s.client.listTools(undefined, { timeout: 60_000 });
	s.tools = new Map(listed.tools.map((t) => [t.name, t]));
	s.info = s.client.getServerVersion();
	s.notes = [];
	s.idleRss = vmHWM(s.pid);
	srv[side] = s;
}

const sentArgs = [];
for (const sc of SCENARIOS.filter((c) => runs(c.id))) {
	const n = sc.n[quick ? 1 : 0];
	const warm = sc.warm[quick ? 1 : 0];
	const res = {};
	for (const side of ['ours', 'ref']) {
		if (!srv[serverOf(sc, side)].tools.has(sc.tool))
			res[side] = { na: true };
		else
			res[side] = { samples: [], spent: 0, capped: false };
	}
	if (!res.ours.na) {
		const o = serverOf(sc, 'ours');
		const shown = { ...sc.call(o, srv[o].tools.get(sc.tool), 0) };
		if (typeof shown.content === 'string')
			shown.content = `<${shown.content.length} bytes>`;
		for (const k of ['path'])
			if (typeof shown[k] === 'string')
				shown[k] = path.relative(root, shown[k]) || '.';
		sentArgs.push(`${sc.tool} ${JSON.stringify(shown)}`);
	}
	log(`${sc.id}: ${warm} warm-up + ${n} calls each`);
	// Two rounds, each side in turn; the second round continues the file
	// numbering of writes.
	const half = [Math.ceil(n / 2), n - Math.ceil(n / 2)];
	let first = 0;
	for (const side of ['ours', 'ref']) {
		if (res[side].na)
			continue;
		try {
			await timeCalls(srv[serverOf(sc, side)], serverOf(sc, side), sc, warm, 0, null);
		} catch (e) {
			res[side] = { error: e.message };
		}
	}
	for (const count of half) {
		for (const side of ['ours', 'ref']) {
			const r = res[side];
			if (r.na || r.error || r.capped || count === 0)
				continue;
			try {
				await timeCalls(srv[serverOf(sc, side)], serverOf(sc, side), sc, count, first, r);
			} catch (e) {
				res[side] = { error: e.message };
			}
		}
		first += count;
	}
	for (const side of ['ours', 'ref']) {
		if (sc.after && res[side].samples?.length) {
			const note = sc.after(serverOf(sc, side));
			if (note)
				srv[serverOf(sc, side)].notes.push(`${sc.title}: ${note}`);
		}
	}
	results.set(sc.id, res);
}

for (const side of Object.keys(srv)) {
	if (srv[side].exit.at !== null)
		srv[side].notes.push(`the server exited during the run (${srv[side].exit.code ?? srv[side].exit.signal}); stderr: ${srv[side].stderr().trim().slice(-300)}`);
	srv[side].peakRss = vmHWM(srv[side].pid);
	await srv[side].client.close();
}
const loadAfter = os.loadavg();
cleanup();

// ---------------------------------------------------------------- the table

function cell(r) {
	if (r.na)
		return 'n/a (tool not offered)';
	if (r.error)
		return `**failed**: ${r.error.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 120)}`;
	return `${fmt(pct(r.samples, 50))} / ${fmt(pct(r.samples, 99))}`;
}

function nCell(r) {
	if (r.na || r.error)
		return '—';
	return `${r.samples.length}${r.capped ? '*' : ''}`;
}

function verdict(ratio, target) {
	if (target === undefined || !Number.isFinite(ratio))
		return '—';
	return ratio >= target ? 'met' : '**not met**';
}

const rows = [];
const row = (...c) => rows.push(`| ${c.join(' | ')} |`);
row('scenario', 'N ours / ref', 'toolcell-fs p50 / p99 ms', 'reference p50 / p99 ms',
    'ref / ours (p50)', 'target', 'verdict');
row('---', '---:', '---:', '---:', '---:', '---:', '---');
const all = [
	{ id: 'cold', title: 'cold start (spawn to initialize result)', target: 20, targetText: '≥ 20' },
	...SCENARIOS,
];
for (const sc of all.filter((c) => results.has(c.id))) {
	const r = results.get(sc.id);
	let ratio = NaN;
	if (r.ours.samples?.length && r.ref.samples?.length)
		ratio = pct(r.ref.samples, 50) / pct(r.ours.samples, 50);
	row(sc.title, `${nCell(r.ours)} / ${nCell(r.ref)}`, cell(r.ours), cell(r.ref),
	    Number.isFinite(ratio) ? `${fmt(ratio)}×` : '—', sc.targetText, verdict(ratio, sc.target));
}
const rssRow = (title, a, b) => {
	const ratio = b / a;
	row(title, '1 / 1', `${fmt(a)} MiB`, `${fmt(b)} MiB`, `${fmt(ratio)}×`, '≥ 10', verdict(ratio, 10));
};
rssRow('peak RSS, idle (after initialize, tools/list)', srv.ours.idleRss, srv.ref.idleRss);
rssRow(only === null ? 'peak RSS, after every scenario above' : 'peak RSS, after the scenarios above',
    srv.ours.peakRss, srv.ref.peakRss);

const envShown = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v} `).join('');
const niceness = os.getPriority();
const cmd = `${envShown}${niceness ? `nice -n ${niceness} ` : ''}node bench/fs-vs-ref.mjs ${buildArg}`;
let cpu = os.cpus()[0]?.model?.trim() ?? '?';
cpu = cpu.replace(/\s+/g, ' ');

const out = [];
out.push(`${quick ? 'Smoke run (BENCH_QUICK=1: few iterations; not a measurement)' : 'Full run'}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
out.push('');
out.push(`- command: \`${cmd}\` (from the repo root; \`make bench\` runs it after the runner figures)`);
out.push(`- machine: ${os.availableParallelism()} CPUs (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, node ${process.version}, uid ${process.getuid()}`);
out.push(`- load average (1 min) before / after: ${loadBefore[0].toFixed(2)} / ${loadAfter[0].toFixed(2)}`);
out.push(`- client: @modelcontextprotocol/sdk ${clientSdkVersion} (tests/e2e/sdk); reference: ${refPkg} ${refVersion} (serverInfo ${srv.ref.info?.name} ${srv.ref.info?.version}, its SDK ${refSdkVersion}), \`node ${path.relative(repo, refEntry)} DIR\`; toolcell-fs: serverInfo ${srv.ours.info?.name} ${srv.ours.info?.version}, \`${path.relative(repo, ours)} --policy P\` with P = \`allow write DIR\` (built-in deny rules on; one row adds \`write-sync none\`)`);
out.push(`- tree generated in ${(genMs / 1000).toFixed(1)} s under ${os.tmpdir()} and removed after; ${gapMs} ms pause before every timed call, for both servers; time cap ${capMs / 1000} s per server and scenario (\`*\` after N: stopped by it)`);
out.push(`- toolcell-fs arguments: ${sentArgs.length ? sentArgs.map((s) => `\`${s}\``).join(', ') : '(none)'}; the reference gets the same without them`);
out.push('');
out.push(...rows);
out.push('');
out.push('ref / ours: the reference\'s p50 over toolcell-fs\'s (peak RSS: the reference\'s over toolcell-fs\'s); above 1, toolcell-fs is faster or smaller. Peak RSS is VmHWM of the process the client started, read just before closing it: for toolcell-fs the server process only, not its spawner or the children that run the calls; for the reference the one node process.');
const notes = [];
for (const side of Object.keys(srv))
	for (const note of srv[side].notes)
		notes.push(`- ${SIDES[side].label}: ${note}`);
if (notes.length) {
	out.push('');
	out.push('Results that were not the whole answer (first timed call checked):');
	out.push('');
	out.push(...notes);
}
console.log(out.join('\n'));
