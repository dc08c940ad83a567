// hosts.test.mjs: what the model receives when toolcell's servers run
// under real host CLIs: Claude Code and Codex CLI, installed from npm at
// the versions tests/hosts/package-lock.json pins (make test-hosts
// installs them).
//
// Each CLI runs one non-interactive turn with one toolcell server as its
// MCP server, against a local stand-in for its model API (stand-in.mjs)
// that asks for scripted tool calls and records the tool results the CLI
// sends back: what its model would have read.  Claude Code and Codex pass
// their model only a result's structuredContent when it has one, so the
// checks are that what the model needs is there:
//
// toolcell-fs, the three things that went wrong in real hosts:
//   roots   Claude Code sends its working directory as its MCP roots; a
//           host started outside the served directory must still be
//           served, and be told why (list_allowed_directories, refusals).
//   body    a read over 1 MiB must carry its body in structuredContent.
//   image   Codex passes on only structuredContent when there is one:
//           read_media_file's image must reach its model.
// toolcell-shell:
//   run     run_command's exit code, stdout and stderr; a refusal's reason
//           (an argument rule, a program not listed); a timeout; an output
//           over the text view's 64 KiB, whole or cut as the host cuts it;
//           output that is not UTF-8, as text and exactly (binary).
//   note    what the text's summary adds (processes left behind that
//           held the output) is in the structured half too.
//   job     start_command, write_input and read_output across turns: the
//           model finds the job id and the next offset in what the host
//           passed on, reads the output, and the exit at the end; a
//           job's long output read a page at a time, each page whole.
// toolcell-sqlite (when it is built):
//   rows    query's columns and rows: NULL apart from the text 'NULL',
//           integers past 2^53 exact; a long query's first page and the
//           next by the cursor the model read.
//   errors  a refused ATTACH and an SQL error: the reason.
//   changes execute's statements and changes.
//
// Nothing leaves the machine: each CLI gets its API's base URL (the
// stand-in, on loopback), a made-up key, a fresh HOME (and CODEX_HOME),
// telemetry, error reporting, update checks and Codex's plugins and apps
// off (its plugin marketplace sync otherwise reaches out at start), and
// HTTPS_PROXY and the rest pointed at a loopback trap that refuses and
// records anything meant elsewhere; the checks require that it caught
// nothing and that the stand-in saw no request it does not serve.  Where
// strace(1) is installed, each CLI also runs under it, and every connect(2)
// it or its children (the MCP server and its programs among them) made
// must be to the stand-in: this holds for a CLI that would ignore the
// proxy variables, and for name lookups.
//
//   BUILD=build node --test tests/hosts/hosts.test.mjs     (make test-hosts)
//
// TOOLCELL_AS=nobody runs the servers as that user, as the other suites do.
// HOSTS_DUMP=DIR writes what each host passed on for each call there.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

import { BUILD, makeScratch, makeTree, serverCommand, serverIds } from '../e2e/sdk/lib.mjs';
import { startStandIn, startTrap } from './stand-in.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = path.join(HERE, 'node_modules');
const RUN_MS = 180_000;
const MIB = 2 ** 20;

/* --- The CLIs --- */

/* The native Claude Code binary for this machine, or null. */
function claudeBinary() {
	const arch = process.arch;
	for (const pkg of [`claude-code-linux-${arch}`, `claude-code-linux-${arch}-musl`]) {
		const bin = path.join(MODULES, '@anthropic-ai', pkg, 'claude');
		if (existsSync(bin))
			return bin;
	}
	return null;
}

/* Codex's launcher (it finds the native binary for this machine), or null. */
function codexBinary() {
	if (!existsSync(path.join(MODULES, '@openai', `codex-linux-${process.arch}`)))
		return null;
	const bin = path.join(MODULES, '@openai', 'codex', 'bin', 'codex.js');
	return existsSync(bin) ? bin : null;
}

/* strace(1), if it is installed. */
const STRACE = (process.env.PATH ?? '').split(':').map((d) => path.join(d, 'strace'))
    .find((f) => existsSync(f)) ?? null;

/*
 * Runs |command| with |args| in |cwd| with only the environment |env|
 * (and PATH), stdin closed, in a process group of its own (killed whole
 * after RUN_MS); under strace when it is installed, its connect(2) calls
 * written to |trace|.  Resolves to {code, signal, stdout, stderr, traced}.
 */
function run(command, args, cwd, env, trace) {
	if (STRACE !== null) {
		args = ['-f', '-qq', '-e', 'trace=connect', '-o', trace, command, ...args];
		command = STRACE;
	}
	return new Promise((resolve, reject) => {
		const p = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
		    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env } });
		let stdout = '';
		let stderr = '';
		p.stdout.setEncoding('utf8').on('data', (s) => { stdout += s; });
		p.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; });
		const timer = setTimeout(() => {
			try {
				process.kill(-p.pid, 'SIGKILL');
			} catch {
				// Gone already.
			}
		}, RUN_MS);
		p.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		p.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr, traced: STRACE !== null });
		});
	});
}

/* The environment that keeps a CLI on this machine: every proxy variable
 * at the trap, the stand-in (loopback) exempt. */
function proxyEnv(trap) {
	return {
		HTTPS_PROXY: trap.url, https_proxy: trap.url, HTTP_PROXY: trap.url,
		http_proxy: trap.url, ALL_PROXY: trap.url, all_proxy: trap.url,
		NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
	};
}

/* --- Fixtures --- */

/* A PNG of |w| x |h| pixels, each of |rgb|. */
function png(w, h, rgb) {
	const crcTable = Array.from({ length: 256 }, (_, n) => {
		let c = n;
		for (let k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		return c >>> 0;
	});
	const crc = (buf) => {
		let c = 0xffffffff;
		for (const b of buf)
			c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type, data) => {
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type), data]);
		const c = Buffer.alloc(4);
		c.writeUInt32BE(crc(td));
		return Buffer.concat([len, td, c]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr.set([8, 2, 0, 0, 0], 8);
	const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(w).fill(rgb).flat())]);
	return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr),
	    chunk('IDAT', deflateSync(Buffer.concat(Array(h).fill(row)))), chunk('IEND', Buffer.alloc(0))]);
}

/* 1.5 MiB of numbered lines: the start, middle and end are told apart. */
const BIG = Array.from({ length: 15 * 1024 }, (_, i) =>
    `line ${String(i + 1).padStart(6, '0')} ${'abcdefghij'.repeat(9)}\n`).join('');
const IMAGE = png(4, 3, [200, 30, 90]);
/* 9 MiB: more than toolcell-shell keeps of a stream by default (8 MiB). */
const HUGE = BIG.repeat(6);
/* 32 KiB of them, for a job read a page at a time. */
const MID = BIG.slice(0, 32 * 1024);
/* Text in Latin-1: its 0xe9 is not UTF-8. */
const LATIN1 = Buffer.from('caf\xe9 ok\n', 'latin1');

let tree, scratch, trap;
const policies = {};

before(async () => {
	tree = await makeTree({
		'proj/big.txt': BIG,
		'proj/dot.png': IMAGE,
		'proj/latin1.txt': LATIN1,
		'proj/mid.txt': MID,
		'proj/huge.txt': HUGE,
		'proj/sub/small.txt': 'small\n',
		'elsewhere/here.txt': 'not served\n',
	});
	scratch = await makeScratch('hosts');
	// Each policy serves proj alone; the hosts start in elsewhere, proj
	// or proj/sub, and send that as their roots.
	policies.fs = await scratch.policy([`allow read ${tree.p('proj')}`]);
	policies.shell = await scratch.policy([`allow read ${tree.p('proj')}`, '[shell]',
	    'program echo', 'program ls', 'program cat', 'program sleep', 'program find', 'program sh',
	    'args find deny -exec -execdir -ok -okdir -delete']);
	trap = await startTrap();
});

after(async () => {
	await trap?.close();
	await tree?.cleanup();
	await scratch?.cleanup();
});

/* The binary of server |name| (fs, shell, sqlite). */
const binary = (name) => path.join(BUILD, `toolcell-${name}`);

/* A suite's skip: why server |name| cannot be run, or false. */
const unbuilt = (name) => (existsSync(binary(name)) ? false : `${binary(name)} is not built`);

/* The MCP server |name| the hosts start, with its policy: {name, command,
 * args}. */
async function mcpServer(name) {
	if (name === 'sqlite') {
		// A new database for each run, in a directory of the server's
		// user (nobody's, with TOOLCELL_AS): SQLite writes its journal
		// beside it.
		const dir = await scratch.ownedDir();
		const db = path.join(dir, 'app.db');
		await fsp.writeFile(db, '');
		const { uid, gid } = serverIds();
		await fsp.chown(db, uid, gid);
		policies.sqlite = await scratch.policy(['[sqlite]', `database main ${db} read-write`]);
	}
	const cmd = await serverCommand(['--policy', policies[name]], binary(name));
	return { name, ...cmd };
}

/* Fails with what the stand-in recorded, for a run that went wrong. */
function explain(si, r) {
	const results = [...si.results.entries()].map(([id, v]) =>
	    `${id}: ${JSON.stringify(v).slice(0, 600)}`).join('\n');
	const calls = si.calls.map((c) => `${c.id} step ${c.step} ${c.tool} ${JSON.stringify(c.input).slice(0, 200)}`)
	    .join('\n');
	return `exit ${r.code} ${r.signal ?? ''}\ncalls:\n${calls}\n`
	    + `missing: ${JSON.stringify(si.missing)}\nunexpected: ${JSON.stringify(si.unexpected)}\n`
	    + `results:\n${results}\nstderr:\n${r.stderr.slice(-3000)}\nstdout:\n${r.stdout.slice(-2000)}`;
}

/*
 * Returns the connect(2) calls in strace output |text| to any address but
 * the stand-in's |port| on loopback (sockets of the local family aside).
 */
function strayConnects(text, port) {
	const stray = [];
	for (const l of text.split('\n')) {
		if (!l.includes('connect(') || l.includes('AF_UNIX') || l.includes('AF_LOCAL'))
			continue;
		const m = l.match(/sin6?_port=htons\((\d+)\).*(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")/);
		if (m === null || Number(m[1]) !== port || !['127.0.0.1', '::1'].includes(m[2] ?? m[3]))
			stray.push(l.replace(/^\d+\s+/, ''));
	}
	return stray;
}

/*
 * With HOSTS_DUMP set to a directory, writes there what the host of |turn|
 * passed on for each call, as |name|.json: for reading, when a host or a
 * server changes.
 */
async function dump(turn, name) {
	const dir = process.env.HOSTS_DUMP;
	if (!dir)
		return;
	await fsp.mkdir(dir, { recursive: true });
	await fsp.writeFile(path.join(dir, `${name}.json`), JSON.stringify(turn.si.calls.map((c) =>
	    ({ tool: c.tool, args: c.input, result: turn.si.results.get(c.id) })), null, 1));
}

/* Checks what every run must show: the CLI finished, every scripted call
 * was made and answered, and nothing was sent anywhere but the stand-in. */
async function checkRun(t, turn) {
	const { si, r, script, trace } = turn;
	const why = explain(si, r);
	assert.equal(r.code, 0, why);
	assert.deepEqual(si.missing, [], why);
	// Each step in order, some perhaps more than once (again()).
	assert.deepEqual([...new Set(si.calls.map((c) => c.step))], script.map((_, k) => k), why);
	assert.ok(si.calls.every((c, i) => i === 0 || c.step >= si.calls[i - 1].step), why);
	for (const c of si.calls)
		assert.ok(si.results.has(c.id), `no result for ${c.id} (${c.tool})\n${why}`);
	assert.deepEqual(si.unexpected, [], why);
	assert.deepEqual(trap.caught, [], `traffic meant elsewhere: ${JSON.stringify(trap.caught)}\n${why}`);
	if (!r.traced) {
		t.diagnostic('strace is not installed: connect(2) calls not checked');
		return;
	}
	const stray = strayConnects(await fsp.readFile(trace, 'utf8'), Number(new URL(si.url).port));
	assert.deepEqual(stray, [], `connections to anything but the stand-in\n${why}`);
}

/* The tool results the host sent back for step |k| of the script, one
 * for each time it was asked for. */
function results(turn, k) {
	const res = turn.si.calls.filter((c) => c.step === k).map((c) => turn.si.results.get(c.id));
	assert.ok(res.length > 0 && res.every((r) => r !== undefined),
	    `no result for step ${k} (${turn.script[k].tool})\n${explain(turn.si, turn.r)}`);
	return res;
}

/* The tool result the host sent back for step |k| (the last, if more). */
const result = (turn, k) => results(turn, k).at(-1);

/* The JSON-escaped form of |s| as it appears inside a JSON string. */
const escaped = (s) => JSON.stringify(s).slice(1, -1);

/* The first integer a model finds for |key| in |text|: a JSON member
 * ("job":3) or the words of a text ("job 3", "next offset 5"). */
function numberIn(text, key) {
	const m = text.match(new RegExp(`"${key}":\\s*(\\d+)`))
	    ?? text.match(new RegExp(`\\b${key.replace('_', ' ')} (\\d+)`));
	if (m === null)
		throw new Error(`no ${key} in what the host passed on: ${text.slice(0, 300)}`);
	return Number(m[1]);
}

/* What the hosts are asked to do with toolcell-fs. */
const FS_SCRIPT = () => [
	{ tool: 'list_allowed_directories', args: {} },
	{ tool: 'read_text_file', args: { path: tree.p('proj/big.txt'), max_bytes: 4 * MIB } },
	{ tool: 'read_media_file', args: { path: tree.p('proj/dot.png') } },
	{ tool: 'read_text_file', args: { path: tree.p('elsewhere/here.txt') } },
];

/* Names the model does not find: cat says so of each on stderr. */
const MISSING = Array.from({ length: 300 }, (_, i) => `nofile-${String(i).padStart(3, '0')}`);

/*
 * What the hosts are asked to do with toolcell-shell, by name: [name,
 * step].  |textOf| is the host's: the text its model reads of a result.
 * The jobs' calls take the job id and the next offset from what the host
 * passed on, as a model would; the last job is read a page at a time
 * until the host shows its end.
 */
function shellSteps(textOf) {
	const job = (prev, start) => numberIn(textOf(prev[SH[start]]), 'job');
	const ended = (res) => /"eof":\s*true/.test(textOf(res));
	return [
		['echo', { tool: 'run_command', args: { argv: ['echo', 'hello from the shell'] } }],
		['fails', { tool: 'run_command', args: { argv: ['ls', 'missing'] } }],
		['rule', { tool: 'run_command', args: { argv: ['find', '.', '-exec', 'cat', '{}', ';'] } }],
		['unlisted', { tool: 'run_command', args: { argv: ['rm', '-rf', '.'] } }],
		['timeout', { tool: 'run_command', args: { argv: ['sleep', '30'], timeout_ms: 300 } }],
		['held', { tool: 'run_command', args: { argv: ['sh', '-c', 'sleep 30 & echo hi'] } }],
		['big', { tool: 'run_command', args: { argv: ['cat', 'big.txt'] } }],
		['huge', { tool: 'run_command', args: { argv: ['cat', 'huge.txt'] } }],
		['both', { tool: 'run_command', args: { argv: ['cat', ...MISSING, 'big.txt'] } }],
		['latin1', { tool: 'run_command', args: { argv: ['cat', 'latin1.txt'] } }],
		['binary', { tool: 'run_command', args: { argv: ['cat', 'latin1.txt'], binary: true } }],
		['start', { tool: 'start_command', args: { argv: ['cat'] } }],
		['write', { tool: 'write_input', args: (prev) => ({ job: job(prev, 'start'), data: 'ping\n' }) }],
		['read', { tool: 'read_output',
		    args: (prev) => ({ job: job(prev, 'start'), offset: 0, wait_ms: 30_000 }) }],
		['close', { tool: 'write_input', args: (prev) => ({ job: job(prev, 'start'), close: true }) }],
		['end', { tool: 'read_output', args: (prev) => ({ job: job(prev, 'start'),
		    offset: numberIn(textOf(prev[SH.read]), 'next_offset'), wait_ms: 30_000 }) }],
		['pstart', { tool: 'start_command', args: { argv: ['cat', 'mid.txt'] } }],
		['page', { tool: 'read_output', args: (prev) => ({ job: job(prev, 'pstart'),
		    offset: prev[SH.page] ? numberIn(textOf(prev[SH.page]), 'next_offset') : 0,
		    max_bytes: 4096, wait_ms: 30_000 }),
		    again: (prev) => !ended(prev[SH.page]) }],
		['tstart', { tool: 'start_command', args: { argv: ['echo', 'on a terminal'], tty: true } }],
		['tread', { tool: 'read_output', args: (prev) => ({ job: job(prev, 'tstart'),
		    offset: prev[SH.tread] ? numberIn(textOf(prev[SH.tread]), 'next_offset') : 0, wait_ms: 30_000 }),
		    again: (prev) => !ended(prev[SH.tread]) }],
	];
}
const SHELL_SCRIPT = (textOf) => shellSteps(textOf).map(([, step]) => step);
/* The steps of SHELL_SCRIPT by name. */
const SH = Object.fromEntries(shellSteps(null).map(([name], k) => [name, k]));

/*
 * Checks of what a host passed on from toolcell-shell, the same for every
 * host.  |get()| gives the host's view of the turn: seen(k), a promise of
 * all the model can read of the result of step k (what the host passed
 * on, or the file it kept a large one in); all(k), the same for each time
 * step k was asked for; json(k), what the model read parsed, for a result
 * the host passed on whole; isError(k), whether the host told the model
 * the call failed (null: it has no way to).
 */
function shellChecks(get) {
	test('run_command: the exit code and stdout reach the model', async (t) => {
		t.diagnostic(`echo: ${await get().seen(SH.echo)}`);
		const sc = get().json(SH.echo);
		assert.equal(sc.exit_code, 0);
		assert.equal(sc.signal, null);
		assert.equal(sc.stdout, 'hello from the shell\n');
		assert.equal(sc.timed_out, false);
	});

	test('run_command: a failing exit code and stderr reach the model', () => {
		const sc = get().json(SH.fails);
		assert.equal(sc.exit_code, 2);
		assert.equal(sc.stdout, '');
		assert.match(sc.stderr, /missing.*No such file or directory/);
	});

	test('run_command: a refusal reaches the model with its reason', async (t) => {
		for (const [k, why] of [[SH.rule, /find: '-exec' is refused: the policy denies/],
		    [SH.unlisted, /'rm' is not a program this server runs \(it runs: echo, ls, cat/]]) {
			const seen = await get().seen(k);
			t.diagnostic(`refused: ${JSON.stringify(seen)}`);
			assert.match(seen, why);
			assert.notEqual(get().isError(k), false, seen);
		}
	});

	test('run_command: a timeout reaches the model', () => {
		const sc = get().json(SH.timeout);
		assert.equal(sc.timed_out, true);
		assert.equal(sc.exit_code, null);
		assert.match(sc.signal, /^SIG(TERM|KILL)$/);
	});

	test('run_command: what the summary adds (processes left holding the output) reaches the model',
	    async (t) => {
		// sh exits at once; the sleep it left holds stdout open until
		// the server kills it.  That is why nothing more came, which a
		// model could not tell from the output alone.
		const seen = await get().seen(SH.held);
		t.diagnostic(`held: ${seen}`);
		const sc = get().json(SH.held);
		assert.equal(sc.exit_code, 0);
		assert.equal(sc.stdout, 'hi\n');
		assert.match(seen, /processes it left behind held its output open after it exited: they were killed/);
	});

	test('run_command: with stdout and stderr both long, the model sees the exit code, the sizes, '
	    + 'the first error and the last line', async (t) => {
		// What a model needs of a long run: how it ended, how much each
		// stream held and whether it was cut, where stderr begins (the
		// first error) and where stdout ends.  A host that cuts the
		// structured half to a head and a tail keeps the members at its
		// ends.
		const seen = await get().seen(SH.both);
		const err = MISSING.map((f) => `${f}: No such file or directory\n`);
		t.diagnostic(`cat of 300 missing files and 1.5 MiB: the model reads ${seen.length} characters`);
		for (const want of ['"exit_code":1', `"stdout_bytes":${BIG.length}`, '"stdout_truncated":false',
		    '"stderr_truncated":false', '"timed_out":false', escaped(err[0]), escaped(BIG.slice(-1000))])
			assert.ok(seen.includes(want), `the model does not see ${want}:\n${seen.slice(0, 3000)}`);
		assert.match(seen, /"stderr_bytes":\d{5}/);
	});

	test('run_command: output that is not UTF-8, as text and exactly', () => {
		assert.equal(get().json(SH.latin1).stdout, 'caf\ufffd ok\n');
		const bin = get().json(SH.binary);
		assert.equal(bin.stdout, 'caf\ufffd ok\n');
		assert.equal(bin.stdout_base64, LATIN1.toString('base64'));
	});

	test('a job across turns: its id, its input, its output, its end', async (t) => {
		t.diagnostic(`start_command: ${await get().seen(SH.start)}`);
		t.diagnostic(`read_output: ${await get().seen(SH.read)}`);
		t.diagnostic(`read_output at the end: ${await get().seen(SH.end)}`);
		const start = get().json(SH.start);
		assert.equal(start.state, 'running');
		assert.equal(get().json(SH.write).written, 5);
		const read = get().json(SH.read);
		assert.equal(read.job, start.job);
		assert.equal(read.output, 'ping\n');
		assert.equal(read.next_offset, 5);
		assert.equal(get().json(SH.close).closed, true);
		const end = get().json(SH.end);
		assert.equal(end.output, '');
		assert.equal(end.eof, true);
		assert.equal(end.state, 'exited');
		assert.equal(end.result?.structuredContent?.exit_code, 0, JSON.stringify(end));
	});

	test('a job on a terminal: its output, and that it ran on one', async (t) => {
		const reads = await get().all(SH.tread);
		t.diagnostic(`the last read: ${reads.at(-1)}`);
		const json = reads.map((p) => JSON.parse(p.slice(p.indexOf('{'))));
		assert.equal(json.map((p) => p.output).join(''), 'on a terminal\r\n');
		const res = json.at(-1).result?.structuredContent;
		assert.equal(res?.tty, true, reads.at(-1));
		assert.equal(res.exit_code, 0);
		assert.match(res.note, /ran on a terminal/);
	});

	test('a job\'s long output read a page at a time: every page whole, the next offset, the end '
	    + 'and the exit code', async (t) => {
		// The model reads 4 KiB pages, each after the next_offset the
		// last showed, until one shows eof (the script's again()); every
		// page must reach it whole.
		const pages = await get().all(SH.page);
		t.diagnostic(`${pages.length} pages; the last: ${pages.at(-1).slice(0, 2000)}`);
		const json = pages.map((p) => JSON.parse(p.slice(p.indexOf('{'))));
		assert.equal(json.map((p) => p.output).join(''), MID);
		const last = json.at(-1);
		assert.equal(last.eof, true);
		assert.equal(last.state, 'exited');
		assert.equal(last.result?.structuredContent?.exit_code, 0, pages.at(-1).slice(0, 2000));
	});
}

/* Integers past 2^53, where a JSON number read as a double is no longer
 * exact, and NULL beside the text 'NULL'. */
const BIG_INTS = ['9007199254740993', '-9223372036854775808', '9223372036854775807'];

/*
 * What the hosts are asked to do with toolcell-sqlite, by name: [name,
 * step]; |textOf| as for shellSteps().  The second page of a long query
 * takes its cursor from what the host passed on of the first.
 */
function sqliteSteps(textOf) {
	const next = (prev) => {
		const m = textOf(prev[SQ.many]).match(/"next":\s*"([^"]+)"/);
		if (m === null)
			throw new Error(`no next cursor in what the host passed on: ${
			    textOf(prev[SQ.many]).slice(0, 300)}`);
		return m[1];
	};
	const MANY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) '
	    + "SELECT x, 'row ' || x AS label FROM c";
	return [
		['create', { tool: 'execute', args: { database: 'main', sql: 'CREATE TABLE t(id INTEGER PRIMARY KEY, '
		    + 'name TEXT, v REAL, big INTEGER); INSERT INTO t(name, v, big) VALUES '
		    + `('alpha', 1.5, ${BIG_INTS[0]}), (NULL, NULL, ${BIG_INTS[1]}), ('NULL', 2, ${BIG_INTS[2]})` } }],
		['rows', { tool: 'query',
		    args: { database: 'main', sql: "SELECT id, name, v, big, x'00ff00' AS b FROM t ORDER BY id" } }],
		['update', { tool: 'execute',
		    args: { database: 'main', sql: 'UPDATE t SET v = v * 2 WHERE v IS NOT NULL' } }],
		['attach', { tool: 'execute', args: { database: 'main', sql: "ATTACH DATABASE '/etc/passwd' AS x" } }],
		['qattach', { tool: 'query', args: { database: 'main', sql: "ATTACH DATABASE '/etc/passwd' AS x" } }],
		['bad', { tool: 'query', args: { database: 'main', sql: 'SELECT nosuch FROM t' } }],
		['many', { tool: 'query', args: { database: 'main', sql: MANY, max_rows: 1000 } }],
		['page2', { tool: 'query', args: (prev) => ({ database: 'main', sql: MANY, max_rows: 1000,
		    cursor: next(prev) }) }],
	];
}
const SQLITE_SCRIPT = (textOf) => sqliteSteps(textOf).map(([, step]) => step);
/* The steps of SQLITE_SCRIPT by name. */
const SQ = Object.fromEntries(sqliteSteps(null).map(([name], k) => [name, k]));

/*
 * Checks of what a host passed on from toolcell-sqlite, the same for every
 * host; |get()| as for shellChecks().
 */
function sqliteChecks(get) {
	test('execute: the statements and their changes reach the model', async (t) => {
		t.diagnostic(`execute: ${await get().seen(SQ.create)}`);
		t.diagnostic(`update: ${await get().seen(SQ.update)}`);
		const c = get().json(SQ.create);
		assert.equal(c.statements, 2);
		assert.deepEqual(c.changes, [0, 3]);
		assert.equal(c.last_insert_rowid, 3);
		const u = get().json(SQ.update);
		assert.deepEqual(u.changes, [2]);
	});

	test('query: the columns and rows reach the model, NULL apart from \'NULL\', big integers exact, '
	    + 'a blob',
	    async (t) => {
		const seen = await get().seen(SQ.rows);
		t.diagnostic(`query: ${seen}`);
		const q = get().json(SQ.rows);
		assert.deepEqual(q.columns.map((c) => c.name), ['id', 'name', 'v', 'big', 'b']);
		assert.equal(q.truncated, false);
		assert.equal(q.rows.length, 3);
		assert.deepEqual(q.rows.map((r) => r.slice(0, 3)),
		    [[1, 'alpha', 1.5], [2, null, null], [3, 'NULL', 2]]);
		// Past 2^53 a JSON number is not exact for a reader that
		// parses doubles: the model must see the digits themselves.
		// A host written in JavaScript parses the message: a number
		// there is a double.
		for (const n of BIG_INTS)
			assert.ok(new RegExp(`[\\[,]"?${n}"?[\\],]`).test(seen), `${n} is not in: ${seen}`);
		// A blob: its bytes, base64, and its size.
		assert.deepEqual(q.rows[0][4], { blob: 'AP8A', bytes: 3 });
	});

	test('a refused ATTACH: the reason reaches the model', async (t) => {
		for (const k of [SQ.attach, SQ.qattach]) {
			const seen = await get().seen(k);
			t.diagnostic(`refused: ${JSON.stringify(seen)}`);
			assert.match(seen, /ATTACH is never run here: \S.*/);
			assert.notEqual(get().isError(k), false, seen);
		}
	});

	test('an SQL error: SQLite\'s message reaches the model', async (t) => {
		const seen = await get().seen(SQ.bad);
		t.diagnostic(`error: ${JSON.stringify(seen)}`);
		assert.match(seen, /no such column: nosuch/);
		assert.notEqual(get().isError(SQ.bad), false, seen);
	});

	test('a long query: its first page, truncated, and the next page by the cursor the model read',
	    async (t) => {
		const many = await get().seen(SQ.many);
		t.diagnostic(`query of 3000 rows, 1000 at most: the model reads ${many.length} characters`);
		assert.match(many, /"truncated":\s*true/);
		const p2 = await get().seen(SQ.page2);
		t.diagnostic(`its second page: ${p2.length} characters`);
		for (const [text, first, last] of [[many, 1, 1000], [p2, 1001, 2000]]) {
			assert.ok(text.includes(`[${first},"row ${first}"]`), `row ${first} is not seen`);
			assert.ok(text.includes(`[${last},"row ${last}"]`), `row ${last} is not seen`);
		}
	});
}

/* --- Claude Code --- */

const CLAUDE = claudeBinary();

/*
 * Runs one turn of Claude Code in |cwd| with the MCP server |mcp| and
 * |script|; returns {si, r, script, trace, home}.
 */
async function claude(mcp, cwd, script) {
	const si = await startStandIn(script);
	const home = await fsp.mkdtemp(path.join(scratch.root, 'claude-home-'));
	const trace = `${home}.strace`;
	try {
		const cfg = path.join(home, 'mcp.json');
		await fsp.writeFile(cfg, JSON.stringify({ mcpServers: {
		    [mcp.name]: { command: mcp.command, args: mcp.args } } }));
		const r = await run(CLAUDE, ['--bare', '-p', `Use the ${mcp.name} tools.`,
		    '--mcp-config', cfg, '--strict-mcp-config',
		    '--allowedTools', [...new Set(script.map((s) => `mcp__${mcp.name}__${s.tool}`))].join(' '),
		    '--output-format', 'json', '--model', 'claude-sonnet-4-5'], cwd, {
			HOME: home,
			ANTHROPIC_BASE_URL: si.url,
			ANTHROPIC_API_KEY: 'sk-ant-stand-in',
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
			DISABLE_AUTOUPDATER: '1',
			DISABLE_TELEMETRY: '1',
			DISABLE_ERROR_REPORTING: '1',
			...proxyEnv(trap),
		}, trace);
		return { si, r, script, trace, home };
	} finally {
		await si.close();
	}
}

/* The text of a tool_result block's content. */
const claudeText = (res) => (typeof res.content === 'string' ? res.content
    : res.content.filter((c) => c.type === 'text').map((c) => c.text).join(''));

/*
 * All a Claude Code model can read of the result of step |i| of |turn|
 * (or of |res|, one of its results):
 * {held, saved}, saved the file Claude Code kept a large result in (and
 * gave the model the path of), or null; held the text of the result, or
 * of that file.
 */
async function claudeHeld(turn, i, res = result(turn, i)) {
	const text = claudeText(res);
	// Two forms: "... exceeds maximum allowed tokens. Output has been
	// saved to PATH." past its token limit, and "<persisted-output>
	// Output too large (69.1KB). Full output saved to: PATH" past a
	// size.
	const saved = text.match(/(?:Output has been saved to|Full output saved to:) (\/\S+?)\.?\n/);
	if (saved === null)
		return { held: text, saved: null };
	assert.ok(saved[1].startsWith(turn.home), saved[1]);
	return { held: await fsp.readFile(saved[1], 'utf8'), saved: saved[1] };
}

describe('Claude Code', { skip: CLAUDE ? false : `no Claude Code binary for linux-${process.arch} `
    + `under ${MODULES}: run make test-hosts` }, () => {
	describe('toolcell-fs', () => {
		let turn, outside;

		before(async () => {
			// Started in the served directory, for what a read
			// returns; and in a directory the policy does not serve,
			// as a host configured once and started elsewhere is, for
			// the roots.
			const fs = await mcpServer('fs');
			turn = await claude(fs, tree.p('proj'), FS_SCRIPT());
			outside = await claude(fs, tree.p('elsewhere'), [
				{ tool: 'list_allowed_directories', args: {} },
				{ tool: 'read_text_file', args: { path: tree.p('proj/sub/small.txt') } },
				{ tool: 'read_text_file', args: { path: tree.p('elsewhere/here.txt') } },
			]);
		});

		test('the turns ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
			await checkRun(t, outside);
		});

		test('roots: started outside the served directory, it is served, and the model is told why',
		    async (t) => {
			const list = result(outside, 0);
			t.diagnostic(`list_allowed_directories: ${claudeText(list)}`);
			assert.notEqual(list.is_error, true, claudeText(list));
			const sc = JSON.parse(claudeText(list));
			assert.deepEqual(sc.directories, [{ path: tree.p('proj'), access: 'read-only' }]);
			assert.equal(sc.served, 'policy');
			assert.deepEqual(sc.client_roots, [tree.p('elsewhere')]);
			assert.match(sc.note,
			    new RegExp(`^The client's roots: ${tree.p('elsewhere')}\\. None of them`));
			// What it serves is read; what the client's root names is
			// not.
			assert.equal(JSON.parse(claudeText(result(outside, 1))).content, 'small\n');
			const refused = result(outside, 2);
			assert.equal(refused.is_error, true);
			assert.equal(claudeText(refused), `'${tree.p('elsewhere/here.txt')}': outside the `
			    + `allowed directories. ${sc.note}`);
		});

		test('body: a read over 1 MiB reaches the model whole', async (t) => {
			// Claude Code passes on the structured half; a result this
			// large it keeps in a file and gives the model the path.
			// Either way, what the model can read holds the body.
			const { held, saved } = await claudeHeld(turn, 1);
			t.diagnostic(`read_text_file of 1.5 MiB: ${saved ? `saved by Claude Code to ${saved}`
			    : `${held.length} characters inline`}`);
			assert.ok(!held.includes('content_in_text'), held.slice(0, 300));
			assert.equal(JSON.parse(held).content, BIG);
		});

		test('image: read_media_file\'s image reaches the model', () => {
			const image = result(turn, 2);
			assert.notEqual(image.is_error, true, JSON.stringify(image).slice(0, 300));
			assert.ok(Array.isArray(image.content), JSON.stringify(image).slice(0, 300));
			assert.ok(image.content.some((c) => c.type === 'image' && c.source?.type === 'base64'
			    && c.source.media_type === 'image/png'
			    && c.source.data === IMAGE.toString('base64')),
			    JSON.stringify(image.content).slice(0, 500));
		});

		test('roots: started inside the served directory, narrowed to it, and told so', async (t) => {
			const inside = await claude(await mcpServer('fs'), tree.p('proj/sub'), [
				{ tool: 'list_allowed_directories', args: {} },
				{ tool: 'read_text_file', args: { path: 'small.txt' } },
			]);
			await checkRun(t, inside);
			const sc = JSON.parse(claudeText(result(inside, 0)));
			assert.deepEqual(sc.directories, [{ path: tree.p('proj/sub'), access: 'read-only' }]);
			assert.equal(sc.served, 'narrowed');
			assert.deepEqual(sc.client_roots, [tree.p('proj/sub')]);
			assert.equal(JSON.parse(claudeText(result(inside, 1))).content, 'small\n');
		});
	});

	describe('toolcell-shell', () => {
		let turn;

		before(async () => {
			turn = await claude(await mcpServer('shell'), tree.p('proj'), SHELL_SCRIPT(claudeText));
			await dump(turn, 'claude-shell');
		});

		test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
		});

		shellChecks(() => ({
			seen: async (k) => (await claudeHeld(turn, k)).held,
			all: (k) => Promise.all(results(turn, k).map(async (res) =>
			    (await claudeHeld(turn, k, res)).held)),
			json: (k) => JSON.parse(claudeText(result(turn, k))),
			isError: (k) => result(turn, k).is_error === true,
		}));

		test('run_command: an output over 64 KiB reaches the model whole', async (t) => {
			const { held, saved } = await claudeHeld(turn, SH.big);
			t.diagnostic(`cat of 1.5 MiB: ${saved ? `saved by Claude Code to ${saved}`
			    : `${held.length} characters inline`}`);
			const sc = JSON.parse(held);
			assert.equal(sc.stdout_truncated, false);
			assert.equal(sc.stdout_bytes, BIG.length);
			assert.equal(sc.stdout, BIG);
		});

		test('run_command: an output past the server\'s cap, its 8 MiB kept, reaches the model',
		    async (t) => {
			const { held, saved } = await claudeHeld(turn, SH.huge);
			t.diagnostic(`cat of 9 MiB: ${held.length} characters ${saved ? 'in the file' : 'inline'}`);
			assert.ok(saved, held.slice(0, 300));
			const sc = JSON.parse(held);
			assert.equal(sc.stdout_truncated, true);
			assert.equal(sc.stdout_bytes, HUGE.length);
			assert.equal(sc.stdout, HUGE.slice(0, 8 * MIB));
		});
	});
	describe('toolcell-sqlite', { skip: unbuilt('sqlite') }, () => {
		let turn;

		before(async () => {
			turn = await claude(await mcpServer('sqlite'), tree.p('proj'), SQLITE_SCRIPT(claudeText));
			await dump(turn, 'claude-sqlite');
		});

		test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
		});

		sqliteChecks(() => ({
			seen: async (k) => (await claudeHeld(turn, k)).held,
			all: (k) => Promise.all(results(turn, k).map(async (res) =>
			    (await claudeHeld(turn, k, res)).held)),
			json: (k) => JSON.parse(claudeText(result(turn, k))),
			isError: (k) => result(turn, k).is_error === true,
		}));
	});
});

/* --- Codex CLI --- */

const CODEX = codexBinary();

/*
 * Runs one turn of Codex in |cwd| with the MCP server |mcp| and |script|;
 * returns {si, r, script, trace}.
 */
async function codex(mcp, cwd, script) {
	const si = await startStandIn(script);
	const home = await fsp.mkdtemp(path.join(scratch.root, 'codex-home-'));
	const trace = `${home}.strace`;
	try {
		const q = (s) => JSON.stringify(s);
		await fsp.writeFile(path.join(home, 'config.toml'), [
			'model = "stand-in"',
			'model_provider = "stand_in"',
			'approval_policy = "never"',
			'sandbox_mode = "read-only"',
			'check_for_update_on_startup = false',
			'[analytics]',
			'enabled = false',
			'[feedback]',
			'enabled = false',
			// The plugin marketplace is synced at start.
			'[features]',
			'plugins = false',
			'remote_plugin = false',
			'apps = false',
			'[model_providers.stand_in]',
			'name = "stand-in"',
			`base_url = ${q(`${si.url}/v1`)}`,
			'env_key = "STAND_IN_API_KEY"',
			'wire_api = "responses"',
			`[mcp_servers.${mcp.name}]`,
			`command = ${q(mcp.command)}`,
			`args = [${mcp.args.map(q).join(', ')}]`,
			// Tools not marked read-only (toolcell-shell's) need an
			// approval, which "approval_policy = never" refuses.
			'default_tools_approval_mode = "approve"',
			'',
		].join('\n'));
		const r = await run(process.execPath, [CODEX, 'exec', '--strict-config',
		    '--skip-git-repo-check', `Use the ${mcp.name} tools.`], cwd, {
			HOME: home,
			CODEX_HOME: home,
			STAND_IN_API_KEY: 'sk-stand-in',
			...proxyEnv(trap),
		}, trace);
		return { si, r, script, trace };
	} finally {
		await si.close();
	}
}

/* The text of a function_call_output: a string, or input_text items. */
const codexText = (res) => (typeof res.output === 'string' ? res.output
    : res.output.filter((c) => c.type === 'input_text').map((c) => c.text).join('\n'));

/* The JSON Codex passed on, after the lines it puts before it. */
const codexJson = (res) => {
	const text = codexText(res);
	return JSON.parse(text.slice(text.indexOf('{')));
};

describe('Codex CLI', { skip: CODEX ? false : `no Codex binary for linux-${process.arch} `
    + `under ${MODULES}: run make test-hosts` }, () => {
	describe('toolcell-fs', () => {
		let turn;

		before(async () => {
			turn = await codex(await mcpServer('fs'), tree.p('elsewhere'), FS_SCRIPT());
		});

		test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
		});

		test('roots: Codex gives none, and the policy\'s directory is served', () => {
			assert.deepEqual(codexJson(result(turn, 0)),
			    { directories: [{ path: tree.p('proj'), access: 'read-only' }] });
			assert.match(codexText(result(turn, 3)), /outside the allowed directories$/);
		});

		test('body: a read over 1 MiB reaches the model, from its first line', (t) => {
			// Codex passes on the structured half, cut to its own
			// budget (a head and a tail); the body is in it.
			const big = result(turn, 1);
			assert.equal(typeof big.output, 'string', JSON.stringify(big).slice(0, 300));
			t.diagnostic(`read_text_file of 1.5 MiB: Codex passed on ${big.output.length} characters`);
			assert.ok(!big.output.includes('content_in_text'), big.output.slice(0, 300));
			assert.ok(big.output.includes(`"content":"${escaped(BIG.slice(0, 4000))}`),
			    big.output.slice(0, 600));
			assert.ok(big.output.includes(escaped(BIG.slice(-1000))), big.output.slice(-600));
		});

		test('image: read_media_file\'s image reaches the model as an image', (t) => {
			const image = result(turn, 2);
			t.diagnostic(`read_media_file: ${JSON.stringify(image.output).slice(0, 300)}`);
			assert.ok(Array.isArray(image.output), JSON.stringify(image).slice(0, 400));
			assert.ok(image.output.some((c) => c.type === 'input_image'
			    && c.image_url === `data:image/png;base64,${IMAGE.toString('base64')}`),
			    JSON.stringify(image.output).slice(0, 500));
		});
	});

	describe('toolcell-shell', () => {
		let turn;

		before(async () => {
			turn = await codex(await mcpServer('shell'), tree.p('proj'), SHELL_SCRIPT(codexText));
			await dump(turn, 'codex-shell');
		});

		test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
		});

		// Codex tells its model nothing of a result's isError: the
		// text is all it has.
		shellChecks(() => ({
			seen: async (k) => codexText(result(turn, k)),
			all: async (k) => results(turn, k).map(codexText),
			json: (k) => codexJson(result(turn, k)),
			isError: () => null,
		}));

		test('run_command: an output over 64 KiB reaches the model, its head and its tail', (t) => {
			// Codex cuts what it passes on to its own budget, a head and
			// a tail, from the structured half, which has every byte.
			const big = codexText(result(turn, SH.big));
			t.diagnostic(`cat of 1.5 MiB: Codex passed on ${big.length} characters`);
			assert.ok(big.includes(`"stdout":"${escaped(BIG.slice(0, 4000))}`), big.slice(0, 600));
			assert.ok(big.includes(escaped(BIG.slice(-1000))), big.slice(-600));
		});

		test('run_command: an output past the server\'s cap, its 8 MiB kept: the model is told it '
		    + 'was cut', (t) => {
			const huge = codexText(result(turn, SH.huge));
			t.diagnostic(`cat of 9 MiB: Codex passed on ${huge.length} characters`);
			for (const want of ['"stdout_truncated":true', `"stdout_bytes":${HUGE.length}`,
			    `"stdout":"${escaped(HUGE.slice(0, 4000))}`, escaped(HUGE.slice(8 * MIB - 1000, 8 * MIB))])
				assert.ok(huge.includes(want), `the model does not see ${want.slice(0, 100)}`);
		});
	});

	describe('toolcell-sqlite', { skip: unbuilt('sqlite') }, () => {
		let turn;

		before(async () => {
			turn = await codex(await mcpServer('sqlite'), tree.p('proj'), SQLITE_SCRIPT(codexText));
			await dump(turn, 'codex-sqlite');
		});

		test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
			await checkRun(t, turn);
		});

		sqliteChecks(() => ({
			seen: async (k) => codexText(result(turn, k)),
			all: async (k) => results(turn, k).map(codexText),
			json: (k) => codexJson(result(turn, k)),
			isError: () => null,
		}));
	});
});
