// shell-vs-anchors.mjs: toolcell-shell beside the shell MCP servers people
// use (from npm), all driven by the official MCP client SDK over stdio, in
// one run.
//
//   node bench/shell-vs-anchors.mjs [BUILD]                  (from the repo root)
//   BENCH_QUICK=1 nice node bench/shell-vs-anchors.mjs build  (few iterations)
//
// The anchors are pinned by bench/shell-anchors/package.json and
// bench/shell-anchors/package-lock.json; this script runs `npm ci` there
// when they are not installed yet (make test never does):
//
//   desktop-commander  @wonderwhy-er/desktop-commander, `node dist/index.js
//                      --no-onboarding`, its own empty HOME, telemetry off
//                      (environment and set_config_value); tool
//                      start_process {command, timeout_ms}, then
//                      read_process_output {pid, offset, length} where the
//                      first answer is not the whole output
//   commands           mcp-server-commands, `node build/index.js`; tool
//                      run_command {command}
//   codex native       @openai/codex-shell-tool-mcp's native server,
//                      `vendor/<triple>/codex-exec-mcp-server --execve
//                      <its wrapper> --bash <its bash for this system>`
//                      (what the package's node launcher runs), told
//                      `codex/sandbox-state/update` {danger-full-access}
//                      once, as the Codex CLI does when it runs without a
//                      sandbox; tool shell {command, workdir, login: false}
//
// beside a calibration server, bench/shell-floor.mjs, which answers from
// memory and runs nothing (the cost of the client, the pipes and the
// payload alone), and toolcell-shell as `BUILD/toolcell-shell --policy
// P`, P allowing /bin/echo and /bin/cat and reading the generated
// directory; tool run_command {argv}.  Every anchor runs unconfined, as
// people run them; toolcell-shell runs every program confined.  When
// BUILD/toolcell-shell does not exist yet, the others are measured alone.
//
// Scenarios: cold start (spawn to the initialize result, fresh processes,
// alternating between servers); then, through one long-lived process of
// each server, `echo hi` with a pause of BENCH_GAP_MS (default 5 ms)
// before every call, `echo hi` back to back, and `cat` of a 5 MiB file
// (81,920 numbered lines of 64 bytes) whose output is checked byte for
// byte; last, the peak RSS (VmHWM) of each server process, and the
// proportional set size of its whole process tree when idle.  Every
// answer is checked, warm-up included, and one that is not the whole
// output counts as wrong: a server with a wrong answer has not passed,
// and its times are shown for reference only.  Each scenario runs in two
// rounds, every server in turn, so that all see the same load on a shared
// machine.
//
// Environment: BENCH_QUICK=1 (few iterations: a smoke run), BENCH_GAP_MS,
// BENCH_CAP_S (time cap per server and scenario, default 60, 20 when
// quick), BENCH_ONLY (scenario ids separated by commas: cold, echo-gap,
// echo-b2b, big, rss), BENCH_SERVERS (server ids separated by commas:
// toolcell, repos, floor, dc, commands, codex), BENCH_LANG (LANG in every
// server's environment, which the anchors pass on to the shell they
// run; unset by default, as hosts start servers.  toolcell-shell's
// programs get LC_CTYPE=C.utf8 (C.UTF-8 before glibc 2.35) whatever the
// server's environment holds: loading that category is about 0.07 ms of
// an `echo`'s start, and all twelve of a LANG of that locale 0.16 ms).  Prints markdown
// on stdout; progress goes to stderr.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

import { bigText, esc, fmt, loadSdk, p50, passed, pct, pkgVersion, repo, rounds, sdkDir, treePss, vmHWM } from './lib.mjs';

const { Client, StdioClientTransport, ResultSchema } = await loadSdk('shell-vs-anchors');

const buildArg = process.argv[2] ?? 'build';
const ours = path.join(path.resolve(repo, buildArg), 'toolcell-shell');

const quick = process.env.BENCH_QUICK === '1';
const gapMs = Number(process.env.BENCH_GAP_MS ?? 5);
const capMs = 1000 * Number(process.env.BENCH_CAP_S ?? (quick ? 20 : 60));
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const runs = (id) => only === null || only.has(id);
const CALL_TIMEOUT = 600_000;
const KiB = 1024;
const MiB = 1024 * KiB;

const log = (...a) => console.error('shell-vs-anchors:', ...a);

// ---------------------------------------------------------------- anchors

const anchorDir = path.join(repo, 'bench/shell-anchors');
const nm = path.join(anchorDir, 'node_modules');
const PKG = {
	dc: '@wonderwhy-er/desktop-commander',
	commands: 'mcp-server-commands',
	codex: '@openai/codex-shell-tool-mcp',
};

/* Installs the pinned anchors with npm ci, when missing or older than the
 * lockfile.  desktop-commander depends on puppeteer, whose install step
 * would download a browser: PUPPETEER_SKIP_DOWNLOAD skips it (nothing
 * here uses it).  npm's output goes to stderr: stdout is the report. */
function installAnchors() {
	const stamp = path.join(nm, '.package-lock.json');
	const lock = path.join(anchorDir, 'package-lock.json');
	if (fs.existsSync(stamp) && Object.values(PKG).every((p) => fs.existsSync(path.join(nm, p, 'package.json')))
	    && fs.statSync(stamp).mtimeMs >= fs.statSync(lock).mtimeMs)
		return;
	log('installing the anchors into bench/shell-anchors (npm ci)');
	execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: anchorDir, stdio: ['ignore', 2, 2],
		env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
	});
}

installAnchors();
const pinned = JSON.parse(fs.readFileSync(path.join(anchorDir, 'package.json'), 'utf8')).dependencies;
const versions = {};
for (const [id, p] of Object.entries(PKG)) {
	versions[id] = pkgVersion(path.join(nm, p));
	if (versions[id] !== pinned[p]) {
		console.error(`shell-vs-anchors: bench/shell-anchors has ${p} ${versions[id]}, not the pinned ${pinned[p]}`);
		process.exit(1);
	}
}
const clientSdkVersion = pkgVersion(sdkDir);

/* The codex package ships its server for each target and a bash for each
 * distribution; its launcher picks them as below (the same choice). */
function codexCommand() {
	const triple = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[process.arch];
	const root = path.join(nm, PKG.codex, 'vendor', triple ?? '?');
	const rel = {};
	try {
		for (const line of fs.readFileSync('/etc/os-release', 'utf8').split('\n')) {
			const m = /^([A-Z_]+)="?([^"]*)"?$/.exec(line);
			if (m)
				rel[m[1]] = m[2];
		}
	} catch { /* none: the first variant */ }
	const variants = fs.existsSync(path.join(root, 'bash')) ? fs.readdirSync(path.join(root, 'bash')) : [];
	const id = (rel.ID ?? '').toLowerCase();
	const like = (rel.ID_LIKE ?? '').toLowerCase().split(/\s+/);
	const fam = (v) => ({ ubuntu: ['ubuntu'], debian: ['debian'], centos: ['centos', 'rhel', 'rocky', 'almalinux'] })[v.split('-')[0]] ?? [];
	const match = variants.filter((v) => fam(v).includes(id) || fam(v).some((f) => like.includes(f)));
	const bash = match.find((v) => rel.VERSION_ID && v.endsWith(`-${rel.VERSION_ID}`))
	    ?? match[0] ?? variants.find((v) => v.startsWith('ubuntu-24')) ?? variants[0];
	return {
		command: path.join(root, 'codex-exec-mcp-server'),
		args: ['--execve', path.join(root, 'codex-execve-wrapper'), '--bash', path.join(root, 'bash', bash ?? '?', 'bash')],
		bash,
	};
}
const codex = codexCommand();

// ---------------------------------------------------------------- the files

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-shvs-')));
let cleaned = false;
function cleanup() {
	if (!cleaned)
		fs.rmSync(root, { recursive: true, force: true });
	cleaned = true;
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'])
	process.on(sig, () => { cleanup(); process.exit(130); });

const BIG = bigText();
if (BIG.length !== 5 * MiB)
	throw new Error(`the 5 MiB output is ${BIG.length} bytes`);
const bigPath = path.join(root, 'data', 'big.txt');
const workDir = path.join(root, 'data');
fs.mkdirSync(workDir);
fs.writeFileSync(bigPath, BIG);

const policy = path.join(root, 'shell.policy');
const policyText = `allow read ${workDir}\n\n[shell]\nprogram /bin/echo\nprogram /bin/cat\n`;
fs.writeFileSync(policy, policyText, { mode: 0o600 });

// toolcell-shell again, writing where git repositories are: a .git at the
// top and three one level down, each kept read-only in every call's own
// mount namespace (the repositories' setting, read-only by default).
const repoDir = path.join(root, 'repos');
for (const d of ['.git', 'a/.git', 'b/.git', 'c/.git', 'd', 'e'])
	fs.mkdirSync(path.join(repoDir, d), { recursive: true });
const repoPolicy = path.join(root, 'shell-repos.policy');
const repoPolicyText = `allow read ${workDir}\nallow write ${repoDir}\n\n[shell]\nprogram /bin/echo\nprogram /bin/cat\n`;
fs.writeFileSync(repoPolicy, repoPolicyText, { mode: 0o600 });

// The anchors' environment: node's directory and the system's, so that
// what a server execs (desktop-commander runs `python3 --version` on every
// call) is the distribution's and not a per-user shim, and a HOME of
// their own (desktop-commander keeps its configuration there).
const anchorPath = `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
let homes = 0;
function freshHome() {
	const h = path.join(root, `home${homes++}`);
	fs.mkdirSync(h);
	return h;
}

// ---------------------------------------------------------------- checks

const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

/* Where |got| first differs from |want|, for a note. */
function differ(got, want) {
	if (got === want)
		return undefined;
	let i = 0;
	while (i < got.length && i < want.length && got[i] === want[i])
		i++;
	const wantLines = want.split('\n').length - 1;
	const gotLines = got.split('\n').length - 1;
	return `${got.length} of ${want.length} bytes (${gotLines} of ${wantLines} lines), first difference at byte ${i}`;
}

/* desktop-commander's read_process_output: "[status]\n\n<lines joined by
 * \n>\n✅ Process completed ..." once the process has exited. */
const DC_DONE = '\n✅ Process completed';
function dcBody(t) {
	const at = t.indexOf('\n\n');
	const end = t.lastIndexOf(DC_DONE);
	return at < 0 || end < at ? null : t.slice(at + 2, end);
}

/*
 * The servers.  Each has: how it is started (spawn()), what it needs once
 * after initialize (setup), and the two operations, each returning
 * { calls, wrong } (wrong: undefined, or what was not the whole output).
 */
const SERVERS = {
	toolcell: {
		label: 'toolcell-shell',
		spawn: () => ({ command: ours, args: ['--policy', policy], env: { PATH: anchorPath, HOME: freshHome() } }),
		shown: `\`${path.relative(repo, ours)} --policy P\`, P = \`${policyText.trim().replace(/\n+/g, '; ').replace(workDir, 'DIR')}\``,
		echoArgs: { argv: ['/bin/echo', 'hi'] },
		async echo(c) {
			const r = await call(c, 'run_command', this.echoArgs);
			return { calls: 1, wrong: tcCheck(r, 'hi\n') };
		},
		bigArgs: () => ({ argv: ['/bin/cat', bigPath], max_output_bytes: BIG.length }),
		async big(c) {
			const r = await call(c, 'run_command', this.bigArgs());
			return { calls: 1, wrong: tcCheck(r, BIG) };
		},
	},
	repos: {
		label: 'toolcell-shell, writing where repositories are',
		variant: true,
		spawn: () => ({ command: ours, args: ['--policy', repoPolicy], env: { PATH: anchorPath, HOME: freshHome() } }),
		shown: `the same, P = \`${repoPolicyText.trim().replace(/\n+/g, '; ').replace(workDir, 'DIR').replace(repoDir, 'REPOS')}\`, REPOS holding a .git and three directories with one each, all read-only to calls`,
		get echoArgs() { return SERVERS.toolcell.echoArgs; },
		echo(c) { return SERVERS.toolcell.echo(c); },
		bigArgs: () => SERVERS.toolcell.bigArgs(),
		big(c) { return SERVERS.toolcell.big(c); },
	},
	floor: {
		label: 'floor (calibration)',
		calibration: true,
		spawn: () => ({ command: process.execPath, args: [path.join(repo, 'bench/shell-floor.mjs'), bigPath], env: { PATH: anchorPath } }),
		shown: '`node bench/shell-floor.mjs DIR/big.txt`: answers from memory, runs nothing, sends the output once as text: the cost of the client, the pipes and the payload alone',
		echoArgs: { argv: ['echo', 'hi'] },
		async echo(c) {
			const r = await call(c, 'run_command', this.echoArgs);
			return { calls: 1, wrong: differ(text(r), 'hi\n') };
		},
		bigArgs: () => ({ argv: ['cat', bigPath] }),
		async big(c) {
			const r = await call(c, 'run_command', this.bigArgs());
			return { calls: 1, wrong: differ(text(r), BIG) };
		},
	},
	dc: {
		label: `desktop-commander ${versions.dc}`,
		spawn: () => ({
			command: process.execPath,
			args: [path.join(nm, PKG.dc, 'dist/index.js'), '--no-onboarding'],
			env: { PATH: anchorPath, HOME: freshHome(), DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1' },
		}),
		shown: `\`node dist/index.js --no-onboarding\`, own empty HOME, telemetry off`,
		async setup(c) {
			await call(c, 'set_config_value', { key: 'telemetryEnabled', value: false });
		},
		echoArgs: { command: 'echo hi', timeout_ms: 30_000 },
		async echo(c) {
			const r = await call(c, 'start_process', this.echoArgs);
			const t = text(r);
			const out = t.slice(t.indexOf('Initial output:\n') + 16);
			if (/(^|\n)hi(\n|$)/.test(out))
				return { calls: 1 };
			// Not in the first answer: read what it kept.
			const pid = Number(/PID (-?\d+)/.exec(t)?.[1]);
			const r2 = await dcReadAll(c, pid);
			const body = dcBody(text(r2.r)) ?? '';
			return {
				calls: 1 + r2.calls,
				wrong: body === 'hi\n' ? undefined : `no "hi" line in the output: ${JSON.stringify(text(r2.r).slice(0, 160))}`,
			};
		},
		bigArgs: () => ({ command: `cat ${bigPath}`, timeout_ms: 60_000 }),
		async big(c) {
			// start_process answers with at most the last ~1-2 MiB: the
			// whole output is read back from line 0 once it has exited.
			const r = await call(c, 'start_process', this.bigArgs());
			const pid = Number(/PID (-?\d+)/.exec(text(r))?.[1]);
			const r2 = await dcReadAll(c, pid);
			const body = dcBody(text(r2.r));
			return { calls: 1 + r2.calls, wrong: body === null ? `no completed output: ${JSON.stringify(text(r2.r).slice(0, 160))}` : differ(body, BIG) };
		},
	},
	commands: {
		label: `mcp-server-commands ${versions.commands}`,
		spawn: () => ({
			command: process.execPath,
			args: [path.join(nm, PKG.commands, 'build/index.js')],
			env: { PATH: anchorPath, HOME: freshHome() },
		}),
		shown: '`node build/index.js`',
		echoArgs: { command: 'echo hi' },
		async echo(c) {
			const r = await call(c, 'run_command', this.echoArgs, true);
			return { calls: 1, wrong: r.isError ? `error: ${text(r).slice(0, 120)}` : differ(text(r), 'hi\n') };
		},
		bigArgs: () => ({ command: `cat ${bigPath}` }),
		async big(c) {
			const r = await call(c, 'run_command', this.bigArgs(), true);
			// A failed command: its error message first, then what it
			// printed.
			const parts = (r.content ?? []).filter((x) => x.type === 'text').map((x) => x.text);
			const err = r.isError ? `error "${parts.shift() ?? ''}": ` : '';
			const out = parts.join('');
			const d = differ(out, BIG);
			return { calls: 1, wrong: err || d ? `${err}${d ?? 'output complete'}` : undefined };
		},
	},
	codex: {
		label: `codex-shell-tool-mcp ${versions.codex} native`,
		spawn: () => ({ command: codex.command, args: codex.args, env: { PATH: anchorPath, HOME: freshHome() } }),
		shown: `\`vendor/…/codex-exec-mcp-server --execve …/codex-execve-wrapper --bash …/bash/${codex.bash}/bash\``,
		async setup(c) {
			// Without it every command is refused ("codex-linux-sandbox
			// was required but not provided").
			await c.request({
				method: 'codex/sandbox-state/update',
				params: { sandboxPolicy: { type: 'danger-full-access' }, sandboxCwd: workDir },
			}, ResultSchema, { timeout: 60_000 });
		},
		echoArgs: { command: 'echo hi', workdir: workDir, login: false },
		async echo(c) {
			const r = await call(c, 'shell', this.echoArgs);
			return { calls: 1, wrong: codexCheck(r, 'hi\n') };
		},
		bigArgs: () => ({ command: `cat ${bigPath}`, workdir: workDir, login: false }),
		async big(c) {
			const r = await call(c, 'shell', this.bigArgs());
			return { calls: 1, wrong: codexCheck(r, BIG) };
		},
	},
};

/* toolcell-shell's answer: stdout in the structured content (exact), else
 * the text; nothing cut, exit code 0. */
function tcCheck(r, want) {
	const sc = r.structuredContent;
	if (r.isError)
		return `error: ${text(r).slice(0, 160)}`;
	if (sc && typeof sc.stdout === 'string') {
		if (sc.truncated === true || sc.stdout_truncated === true || sc.stdout?.truncated === true)
			return `cut: ${differ(sc.stdout, want)}`;
		return differ(sc.stdout, want);
	}
	return text(r).includes(want) ? undefined : `not in the text: ${differ(text(r), want)}`;
}

function codexCheck(r, want) {
	let o;
	try {
		o = JSON.parse(text(r));
	} catch {
		return `not JSON: ${text(r).slice(0, 120)}`;
	}
	return o.exit_code !== 0 ? `exit code ${o.exit_code}` : differ(o.output ?? '', want);
}

async function call(c, name, args, errorOk = false) {
	const r = await c.callTool({ name, arguments: args }, undefined,
	    { timeout: CALL_TIMEOUT, maxTotalTimeout: CALL_TIMEOUT });
	if (r.isError && !errorOk)
		throw new Error(`${name}: ${text(r).slice(0, 300)}`);
	return r;
}

/* desktop-commander: read_process_output until the process is reported
 * complete; a completed process's output is read whole from line 0 (its
 * read position is not kept). */
async function dcReadAll(c, pid) {
	for (let calls = 1; ; calls++) {
		const r = await call(c, 'read_process_output', { pid, offset: 0, length: 1e9, timeout_ms: 100 }, true);
		if (r.isError || text(r).includes(DC_DONE) || calls >= 1000)
			return { r, calls };
	}
}

const sides = Object.keys(SERVERS).filter((id) => {
	if (process.env.BENCH_SERVERS && !process.env.BENCH_SERVERS.split(',').includes(id))
		return false;
	if ((id === 'toolcell' || SERVERS[id].variant) && !fs.existsSync(ours)) {
		log(`${ours} does not exist: measuring the anchors alone`);
		return false;
	}
	return true;
});

// ---------------------------------------------------------------- processes

/* Spawns one server and connects the client; returns the time from the
 * spawn to the initialize result, in ms. */
async function start(id) {
	const s = SERVERS[id];
	const sp = s.spawn();
	if (process.env.BENCH_LANG)
		sp.env = { ...sp.env, LANG: process.env.BENCH_LANG };
	const transport = new StdioClientTransport({ ...sp, stderr: 'pipe', maxBufferSize: 256 * MiB });
	let err = '';
	// Drained always: mcp-server-commands logs every failed command's
	// output there.
	transport.stderr?.setEncoding('utf8');
	transport.stderr?.on('data', (d) => { if (err.length < 8192) err += d.slice(0, 8192 - err.length); });
	const client = new Client({ name: 'toolcell-bench-shell', version: '0' });
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

function status(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	} catch {
		return '';
	}
}

// ---------------------------------------------------------------- measuring

const SCENARIOS = [
	{ id: 'echo-gap', title: '`echo hi`, 5 ms apart', op: 'echo', gap: gapMs, n: [1000, 50], warm: [20, 5] },
	{ id: 'echo-b2b', title: '`echo hi`, back to back', op: 'echo', gap: 0, n: [1000, 50], warm: [20, 5] },
	{ id: 'big', title: '5 MiB of output (`cat`), checked byte for byte', op: 'big', gap: gapMs, n: [30, 3], warm: [2, 1] },
];
for (const id of only ?? []) {
	if (!['cold', 'rss', ...SCENARIOS.map((s) => s.id)].includes(id)) {
		console.error(`shell-vs-anchors: BENCH_ONLY: no scenario '${id}' (cold, ${SCENARIOS.map((s) => s.id).join(', ')}, rss)`);
		process.exit(2);
	}
}

/* Runs |n| operations of scenario |sc| on server |id|, adding to |r| (its
 * times only when |timed|); stops when r.spent passes the time cap. */
async function timeOps(srv, id, sc, n, r, timed) {
	for (let i = 0; i < n; i++) {
		if (timed && r.spent > capMs) {
			r.capped = true;
			return;
		}
		if (sc.gap > 0)
			await sleep(sc.gap);
		const t = performance.now();
		const o = await SERVERS[id][sc.op](srv.client);
		const ms = performance.now() - t;
		r.ops++;
		if (o.wrong) {
			r.wrong = (r.wrong ?? 0) + 1;
			r.firstWrong ??= `${timed ? '' : '[warm-up] '}${o.wrong}`;
		}
		if (timed) {
			r.samples.push(ms);
			r.calls += o.calls;
			r.spent += ms + sc.gap;
		}
	}
}

const startedAt = new Date();
const loadBefore = os.loadavg();
const results = new Map();

if (runs('cold')) {
	const n = quick ? 3 : 20;
	const cold = Object.fromEntries(sides.map((id) => [id, { samples: [] }]));
	log(`cold start x${n}`);
	for (let i = 0; i < n + 1; i++) {
		for (const id of sides) {
			const s = await start(id);
			if (i > 0)	// the first spawn of each warms the page cache
				cold[id].samples.push(s.ms);
			await s.client.close();
		}
	}
	results.set('cold', cold);
}

const srv = {};
for (const id of sides) {
	const s = await start(id);
	const listed = await s.client.listTools(undefined, { timeout: 60_000 });
	s.tools = new Map(listed.tools.map((t) => [t.name, t]));
	s.info = s.client.getServerVersion();
	await SERVERS[id].setup?.call(SERVERS[id], s.client);
	s.idleRss = vmHWM(s.pid);
	await sleep(200);	// a pool of ready children, where there is one
	s.idlePss = treePss(s.pid);
	srv[id] = s;
}

for (const sc of SCENARIOS.filter((c) => runs(c.id))) {
	const n = sc.n[quick ? 1 : 0];
	const warm = sc.warm[quick ? 1 : 0];
	const res = Object.fromEntries(sides.map((id) => [id, { samples: [], ops: 0, calls: 0, spent: 0, capped: false }]));
	log(`${sc.id}: ${warm} warm-up + ${n} each`);
	await rounds(sides, res, warm, n, (id, count, first, record) =>
	    timeOps(srv[id], id, sc, count, res[id], record));
	results.set(sc.id, res);
}

for (const id of sides) {
	const s = srv[id];
	if (s.exit.at !== null)
		s.exited = `${s.exit.code ?? s.exit.signal}; stderr: ${s.stderr().trim().slice(-300)}`;
	s.peakRss = vmHWM(s.pid);
	await s.client.close();
}
const loadAfter = os.loadavg();
cleanup();

// ---------------------------------------------------------------- the report

const out = [];
const row = (...c) => out.push(`| ${c.join(' | ')} |`);
const has = sides.includes('toolcell');
const anchors = sides.filter((id) => id !== 'toolcell' && !SERVERS[id].calibration && !SERVERS[id].variant);

const envShown = Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v} `).join('');
const niceness = os.getPriority();
const cmd = `${envShown}${niceness ? `nice -n ${niceness} ` : ''}node bench/shell-vs-anchors.mjs ${buildArg}`;
const cpu = (os.cpus()[0]?.model ?? '?').trim().replace(/\s+/g, ' ');

out.push(`${quick ? 'Smoke run (BENCH_QUICK=1: few iterations; not a measurement)' : 'Full run'}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
out.push('');
out.push(`- command: \`${cmd}\` (from the repo root; \`make bench\` runs it last)`);
out.push(`- machine: ${os.availableParallelism()} CPUs (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, node ${process.version}, uid ${process.getuid()}`);
out.push(`- load average (1 min) before / after: ${loadBefore[0].toFixed(2)} / ${loadAfter[0].toFixed(2)}`);
out.push(`- client: @modelcontextprotocol/sdk ${clientSdkVersion} (tests/e2e/sdk), read buffer raised to 256 MiB`);
for (const id of sides) {
	const s = SERVERS[id];
	const info = srv[id]?.info;
	const tool = { codex: 'shell', dc: 'start_process' }[id] ?? 'run_command';
	const args = `; \`echo hi\` as \`${tool} ${JSON.stringify(s.echoArgs).replace(workDir, 'DIR')}\``;
	out.push(`- ${s.label}: serverInfo ${info?.name} ${info?.version}, ${s.shown}${args}`);
}
out.push(`- 5 MiB: \`cat DIR/big.txt\` (81,920 numbered lines of 64 bytes, 5,242,880 bytes; toolcell-shell: \`{"argv":["/bin/cat","DIR/big.txt"],"max_output_bytes":5242880}\`); ${gapMs} ms pause before every timed \`cat\` and every spaced \`echo\`; time cap ${capMs / 1000} s per server and scenario (\`*\` after N: stopped by it)`);
out.push('');

row('scenario', 'server', 'N', 'p50 / p99 ms', 'calls/op', 'wrong answers', has ? 'its p50 / toolcell-shell\'s' : '—');
row('---', '---', '---:', '---:', '---:', '---:', '---:');
const coldTitle = 'cold start (spawn to initialize result)';
for (const [id, title] of [['cold', coldTitle], ...SCENARIOS.map((s) => [s.id, s.title])]) {
	const r = results.get(id);
	if (!r)
		continue;
	for (const side of sides) {
		const x = r[side];
		let lat;
		if (x.error)
			lat = `**failed**: ${esc(x.error).slice(0, 120)}`;
		else
			lat = `${fmt(pct(x.samples, 50))} / ${fmt(pct(x.samples, 99))}`;
		const wrong = x.error ? '—' : x.wrong ? `**${x.wrong} of ${x.ops}**` : id === 'cold' ? '' : `0 of ${x.ops}`;
		let ratio = '';
		if (has && side !== 'toolcell' && Number.isFinite(p50(x)) && Number.isFinite(p50(r.toolcell)))
			ratio = `${fmt(p50(x) / p50(r.toolcell))}×${x.wrong ? ' (wrong answers)' : ''}`;
		const calls = x.calls ? fmt(x.calls / x.samples.length) : '';
		row(title, SERVERS[side].label, x.samples ? `${x.samples.length}${x.capped ? '*' : ''}` : '—', lat, calls, wrong, ratio);
	}
}
if (runs('rss')) {
	for (const [what, key] of [['RSS, idle (VmHWM after initialize, tools/list)', 'idleRss'],
	    ['PSS of the process tree, idle', 'idlePss'],
	    ['peak RSS (VmHWM after every scenario above)', 'peakRss']]) {
		for (const side of sides) {
			const v = key === 'idlePss' ? srv[side][key].mib : srv[side][key];
			const o = key === 'idlePss' ? srv.toolcell?.[key].mib : srv.toolcell?.[key];
			const procs = key === 'idlePss' ? ` (${srv[side][key].n} process${srv[side][key].n > 1 ? 'es' : ''})` : '';
			row(what, SERVERS[side].label, '1', `${fmt(v)} MiB${procs}`, '', '',
			    has && side !== 'toolcell' ? `${fmt(v / o)}×` : '');
		}
	}
}
out.push('');
out.push('its p50 / toolcell-shell\'s: the server\'s p50 over toolcell-shell\'s (memory: its size over toolcell-shell\'s); above 1, toolcell-shell is faster or smaller. The floor is no anchor: it answers from memory, and no server can beat it through this client. A wrong answer is one that is not the whole output (an `echo` without its `hi` line; a 5 MiB output not equal to the file byte for byte), counted over every timed and warm-up operation of that scenario; the times of a server with wrong answers are for reference only. calls/op above 1: desktop-commander needed `read_process_output` after `start_process` (it answers `start_process` with at most the last 1-2 MiB). RSS is VmHWM of the process the client started (toolcell-shell: the server process only, not its spawner nor the children that run the calls); the PSS row adds every process of the tree (toolcell-shell: its spawner and the ready children too).');

// Targets.
if (has) {
	const tgt = [];
	for (const sc of SCENARIOS.filter((c) => c.op === 'echo' && results.has(c.id))) {
		const r = results.get(sc.id);
		const beat = anchors.filter((a) => Number.isFinite(p50(r[a])) && p50(r[a]) > p50(r.toolcell)).map((a) => SERVERS[a].label);
		const lost = anchors.filter((a) => !(Number.isFinite(p50(r[a])) && p50(r[a]) > p50(r.toolcell))).map((a) => SERVERS[a].label);
		tgt.push(`- ${sc.title}: confined, faster than every anchor: ${passed(r.toolcell) && lost.length === 0 ? 'met' : '**not met**'}${lost.length ? ` (not faster than ${lost.join(', ')})` : ''}${r.toolcell.wrong ? `; ${r.toolcell.wrong} wrong answers` : ''}`);
		void beat;
	}
	if (results.has('big')) {
		const r = results.get('big');
		const ratio = p50(r.dc) / p50(r.toolcell);
		tgt.push(`- 5 MiB: complete in every toolcell-shell run: ${passed(r.toolcell) ? 'met' : '**not met**'}; at least 3× faster than desktop-commander: ${Number.isFinite(ratio) ? `${fmt(ratio)}×, ${ratio >= 3 ? 'met' : '**not met**'}` : 'not measured'}`);
	}
	out.push('');
	out.push('Targets:');
	out.push('');
	out.push(...tgt);
}

const notes = [];
for (const [id, r] of results) {
	for (const side of sides) {
		const x = r[side];
		if (x?.firstWrong)
			notes.push(`- ${id} / ${SERVERS[side].label}: ${x.wrong} of ${x.ops} wrong; first: ${esc(x.firstWrong).slice(0, 300)}`);
	}
}
for (const side of sides) {
	if (srv[side].exited)
		notes.push(`- ${SERVERS[side].label}: the server exited during the run (${esc(srv[side].exited)})`);
}
if (notes.length) {
	out.push('');
	out.push('Wrong answers and failures (the first of each):');
	out.push('');
	out.push(...notes);
}
console.log(out.join('\n'));
