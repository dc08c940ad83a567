// docs.test.mjs: the documentation says what the code does.
//
// (a) Every policy shown in the documentation -- the fenced blocks of
//     README.md, policy/README.md and docs/*.md, the literal displays of
//     the man pages, and policy/examples/*.policy -- passes
//     `toolcell-fs --policy FILE --check` with the paths it names created
//     (in a temp dir: ~ is its HOME, an absolute path is made beneath it,
//     a consent hook is a copy of policy/hooks/ or a stub, an audit log's
//     directory and key are made), with nothing on stderr.  A policy that
//     is shown to draw a warning says so in a comment,
//         # --check warns: TEXT
//     and then every line on stderr holds one such TEXT, and each TEXT
//     some line.  A block is a policy when its first line that is not a
//     comment starts with a keyword of toolcell-policy(5); one with no
//     `allow` line (a fragment) is checked after `allow read DIR`.
//
//     A policy whose `[shell]` section names programs passes
//     `toolcell-shell --policy FILE --check` as well, the same way, when
//     the programs it names by name are installed (else the test says
//     which is missing and skips).  The warning that calls run as root is
//     the machine's, not the policy's, and is not counted.  One whose
//     `[sqlite]` section names databases passes `toolcell-sqlite --check`
//     as it is written (no `allow` line added: it needs none), each
//     database an empty file.
//
// (b) Every tool list in the documentation names exactly the tools of
//     tools/list (a writable directory served, so all of them).  A list is
//     marked, in markdown by <!-- tools: toolcell-fs --> ... <!-- /tools -->
//     and in a man page by .\" tools: toolcell-fs ... .\" /tools; in it
//     every snake_case word in backquotes (markdown) or after .Ic, .Cm or
//     .Li (man) that is not an argument or result member of some tool is
//     taken for a tool name.  The files that hold a list must keep one.
//
// Stale documentation fails the build.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { BUILD, REPO, makeTree, serverCommand, serverIds, startServer } from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');
const SQLITE = path.join(BUILD, 'toolcell-sqlite');
/* Where toolcell-shell finds a program named by a bare name (shell.h). */
const SHELL_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];
/* What --check says of the machine, not of the policy: calls as root. */
const MACHINE_WARNING = /warning: calls run as root: no process limit holds/;

/* The keywords of toolcell-policy(5). */
const KEYWORDS = new Set(['allow', 'deny', 'default-deny', 'tools', 'tool', 'timeout',
    'limit', 'consent', 'consent-by', 'consent-hook', 'consent-timeout', 'audit',
    'audit-key', 'audit-sync', 'audit-rotate', 'network', 'write-sync', 'roots',
    'roots-timeout', 'run-as', 'allow-degraded']);

/* The files whose tool lists are marked, and must stay so. */
const LISTED = ['README.md', 'policy/README.md', 'docs/tools.md',
    'servers/fs/toolcell-fs.1', 'servers/fs/toolcell-policy.5'];

/* Names a list may give besides the tools: resources/read's, for policies. */
const NOT_TOOLS_BUT_NAMED = new Set(['read_resource']);

const rel = (f) => path.relative(REPO, f);

function docFiles() {
	const md = ['README.md', 'policy/README.md'].map((f) => path.join(REPO, f));
	const docs = path.join(REPO, 'docs');
	if (existsSync(docs))
		for (const f of readdirSync(docs).sort())
			if (f.endsWith('.md'))
				md.push(path.join(docs, f));
	const man = [];
	for (const dir of ['servers/fs', 'servers/shell', 'servers/sqlite', 'audit'])
		for (const f of readdirSync(path.join(REPO, dir)).sort())
			if (/\.[1-8]$/.test(f))
				man.push(path.join(REPO, dir, f));
	const ex = readdirSync(path.join(REPO, 'policy/examples')).sort()
	    .filter((f) => f.endsWith('.policy'))
	    .map((f) => path.join(REPO, 'policy/examples', f));
	return { md, man, ex };
}

/* The blocks of |file| as {where, lines}: fenced code in markdown, -literal
 * displays in a man page (escapes undone). */
function blocks(file) {
	const text = readFileSync(file, 'utf8').split('\n');
	const out = [];
	let cur = null;
	text.forEach((line, i) => {
		if (file.endsWith('.md')) {
			if (/^\s*```/.test(line)) {
				if (cur) {
					out.push(cur);
					cur = null;
				} else {
					cur = { where: `${rel(file)}:${i + 1}`, lines: [] };
				}
			} else if (cur) {
				cur.lines.push(line);
			}
			return;
		}
		if (/^\.Bd\s+-literal/.test(line)) {
			cur = { where: `${rel(file)}:${i + 1}`, lines: [] };
		} else if (/^\.Ed\b/.test(line) && cur) {
			out.push(cur);
			cur = null;
		} else if (cur) {
			cur.lines.push(line.replace(/\\&/g, '').replace(/\\e/g, '\\'));
		}
	});
	return out;
}

/* The words of a policy line, as the policy reads them, up to a comment. */
function words(line) {
	const w = [];
	const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
	let m;
	while ((m = re.exec(line)) !== null) {
		if (m[2] !== undefined && m[2].startsWith('#'))
			break;
		w.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]);
	}
	return w;
}

function isPolicy(lines) {
	for (const l of lines) {
		const w = words(l);
		if (w.length === 0)
			continue;
		return KEYWORDS.has(w[0]) || /^\[[a-z]+\]$/.test(w[0]);
	}
	return false;
}

/* Every policy in the documentation, as {where, text}. */
function docPolicies() {
	const { md, man, ex } = docFiles();
	const out = [];
	for (const f of [...md, ...man])
		for (const b of blocks(f))
			if (isPolicy(b.lines))
				out.push({ where: b.where, text: b.lines.join('\n') + '\n' });
	for (const f of ex)
		out.push({ where: rel(f), text: readFileSync(f, 'utf8') });
	return out;
}

const quote = (w) => (/^[^\s"\\#]+$/.test(w) ? w : `"${w.replace(/[\\"]/g, '\\$&')}"`);

/*
 * Rewrites |text| for a temp dir |t| (HOME is t/home; an absolute path in
 * a place that names a file is moved beneath t/root) and makes what it
 * names.  Returns {text, warns}: the policy to check and the warnings its
 * comments announce.
 */
async function prepare(text, t) {
	const home = path.join(t, 'home');
	const { uid, gid } = serverIds();
	const local = (p) => (p.startsWith('~/') ? path.join(home, p.slice(2)) :
	    path.join(t, 'root', p));
	// Parents every user can search, as a home's are; |d| with |mode|.
	const mkdirs = async (d, mode = 0o755) => {
		await fsp.mkdir(path.dirname(d), { recursive: true, mode: 0o755 });
		await fsp.mkdir(d, { recursive: true, mode });
		await fsp.chmod(d, mode);
	};
	const out = [];
	const warns = [];
	let allows = 0;
	for (const line of text.split('\n')) {
		const m = /#\s*--check warns:\s*(.*\S)/.exec(line);
		if (m)
			warns.push(m[1]);
		const w = words(line);
		if (w.length === 0)
			continue;
		let at = -1;
		if (w[0] === 'allow' && w.length >= 3)
			at = 2;
		else if (w[0] === 'database' && w.length >= 3) {
			// toolcell-sqlite's: an empty file is an empty database.
			const real = local(w[2]);
			if (w[2].startsWith('/'))
				w[2] = real;
			await mkdirs(path.dirname(real));
			await fsp.writeFile(real, '');
			await fsp.chown(path.dirname(real), uid, gid);
			await fsp.chown(real, uid, gid);
		}
		else if (['consent-hook', 'audit', 'audit-key'].includes(w[0]) && w.length >= 2)
			at = 1;
		if (at >= 0) {
			const real = local(w[at]);
			if (w[at].startsWith('/'))
				w[at] = real;
			if (w[0] === 'allow') {
				allows++;
				await mkdirs(real);
				// The user's own directory, as the server's user
				// (nobody, in the suite's second pass) has it.
				if (w[1] === 'write')
					await fsp.chown(real, uid, gid);
			} else if (w[0] === 'consent-hook') {
				await mkdirs(path.dirname(real));
				const hook = path.join(REPO, 'policy/hooks', path.basename(real));
				await fsp.writeFile(real, existsSync(hook) ? readFileSync(hook) :
				    '#!/bin/sh\nexit 1\n');
				await fsp.chmod(real, 0o755);
			} else {
				await mkdirs(path.dirname(real), 0o700);
				await fsp.chown(path.dirname(real), uid, gid);
				if (w[0] === 'audit-key') {
					await fsp.writeFile(real, randomBytes(32));
					await fsp.chmod(real, 0o600);
					await fsp.chown(real, uid, gid);
				}
			}
		}
		out.push(w.map(quote).join(' '));
	}
	// As written, for toolcell-sqlite, which needs no allow line.
	const own = out.join('\n') + '\n';
	if (allows === 0) {
		await mkdirs(path.join(t, 'fragment'));
		out.unshift(`allow read ${quote(path.join(t, 'fragment'))}`);
	}
	return { text: out.join('\n') + '\n', warns, own };
}

let base;
let listed;

before(async () => {
	base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-docs-')));
	await fsp.chmod(base, 0o755);
	const tree = await makeTree({ 'a.txt': 'a\n' });
	const srv = await startServer(['--write', tree.root]);
	try {
		listed = (await srv.client.listTools()).tools;
	} finally {
		await srv.close();
		await tree.cleanup();
	}
});

after(async () => {
	await fsp.rm(base, { recursive: true, force: true });
});

describe('every policy in the documentation passes --check', () => {
	const all = docPolicies();

	test('there are policies to check', () => {
		assert.ok(all.length >= 5, `only ${all.length} policies found`);
	});

	let n = 0;
	for (const pol of all) {
		test(pol.where, async () => {
			const t = path.join(base, `p${++n}`);
			await fsp.mkdir(t, { mode: 0o755 });
			await fsp.chmod(t, 0o755);
			const { text, warns } = await prepare(pol.text, t);
			const file = path.join(t, 'doc.policy');
			await fsp.writeFile(file, text);
			await fsp.chmod(file, 0o644);
			await checked(file, t, text, warns);
		});
	}

	// A block that shows the sections without programs is no
	// toolcell-shell policy: it would not start.
	const shell = all.filter((pol) => programsNamed(pol.text).length > 0);
	test('there are [shell] policies to check', () => {
		assert.ok(shell.length >= 3, `only ${shell.length} found`);
	});
	for (const pol of shell) {
		test(`${pol.where} (toolcell-shell)`, async (t) => {
			const missing = programsNamed(pol.text).filter((p) =>
			    !p.includes('/') && !SHELL_PATH.some((d) => existsSync(path.join(d, p))));
			if (missing.length > 0) {
				t.skip(`not installed here: ${missing.join(', ')}`);
				return;
			}
			const dir = path.join(base, `p${++n}`);
			await fsp.mkdir(dir, { mode: 0o755 });
			await fsp.chmod(dir, 0o755);
			const { text, warns } = await prepare(pol.text, dir);
			const file = path.join(dir, 'doc.policy');
			await fsp.writeFile(file, text);
			await fsp.chmod(file, 0o644);
			await checked(file, dir, text, warns, SHELL);
		});
	}

	const sqlite = all.filter((pol) => databasesNamed(pol.text).length > 0);
	test('there are [sqlite] policies to check', () => {
		assert.ok(sqlite.length >= 3, `only ${sqlite.length} found`);
	});
	for (const pol of sqlite) {
		test(`${pol.where} (toolcell-sqlite)`, async () => {
			const dir = path.join(base, `p${++n}`);
			await fsp.mkdir(dir, { mode: 0o755 });
			await fsp.chmod(dir, 0o755);
			const { own, warns } = await prepare(pol.text, dir);
			const file = path.join(dir, 'doc.policy');
			await fsp.writeFile(file, own);
			await fsp.chmod(file, 0o644);
			await checked(file, dir, own, warns, SQLITE);
		});
	}
});

/* The names of the "database" lines of a policy's [sqlite] section. */
function databasesNamed(text) {
	const out = [];
	let inSqlite = false;
	for (const line of text.split('\n')) {
		const w = words(line);
		if (w.length === 0)
			continue;
		if (/^\[[a-z]+\]$/.test(w[0]))
			inSqlite = w[0] === '[sqlite]';
		else if (inSqlite && w[0] === 'database' && w.length >= 3)
			out.push(w[1]);
	}
	return out;
}

/* The programs of the "program" lines of a policy's [shell] section. */
function programsNamed(text) {
	const out = [];
	let inShell = false;
	for (const line of text.split('\n')) {
		const w = words(line);
		if (w.length === 0)
			continue;
		if (/^\[[a-z]+\]$/.test(w[0]))
			inShell = w[0] === '[shell]';
		else if (inShell && w[0] === 'program' && w.length >= 2)
			out.push(w[1]);
	}
	return out;
}

/*
 * Runs |server| (toolcell-fs by default) with --policy |file| --check,
 * HOME in |t|: it must pass, and say on stderr the warnings |warns| and
 * nothing else (but the machine's own).
 */
async function checked(file, t, text, warns, server) {
	const cmd = await serverCommand(['--policy', file, '--check'], server);
	const r = spawnSync(cmd.command, cmd.args, {
		input: '', encoding: 'utf8', timeout: 10_000,
		env: { ...process.env, HOME: path.join(t, 'home') },
	});
	if (r.error)
		throw r.error;
	const show = `policy as checked:\n${text}stderr:\n${r.stderr}`;
	assert.equal(r.status, 0, show);
	const lines = r.stderr.split('\n').filter((l) => l !== '' && !MACHINE_WARNING.test(l));
	for (const l of lines)
		assert.ok(warns.some((w) => l.includes(w)),
		    `not announced by a '# --check warns:' comment: ${l}\n${show}`);
	for (const w of warns)
		assert.ok(lines.some((l) => l.includes(w)),
		    `announced but not printed: ${w}\n${show}`);
}

/* Every property name in |schema|, at any depth. */
function members(schema, into) {
	if (Array.isArray(schema)) {
		for (const s of schema)
			members(s, into);
	} else if (schema && typeof schema === 'object') {
		for (const [k, v] of Object.entries(schema)) {
			if (k === 'properties' && v && typeof v === 'object')
				for (const name of Object.keys(v))
					into.add(name);
			members(v, into);
		}
	}
	return into;
}

/* The marked tool lists of |file|, as {where, names}. */
function toolLists(file) {
	const md = file.endsWith('.md');
	const open = md ? /^<!--\s*tools:\s*toolcell-fs\s*-->/ : /^\.\\"\s*tools:\s*toolcell-fs\s*$/;
	const close = md ? /^<!--\s*\/tools\s*-->/ : /^\.\\"\s*\/tools\s*$/;
	const out = [];
	let cur = null;
	readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
		if (open.test(line)) {
			cur = { where: `${rel(file)}:${i + 1}`, names: [] };
		} else if (close.test(line) && cur) {
			out.push(cur);
			cur = null;
		} else if (cur) {
			const re = md ? /`([^`\s]+)`/g : /^\.(?:Ic|Cm|Li)\s+(\S+)/g;
			let m;
			while ((m = re.exec(line)) !== null)
				cur.names.push(m[1]);
		}
	});
	assert.equal(cur, null, `${rel(file)}: a tool list is not closed`);
	return out;
}

describe('every tool list in the documentation is tools/list', () => {
	test('each file that lists the tools has a marked list', () => {
		for (const f of LISTED)
			assert.ok(toolLists(path.join(REPO, f)).length > 0,
			    `${f}: no <!-- tools: toolcell-fs --> (or .\\" tools: toolcell-fs) list`);
	});

	const { md, man } = docFiles();
	for (const f of [...md, ...man]) {
		for (const list of toolLists(f)) {
			test(list.where, () => {
				const tools = new Set(listed.map((t) => t.name));
				const schema = new Set();
				for (const t of listed) {
					members(t.inputSchema, schema);
					members(t.outputSchema, schema);
				}
				const named = new Set(list.names.filter((w) =>
				    /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(w) &&
				    (tools.has(w) || !schema.has(w))));
				const missing = [...tools].filter((t) => !named.has(t));
				const extra = [...named].filter((w) => !tools.has(w) &&
				    !NOT_TOOLS_BUT_NAMED.has(w));
				assert.deepEqual({ missing, extra }, { missing: [], extra: [] },
				    `${list.where}: the list is not tools/list`);
			});
		}
	}
});
