// lib.mjs: helpers for the end-to-end tests, which drive the real
// toolcell-fs binary with the official MCP client SDK.
//
//   BUILD=build node --test tests/e2e/sdk/            (from the repo root)
//   TOOLCELL_AS=nobody BUILD=build node --test tests/e2e/sdk/   (as root)
//
// BUILD names the build directory, relative to the repo root (default
// "build").  TOOLCELL_AS names a user to run the server as: when set and we
// are root, the binary is copied once into a world-readable temp dir and
// started through setpriv(1) with that user's uid and gid and no groups.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const REPO = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const BUILD = path.resolve(REPO, process.env.BUILD || 'build');
export const SERVER = path.join(BUILD, 'toolcell-fs');

/* toolcell-fs's tools in the order of its table (tools/list's order) that
 * a read-only policy offers, and those a writable directory adds. */
export const FS_TOOL_NAMES = ['list_allowed_directories', 'read_text_file', 'read_file',
    'list_directory', 'get_file_info', 'read_media_file', 'read_multiple_files',
    'list_directory_with_sizes', 'directory_tree', 'search_files', 'search_file_contents'];
export const FS_WRITE_TOOL_NAMES = ['write_file', 'edit_file', 'create_directory', 'move_file',
    'delete_file'];

/* An entry of list_directory or directory_tree: a regular file is its name
 * alone, anything else {name, type, ...}. */
export const entryName = (e) => (typeof e === 'string' ? e : e.name);
export const entryType = (e) => (typeof e === 'string' ? 'file' : e.type);

/* What a policy may name: every tool but read_file (an alias, which the
 * lines on read_text_file cover), and read_resource (resources/read). */
export const FS_POLICY_NAMES = [...FS_TOOL_NAMES.filter((n) => n !== 'read_file'),
    ...FS_WRITE_TOOL_NAMES, 'read_resource'];

/* Per-call timeout (ms) for tool calls made by the tests. */
export const CALL_TIMEOUT = 10_000;

// ---------------------------------------------------------------- run-as

let runAsCache;

/*
 * Returns null, or {user, uid, gid} when the tests must run the server as
 * another user (TOOLCELL_AS set and we are root).
 */
export function runAs() {
	if (runAsCache !== undefined)
		return runAsCache;
	const user = process.env.TOOLCELL_AS;
	if (!user || process.getuid?.() !== 0) {
		runAsCache = null;
		return runAsCache;
	}
	const id = (flag) => {
		const out = execFileSync('id', [flag, user], { encoding: 'utf8' }).trim();
		if (!/^\d+$/.test(out))
			throw new Error(`id ${flag} ${user}: unexpected output '${out}'`);
		return Number(out);
	};
	runAsCache = { user, uid: id('-u'), gid: id('-g') };
	return runAsCache;
}

/* The {uid, gid} the server (and so its hooks) runs as: runAs()'s, or ours. */
export function serverIds() {
	const as = runAs();
	return as ? { uid: as.uid, gid: as.gid } : { uid: process.getuid(), gid: process.getgid() };
}

let copyDir = null;
const copiedBinaries = new Map();

/*
 * Copies |server| once into a fresh 0755 temp dir the run-as user can
 * read.
 */
async function runAsBinary(server = SERVER) {
	if (copiedBinaries.has(server))
		return copiedBinaries.get(server);
	if (!copyDir) {
		copyDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-bin-'));
		await fsp.chmod(copyDir, 0o755);
	}
	const dst = path.join(copyDir, path.basename(server));
	await fsp.copyFile(server, dst);
	await fsp.chmod(dst, 0o755);
	copiedBinaries.set(server, dst);
	return dst;
}

process.on('exit', () => {
	if (copyDir)
		rmSync(copyDir, { recursive: true, force: true });
});

/*
 * Returns {command, args} that start toolcell-fs (or the binary |server|)
 * with |args|, honouring the run-as convention.
 */
export async function serverCommand(args = [], server = SERVER) {
	if (!existsSync(server))
		throw new Error(`${server} does not exist: run make first (or set BUILD)`);
	const as = runAs();
	if (!as)
		return { command: server, args: [...args] };
	const bin = await runAsBinary(server);
	return {
		command: 'setpriv',
		args: [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', bin, ...args],
	};
}

// ---------------------------------------------------------------- servers

/*
 * Starts toolcell-fs with |args| and connects the official client to it.
 *
 * opts.listTools (default true): call tools/list once after connecting, so
 *   the SDK caches every tool's outputSchema and validates structuredContent.
 * opts.env: extra environment for the server.
 * opts.capabilities: what the client declares (default none).
 * opts.clientInfo: the client's {name, version} (default toolcell-e2e 0.0.0).
 * opts.handlers: [schema, handler] pairs, the client's request handlers
 *   (elicitation/create, roots/list), set before initialize: the server may
 *   ask as soon as it is initialized.
 * opts.server: the binary to start instead of toolcell-fs.
 * opts.wrap: a command and arguments that start the server command (given
 *   as its last arguments) and exec it, e.g. a shell that opens an extra
 *   fd first; the server keeps the pid the SDK started.
 *
 * Returns {client, transport, stderr(), messages, initResult, exit, pid,
 *   clientErrors, close()}:
 *   messages     every message the server sent, as parsed JSON (raw, before
 *                the SDK's schemas strip anything)
 *   sent         every message the client sent
 *   initResult   the raw result of initialize
 *   exit         a promise of {code, signal, at} (at: Date.now() at exit)
 *   clientErrors errors the SDK reported through client.onerror
 *   close()      closes the client, and resolves to exit's value once the
 *                server has exited (the SDK closes its stdin, then sends
 *                SIGTERM after 2 s and SIGKILL 2 s later)
 */
export async function startServer(args = [], opts = {}) {
	const cmd = await serverCommand(args, opts.server ?? SERVER);
	const wrap = opts.wrap ?? [];
	const transport = new StdioClientTransport({
		command: wrap.length > 0 ? wrap[0] : cmd.command,
		args: wrap.length > 0 ? [...wrap.slice(1), cmd.command, ...cmd.args] : cmd.args,
		stderr: 'pipe',
		env: opts.env,
	});
	let errText = '';
	transport.stderr.setEncoding('utf8');
	transport.stderr.on('data', (s) => { errText += s; });

	const messages = [];
	const sent = [];
	let initResult = null;
	const origSend = transport.send.bind(transport);
	transport.send = (m, o) => {
		sent.push(m);
		return origSend(m, o);
	};
	const origStart = transport.start.bind(transport);
	transport.start = async () => {
		const handler = transport.onmessage;
		transport.onmessage = (m) => {
			messages.push(m);
			if (initResult === null && m?.result?.protocolVersion !== undefined)
				initResult = m.result;
			handler?.(m);
		};
		await origStart();
	};

	const client = new Client(opts.clientInfo ?? { name: 'toolcell-e2e', version: '0.0.0' },
	    { capabilities: opts.capabilities ?? {} });
	for (const [schema, handler] of opts.handlers ?? [])
		client.setRequestHandler(schema, handler);
	const clientErrors = [];
	client.onerror = (e) => { clientErrors.push(e); };

	let exitResolve;
	const exit = new Promise((resolve) => { exitResolve = resolve; });
	try {
		await client.connect(transport, { timeout: CALL_TIMEOUT });
	} catch (e) {
		await transport.close().catch(() => {});
		e.message += `\nserver stderr:\n${errText}`;
		throw e;
	}
	// The SDK keeps the child in a private field; watch it to learn how it
	// exits.  (Reading it is the only way to get the exit status.)
	const child = transport._process;
	const pid = transport.pid;
	if (child) {
		if (child.exitCode !== null || child.signalCode !== null)
			exitResolve({ code: child.exitCode, signal: child.signalCode, at: Date.now() });
		else
			child.once('exit', (code, signal) => exitResolve({ code, signal, at: Date.now() }));
	} else {
		exitResolve({ code: null, signal: null, at: Date.now(), unknown: true });
	}

	if (opts.listTools !== false)
		await client.listTools(undefined, { timeout: CALL_TIMEOUT });

	return {
		client,
		transport,
		stderr: () => errText,
		messages,
		sent,
		get initResult() { return initResult; },
		exit,
		pid,
		clientErrors,
		close: async () => {
			await client.close();
			return exit;
		},
	};
}

/*
 * Runs toolcell-fs (or the binary |server|) with |args| and empty stdin to
 * completion, without a client, honouring the run-as convention: for
 * --check and for failures at start.  Returns spawnSync()'s {status,
 * signal, stdout, stderr}; throws if it could not run or took over 10 s.
 */
export async function runServer(args, server = SERVER, env = undefined) {
	const cmd = await serverCommand(args, server);
	const r = spawnSync(cmd.command, cmd.args, { input: '', encoding: 'utf8', timeout: 10_000,
	    env: env === undefined ? undefined : { ...process.env, ...env } });
	if (r.error)
		throw r.error;
	return r;
}

/*
 * Calls tool |name| with |args| and returns the CallToolResult (tool errors
 * come back as results with isError).  Protocol errors throw.
 */
export function call(srv, name, args = {}, options = {}) {
	return srv.client.callTool({ name, arguments: args }, undefined,
	    { timeout: CALL_TIMEOUT, ...options });
}

/* Returns content[0].text of a result, checking it is a text item. */
export function textOf(result) {
	if (!Array.isArray(result?.content) || result.content.length === 0)
		throw new Error(`result has no content: ${JSON.stringify(result)}`);
	const c = result.content[0];
	if (c.type !== 'text' || typeof c.text !== 'string')
		throw new Error(`content[0] is not a text item: ${JSON.stringify(c)}`);
	return c.text;
}

/* Everything the server sent so far, as one string (for leak checks). */
export function transcript(srv) {
	return srv.messages.map((m) => JSON.stringify(m)).join('\n');
}

/* The file:// URI of absolute path |p|, each name percent-encoded. */
export function fileUri(p) {
	return `file://${p.split('/').map(encodeURIComponent).join('/')}`;
}

/* The lines of the audit log |file|, each {text, rec} (rec parsed); throws
 * unless the log ends with a whole line. */
export async function logLines(file) {
	const text = await fsp.readFile(file, 'utf8');
	if (!text.endsWith('\n'))
		throw new Error(`${file} does not end with a newline`);
	return text.slice(0, -1).split('\n').map((t) => ({ text: t, rec: JSON.parse(t) }));
}

/* The records of the audit log |file|, parsed. */
export async function logRecords(file) {
	return (await logLines(file)).map((l) => l.rec);
}

// ---------------------------------------------------------------- fixtures

const KIND = Symbol('toolcell-fixture-kind');

/* Fixture entries for makeTree() besides files (strings or Buffers). */
export const dir = () => ({ [KIND]: 'dir' });
export const symlink = (target) => ({ [KIND]: 'symlink', target });
export const fifo = () => ({ [KIND]: 'fifo' });
export const file = (content, mode = 0o644) => ({ [KIND]: 'file', content, mode });

/*
 * Makes a fixture tree in a fresh temp dir.  |spec| maps paths relative to
 * the tree to: a string or Buffer (a file, 0644), file(content, mode),
 * dir(), symlink(target) or fifo().  Parents are made as needed; entries
 * are created in the order given.  Dirs are 0755 and files 0644 (the temp
 * dir too), so a run-as user can read everything.
 *
 * Returns {root, p(rel), cleanup()}; root is canonical (realpath).
 */
export async function makeTree(spec = {}) {
	const root = await fsp.realpath(
	    await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-e2e-')));
	await fsp.chmod(root, 0o755);
	const mkparents = async (rel) => {
		const parts = rel.split('/').slice(0, -1);
		let cur = root;
		for (const part of parts) {
			cur = path.join(cur, part);
			try {
				await fsp.mkdir(cur);
				await fsp.chmod(cur, 0o755);
			} catch (e) {
				if (e.code !== 'EEXIST')
					throw e;
			}
		}
	};
	for (const [relRaw, v] of Object.entries(spec)) {
		const rel = relRaw.replace(/\/+$/, '');
		const abs = path.join(root, rel);
		await mkparents(rel);
		const kind = typeof v === 'string' || Buffer.isBuffer(v) || v instanceof Uint8Array
		    ? 'file' : v?.[KIND];
		switch (kind) {
		case 'file': {
			const content = v?.[KIND] ? v.content : v;
			const mode = v?.[KIND] ? v.mode : 0o644;
			await fsp.writeFile(abs, content);
			await fsp.chmod(abs, mode);
			break;
		}
		case 'dir':
			await fsp.mkdir(abs, { recursive: true });
			await fsp.chmod(abs, 0o755);
			break;
		case 'symlink':
			await fsp.symlink(v.target, abs);
			break;
		case 'fifo': {
			const r = spawnSync('mkfifo', ['-m', '0644', abs], { encoding: 'utf8' });
			if (r.status !== 0)
				throw new Error(`mkfifo ${abs}: ${r.stderr || r.error}`);
			break;
		}
		default:
			throw new Error(`makeTree: bad entry for '${relRaw}'`);
		}
	}
	return {
		root,
		p: (rel = '') => (rel ? path.join(root, rel) : root),
		cleanup: () => fsp.rm(root, { recursive: true, force: true }),
	};
}

/*
 * Makes a scratch directory for what a test file writes besides its tree
 * (policies, hooks, logs): fresh, canonical, 0755, named after |name|.
 * Returns {root, unique(stem, ext), policy(lines), ownedDir(), cleanup()}:
 *   unique(stem, ext)  a new path in it, "<stem>-<n><ext>"; nothing is made
 *   policy(lines)      writes |lines| to a new 0644 file "<name>-<n>.policy";
 *                      returns its path
 *   ownedDir()         makes a new 0700 directory that the server's user owns
 *                      (for logs, keys, what hooks write); returns its path
 *   sqliteDb(name)     makes a new directory holding an empty file |name|
 *                      (default app.db: an empty file is an empty SQLite
 *                      database), both the server's user's; returns the
 *                      file's path
 * The functions need no |this|: a test file may destructure them.
 */
export async function makeScratch(name) {
	const root = await fsp.realpath(
	    await fsp.mkdtemp(path.join(os.tmpdir(), `toolcell-${name}-`)));
	await fsp.chmod(root, 0o755);
	let n = 0;
	const unique = (stem, ext = '') => path.join(root, `${stem}-${++n}${ext}`);
	return {
		root,
		unique,
		policy: async (lines) => {
			const p = unique(name, '.policy');
			await fsp.writeFile(p, lines.join('\n') + '\n');
			await fsp.chmod(p, 0o644);
			return p;
		},
		ownedDir: async () => {
			const d = unique('owned');
			await fsp.mkdir(d);
			await fsp.chmod(d, 0o700);
			const { uid, gid } = serverIds();
			await fsp.chown(d, uid, gid);
			return d;
		},
		sqliteDb: async (file = 'app.db') => {
			const dir = unique('db');
			await fsp.mkdir(dir);
			const db = path.join(dir, file);
			await fsp.writeFile(db, '');
			const { uid, gid } = serverIds();
			await fsp.chown(dir, uid, gid);
			await fsp.chown(db, uid, gid);
			return db;
		},
		cleanup: () => fsp.rm(root, { recursive: true, force: true }),
	};
}

/*
 * Lists the directory |dir|, which may be one the server keeps unreadable
 * to its own user (toolcell-shell's calls and spent, mode 0300): where
 * the test runs as that user (make test as a normal user), it gives
 * itself the read bit for the listing and takes it back.
 */
export function readdirOwned(dir) {
	try {
		return readdirSync(dir);
	} catch (e) {
		if (e.code !== 'EACCES')
			throw e;
	}
	const mode = statSync(dir).mode & 0o7777;
	chmodSync(dir, mode | 0o400);
	try {
		return readdirSync(dir);
	} finally {
		chmodSync(dir, mode);
	}
}

/* A string that cannot occur by accident: the content of "secret" files. */
export function secretToken() {
	return `TOOLCELL-SECRET-${randomUUID()}`;
}

// ---------------------------------------------------------------- waiting

/* Rejects with |what| if |promise| has not settled within |ms|. */
export function withTimeout(promise, ms, what) {
	let timer;
	return Promise.race([
		promise,
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
		}),
	]).finally(() => clearTimeout(timer));
}

/*
 * Calls |fn| (it may be async) every 20 ms until it returns a truthy value,
 * and returns that value; throws "|what|: not within |ms| ms" once |ms| ms
 * have passed.  The way to wait for something to happen.
 */
export async function until(fn, ms, what) {
	const end = Date.now() + ms;
	for (;;) {
		const v = await fn();
		if (v)
			return v;
		if (Date.now() > end)
			throw new Error(`${what}: not within ${ms} ms`);
		await sleep(20);
	}
}

/* Resolves after |ms| ms: for pacing, or to give what must not happen the
 * time to; to wait for something that does happen, use until(). */
export function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

// For the demo, which lives outside this package and so cannot resolve the
// SDK by name itself.
export { Client, StdioClientTransport };
