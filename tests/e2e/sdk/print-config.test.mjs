// print-config.test.mjs: toolcell-fs --print-config HOST [DIR...] prints
// the entry that starts the server from HOST, in the format HOST reads --
// JSON for Claude Code, Claude Desktop, Cursor, Gemini CLI, VS Code and
// Zed, TOML for Codex CLI -- with the binary's absolute path (as
// /proc/self/exe has it) and the directories and policy made absolute;
// Claude Desktop on Windows starts it through wsl.exe, on macOS through
// ssh, whose remote shell gets each argument quoted.  An unknown host is
// a usage error that lists the known ones.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { makeTree, runAs, serverCommand, startServer } from './lib.mjs';

const HOSTS = ['claude-code', 'claude-desktop', 'claude-desktop-ssh', 'claude-desktop-wsl',
    'codex', 'cursor', 'gemini', 'vscode', 'zed'];

/* Where each host keeps its servers: the top-level member (the table for
 * Codex), and what an entry holds besides command and args. */
const SHAPE = {
	'claude-code': { top: 'mcpServers', extra: { type: 'stdio' } },
	'claude-desktop': { top: 'mcpServers', extra: {} },
	'claude-desktop-ssh': { top: 'mcpServers', extra: {} },
	'claude-desktop-wsl': { top: 'mcpServers', extra: {} },
	codex: { top: 'mcp_servers', extra: {} },
	cursor: { top: 'mcpServers', extra: {} },
	gemini: { top: 'mcpServers', extra: {} },
	vscode: { top: 'servers', extra: { type: 'stdio' } },
	zed: { top: 'context_servers', extra: { source: 'custom', env: {} } },
};

/*
 * A strict reader of the TOML a Codex entry is written in: table headers
 * of bare or quoted keys, and `key = value` where value is a basic string
 * or an array of them.  Anything else throws, so that a snippet Codex
 * could not read fails here too.
 */
function parseToml(text) {
	const root = {};
	let table = root;
	const str = (s, i) => {
		assert.equal(s[i], '"', `a string at ${i}: ${s}`);
		let out = '';
		for (i++; i < s.length; i++) {
			const c = s[i];
			if (c === '"')
				return [out, i + 1];
			if (c === '\\') {
				const e = s[++i];
				const simple = { '"': '"', '\\': '\\', b: '\b', t: '\t', n: '\n', f: '\f', r: '\r' };
				if (e in simple) {
					out += simple[e];
				} else if (e === 'u' || e === 'U') {
					const n = e === 'u' ? 4 : 8;
					const hex = s.slice(i + 1, i + 1 + n);
					assert.match(hex, new RegExp(`^[0-9A-Fa-f]{${n}}$`), `escape in ${s}`);
					out += String.fromCodePoint(parseInt(hex, 16));
					i += n;
				} else {
					throw new Error(`bad escape \\${e} in ${s}`);
				}
			} else {
				const cp = c.codePointAt(0);
				assert.ok(!(cp < 0x20 && c !== '\t') && cp !== 0x7f,
				    `a raw control character in a basic string: ${JSON.stringify(s)}`);
				out += c;
			}
		}
		throw new Error(`unterminated string: ${s}`);
	};
	const key = (s, i) => {
		if (s[i] === '"')
			return str(s, i);
		const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
		assert.ok(m, `a key at ${i}: ${s}`);
		return [m[0], i + m[0].length];
	};
	for (const line of text.split('\n')) {
		if (line.trim() === '' || line.trim().startsWith('#'))
			continue;
		if (line.startsWith('[')) {
			let i = 1;
			table = root;
			for (;;) {
				let k;
				[k, i] = key(line, i);
				table[k] ??= {};
				table = table[k];
				if (line[i] === '.') {
					i++;
					continue;
				}
				assert.equal(line.slice(i), ']', `a table header: ${line}`);
				break;
			}
			continue;
		}
		let [k, i] = key(line, 0);
		assert.equal(line.slice(i, i + 3), ' = ', `key = value: ${line}`);
		i += 3;
		let v;
		if (line[i] === '[') {
			v = [];
			i++;
			while (line[i] !== ']') {
				let s;
				[s, i] = str(line, i);
				v.push(s);
				if (line.slice(i, i + 2) === ', ')
					i += 2;
				else
					assert.equal(line[i], ']', `an array: ${line}`);
			}
			i++;
		} else {
			[v, i] = str(line, i);
		}
		assert.equal(line.slice(i), '', `the end of the line: ${line}`);
		assert.ok(!(k in table), `key ${k} given twice`);
		table[k] = v;
	}
	return root;
}

/* Python's tomllib, where there is one, as a second reader; else null. */
function pythonToml(text) {
	const r = spawnSync('python3', ['-c',
	    'import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'],
	{ input: text, encoding: 'utf8' });
	if (r.error || r.status !== 0 && /No module named 'tomllib'/.test(r.stderr))
		return null;
	assert.equal(r.status, 0, `tomllib refuses it: ${r.stderr}\n${text}`);
	return JSON.parse(r.stdout);
}

let tree;
let bin;		// the binary as /proc/self/exe names it

/* Runs toolcell-fs with |args| (cwd |cwd|, extra |env|); returns spawnSync's. */
async function run(args, { cwd, env } = {}) {
	const cmd = await serverCommand(args);
	const r = spawnSync(cmd.command, cmd.args, {
		input: '', encoding: 'utf8', timeout: 10_000, cwd,
		env: { ...process.env, ...env },
	});
	if (r.error)
		throw r.error;
	return r;
}

/* Prints |host|'s entry for |args| and returns it parsed: {entry, text}. */
async function printed(host, args, opts) {
	const r = await run(['--print-config', host, ...args], opts);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(r.stderr, '');
	let doc;
	if (host === 'codex') {
		doc = parseToml(r.stdout);
		const py = pythonToml(r.stdout);
		if (py !== null)
			assert.deepEqual(py, doc, 'tomllib reads what the test reads');
	} else {
		doc = JSON.parse(r.stdout);
	}
	const { top, extra } = SHAPE[host];
	assert.deepEqual(Object.keys(doc), [top], r.stdout);
	assert.deepEqual(Object.keys(doc[top]), ['toolcell-fs'], r.stdout);
	const entry = doc[top]['toolcell-fs'];
	const { command, args: a, ...rest } = entry;
	assert.deepEqual(rest, extra, r.stdout);
	assert.equal(typeof command, 'string');
	assert.ok(Array.isArray(a) && a.every((s) => typeof s === 'string'), r.stdout);
	return { entry, text: r.stdout };
}

before(async () => {
	tree = await makeTree({
		'proj/a.txt': 'alpha\n',
		'with space/b.txt': 'bravo\n',
		'q"uote\\back/c.txt': 'charlie\n',
		"it's/d.txt": 'delta\n',
		'p.policy': '',
	});
	await fsp.writeFile(tree.p('p.policy'), `allow read ${tree.p('proj')}\n`);
	const cmd = await serverCommand([]);
	bin = await fsp.realpath(cmd.command === 'setpriv' ? cmd.args.at(-1) : cmd.command);
});

after(async () => {
	await tree?.cleanup();
});

describe('--print-config HOST', () => {
	for (const host of HOSTS) {
		test(`${host}: the format it reads, with absolute paths`, async () => {
			const dirs = [tree.p('proj'), tree.p('with space'), tree.p('q"uote\\back')];
			const { entry } = await printed(host, ['--write', ...dirs]);
			const want = ['--write', ...dirs];
			if (host === 'claude-desktop-wsl') {
				assert.equal(entry.command, 'wsl.exe');
				assert.deepEqual(entry.args, ['-e', bin, ...want]);
			} else if (host === 'claude-desktop-ssh') {
				assert.equal(entry.command, 'ssh');
				assert.deepEqual(entry.args.slice(0, 3), ['-T', '-o', 'BatchMode=yes']);
				assert.match(entry.args[3], /^[^@\s]+@[^@\s]+$/);
				// The remote shell gets the rest as one command line:
				// each argument comes out whole.
				const line = entry.args.slice(4).join(' ');
				const sh = spawnSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
				assert.equal(sh.status, 0, sh.stderr);
				assert.deepEqual(sh.stdout.split('\n').slice(0, -1), [bin, ...want]);
			} else {
				assert.equal(entry.command, bin);
				assert.deepEqual(entry.args, want);
			}
		});
	}

	test('relative directories and a relative policy are made absolute', async () => {
		const { entry } = await printed('cursor', ['--policy', 'p.policy', 'proj', "./it's"],
		    { cwd: tree.root });
		assert.deepEqual(entry.args,
		    ['--policy', tree.p('p.policy'), tree.p('proj'), tree.p("it's")]);
	});

	test('the options that change what is served are carried over', async () => {
		const { entry } = await printed('gemini',
		    ['-t', '5000', '--allow-degraded', 'seccomp', tree.p('proj')]);
		assert.deepEqual(entry.args,
		    ['--timeout', '5000', '--allow-degraded', 'seccomp', tree.p('proj')]);
	});

	test('codex: a name or path that needs escaping is escaped as TOML', async () => {
		const { text } = await printed('codex', [tree.p('q"uote\\back')]);
		assert.ok(text.includes('q\\"uote\\\\back'), text);
	});

	test('claude-desktop-wsl names the distribution it runs in', async () => {
		const { entry } = await printed('claude-desktop-wsl', [tree.p('proj')],
		    { env: { WSL_DISTRO_NAME: 'Debian' } });
		assert.deepEqual(entry.args, ['-d', 'Debian', '-e', bin, tree.p('proj')]);
	});

	test('vscode without a directory serves the workspace folder', async () => {
		const { entry } = await printed('vscode', []);
		assert.deepEqual(entry.args, ['${workspaceFolder}']);
	});

	test('what it prints starts the server', async (t) => {
		if (runAs())
			return t.skip('the printed command is the copy made for the run-as user');
		const { entry } = await printed('claude-code', [tree.p('proj')]);
		assert.equal(entry.command, bin);
		const srv = await startServer(entry.args);
		try {
			const r = await srv.client.callTool({ name: 'list_allowed_directories', arguments: {} });
			assert.match(r.content[0].text, new RegExp(tree.p('proj')));
		} finally {
			await srv.close();
		}
	});

	test('an unknown host is a usage error that lists the known ones', async () => {
		const r = await run(['--print-config', 'emacs', tree.p('proj')]);
		assert.equal(r.status, 2);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, 'toolcell-fs: error: --print-config: unknown host \'emacs\' '
		    + `(known: ${HOSTS.join(', ')}); try 'toolcell-fs --help'\n`);
	});

	test('without a directory or a policy, a host other than VS Code is a usage error', async () => {
		const r = await run(['--print-config', 'cursor']);
		assert.equal(r.status, 2);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /name the directories to serve, or --policy FILE/);
	});

	test('a directory that does not exist is an error, and nothing is printed', async () => {
		const r = await run(['--print-config', 'zed', tree.p('missing')]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /cannot find directory '.*missing': No such file or directory/);
	});
});
