// hosts.test.mjs: what the model receives when toolcell-fs runs under real
// host CLIs: Claude Code and Codex CLI, installed from npm at the versions
// tests/hosts/package-lock.json pins (make test-hosts installs them).
//
// Each CLI runs one non-interactive turn with toolcell-fs as its MCP
// server, against a local stand-in for its model API (stand-in.mjs) that
// asks for scripted tool calls and records the tool results the CLI sends
// back: what its model would have read.  The checks are the three things
// that went wrong in real hosts:
//
//   roots   Claude Code sends its working directory as its MCP roots; a
//           host started outside the served directory must still be
//           served, and be told why (list_allowed_directories, refusals).
//   body    Claude Code and Codex pass on only structuredContent: a read
//           over 1 MiB must carry its body there.
//   image   Codex passes on only structuredContent when there is one:
//           read_media_file's image must reach its model.
//
// Nothing leaves the machine: each CLI gets its API's base URL (the
// stand-in, on loopback), a made-up key, a fresh HOME (and CODEX_HOME),
// telemetry, error reporting, update checks and Codex's plugins and apps
// off (its plugin marketplace sync otherwise reaches out at start), and
// HTTPS_PROXY and the rest pointed at a loopback trap that refuses and
// records anything meant elsewhere; the checks require that it caught
// nothing and that the stand-in saw no request it does not serve.  Where
// strace(1) is installed, each CLI also runs under it, and every connect(2)
// it or its children made must be to the stand-in: this holds for a CLI
// that would ignore the proxy variables, and for name lookups.
//
//   BUILD=build node --test tests/hosts/hosts.test.mjs     (make test-hosts)
//
// TOOLCELL_AS=nobody runs toolcell-fs as that user, as the other suites do.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

import { makeScratch, makeTree, serverCommand } from '../e2e/sdk/lib.mjs';
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

let tree, scratch, policy, trap;

before(async () => {
	tree = await makeTree({
		'proj/big.txt': BIG,
		'proj/dot.png': IMAGE,
		'proj/sub/small.txt': 'small\n',
		'elsewhere/here.txt': 'not served\n',
	});
	scratch = await makeScratch('hosts');
	// The policy serves proj alone; the hosts start in elsewhere or in
	// proj/sub, and send that as their roots.
	policy = await scratch.policy([`allow read ${tree.p('proj')}`]);
	trap = await startTrap();
});

after(async () => {
	await trap?.close();
	await tree?.cleanup();
	await scratch?.cleanup();
});

/* The MCP server the hosts start: toolcell-fs with the policy. */
async function server() {
	return serverCommand(['--policy', policy]);
}

/* Fails with what the stand-in recorded, for a run that went wrong. */
function explain(si, r) {
	const results = [...si.results.entries()].map(([id, v]) =>
	    `${id}: ${JSON.stringify(v).slice(0, 600)}`).join('\n');
	return `exit ${r.code} ${r.signal ?? ''}\ncalls: ${JSON.stringify(si.calls)}\n`
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

/* Checks what every run must show: the CLI finished, every scripted call
 * was made and answered, and nothing was sent anywhere but the stand-in. */
async function checkRun(t, turn) {
	const { si, r, script, trace } = turn;
	const why = explain(si, r);
	assert.equal(r.code, 0, why);
	assert.deepEqual(si.calls.map((c) => c.tool), script.map((s) => s.tool), why);
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

/* The tool result the host sent back for the |i|th scripted call. */
function result(turn, i) {
	const c = turn.si.calls[i];
	const res = c && turn.si.results.get(c.id);
	assert.ok(res, `no result for call ${i} (${turn.script[i].tool})\n${explain(turn.si, turn.r)}`);
	return res;
}

/* The JSON-escaped form of |s| as it appears inside a JSON string. */
const escaped = (s) => JSON.stringify(s).slice(1, -1);

/* What the hosts are asked to do. */
const SCRIPT = () => [
	{ tool: 'list_allowed_directories', args: {} },
	{ tool: 'read_text_file', args: { path: tree.p('proj/big.txt'), max_bytes: 4 * MIB } },
	{ tool: 'read_media_file', args: { path: tree.p('proj/dot.png') } },
	{ tool: 'read_text_file', args: { path: tree.p('elsewhere/here.txt') } },
];

/* --- Claude Code --- */

const CLAUDE = claudeBinary();

describe('Claude Code', { skip: CLAUDE ? false : `no Claude Code binary for linux-${process.arch} `
    + `under ${MODULES}: run make test-hosts` }, () => {
	/* Runs one turn of Claude Code in |cwd| with |script|; returns
	 * {si, r, script, trace, home}. */
	async function claude(cwd, script) {
		const si = await startStandIn(script);
		const home = await fsp.mkdtemp(path.join(scratch.root, 'claude-home-'));
		const trace = `${home}.strace`;
		try {
			const cfg = path.join(home, 'mcp.json');
			const cmd = await server();
			await fsp.writeFile(cfg, JSON.stringify({ mcpServers: {
			    fs: { command: cmd.command, args: cmd.args } } }));
			const r = await run(CLAUDE, ['--bare', '-p', 'Use the fs tools.',
			    '--mcp-config', cfg, '--strict-mcp-config',
			    '--allowedTools', script.map((s) => `mcp__fs__${s.tool}`).join(' '),
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
	const textOf = (res) => (typeof res.content === 'string' ? res.content
	    : res.content.filter((c) => c.type === 'text').map((c) => c.text).join(''));

	let turn, outside;

	before(async () => {
		// Started in the served directory, for what a read returns;
		// and in a directory the policy does not serve, as a host
		// configured once and started elsewhere is, for the roots.
		turn = await claude(tree.p('proj'), SCRIPT());
		outside = await claude(tree.p('elsewhere'), [
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
		t.diagnostic(`list_allowed_directories: ${textOf(list)}`);
		assert.notEqual(list.is_error, true, textOf(list));
		const sc = JSON.parse(textOf(list));
		assert.deepEqual(sc.directories, [{ path: tree.p('proj'), access: 'read-only' }]);
		assert.equal(sc.served, 'policy');
		assert.deepEqual(sc.client_roots, [tree.p('elsewhere')]);
		assert.match(sc.note, new RegExp(`^The client's roots: ${tree.p('elsewhere')}\\. None of them`));
		// What it serves is read; what the client's root names is not.
		assert.equal(JSON.parse(textOf(result(outside, 1))).content, 'small\n');
		const refused = result(outside, 2);
		assert.equal(refused.is_error, true);
		assert.equal(textOf(refused), `'${tree.p('elsewhere/here.txt')}': outside the allowed `
		    + `directories. ${sc.note}`);
	});

	test('body: a read over 1 MiB reaches the model whole', async (t) => {
		// Claude Code passes on the structured half; a result this large
		// it keeps in a file and gives the model the path.  Either way,
		// what the model can read holds the body.
		let held = textOf(result(turn, 1));
		const saved = held.match(/Output has been saved to (\/\S+?)\.?\n/);
		t.diagnostic(`read_text_file of 1.5 MiB: ${saved ? `saved by Claude Code to ${saved[1]}`
		    : `${held.length} characters inline`}`);
		if (saved) {
			assert.ok(saved[1].startsWith(turn.home), saved[1]);
			held = await fsp.readFile(saved[1], 'utf8');
		}
		assert.ok(!held.includes('content_in_text'), held.slice(0, 300));
		assert.equal(JSON.parse(held).content, BIG);
	});

	test('image: read_media_file\'s image reaches the model', () => {
		const image = result(turn, 2);
		assert.notEqual(image.is_error, true, JSON.stringify(image).slice(0, 300));
		assert.ok(Array.isArray(image.content), JSON.stringify(image).slice(0, 300));
		assert.ok(image.content.some((c) => c.type === 'image' && c.source?.type === 'base64'
		    && c.source.media_type === 'image/png' && c.source.data === IMAGE.toString('base64')),
		    JSON.stringify(image.content).slice(0, 500));
	});

	test('roots: started inside the served directory, narrowed to it, and told so', async (t) => {
		const inside = await claude(tree.p('proj/sub'), [
			{ tool: 'list_allowed_directories', args: {} },
			{ tool: 'read_text_file', args: { path: 'small.txt' } },
		]);
		await checkRun(t, inside);
		const sc = JSON.parse(textOf(result(inside, 0)));
		assert.deepEqual(sc.directories, [{ path: tree.p('proj/sub'), access: 'read-only' }]);
		assert.equal(sc.served, 'narrowed');
		assert.deepEqual(sc.client_roots, [tree.p('proj/sub')]);
		assert.equal(JSON.parse(textOf(result(inside, 1))).content, 'small\n');
	});
});

/* --- Codex CLI --- */

const CODEX = codexBinary();

describe('Codex CLI', { skip: CODEX ? false : `no Codex binary for linux-${process.arch} `
    + `under ${MODULES}: run make test-hosts` }, () => {
	/* Runs one turn of Codex in |cwd| with |script|; returns {si, r,
	 * script, trace}. */
	async function codex(cwd, script) {
		const si = await startStandIn(script);
		const home = await fsp.mkdtemp(path.join(scratch.root, 'codex-home-'));
		const trace = `${home}.strace`;
		try {
			const cmd = await server();
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
				'[mcp_servers.fs]',
				`command = ${q(cmd.command)}`,
				`args = [${cmd.args.map(q).join(', ')}]`,
				'',
			].join('\n'));
			const r = await run(process.execPath, [CODEX, 'exec', '--strict-config',
			    '--skip-git-repo-check', 'Use the fs tools.'], cwd, {
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

	let turn;

	before(async () => {
		turn = await codex(tree.p('elsewhere'), SCRIPT());
	});

	test('the turn ran: every call answered, nothing sent but to the stand-in', async (t) => {
		await checkRun(t, turn);
	});

	/* The text of a function_call_output: a string, or input_text items. */
	const textOf = (res) => (typeof res.output === 'string' ? res.output
	    : res.output.filter((c) => c.type === 'input_text').map((c) => c.text).join('\n'));

	test('roots: Codex gives none, and the policy\'s directory is served', () => {
		const text = textOf(result(turn, 0));
		assert.deepEqual(JSON.parse(text.slice(text.indexOf('{'))),
		    { directories: [{ path: tree.p('proj'), access: 'read-only' }] });
		assert.match(textOf(result(turn, 3)), /outside the allowed directories$/);
	});

	test('body: a read over 1 MiB reaches the model, from its first line', (t) => {
		// Codex passes on the structured half, cut to its own budget
		// (a head and a tail); the body is in it.
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
