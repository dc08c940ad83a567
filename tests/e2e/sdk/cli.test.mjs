// cli.test.mjs: toolcell-fs as a person meets it on the command line.
// Started by hand in a terminal, it says on stderr what it serves and that
// it waits for an MCP client (and nothing on stdout); a usage error is one
// line with a hint and exit status 2; --help lists every option, in its
// usage line too, and so does the man page's SYNOPSIS.  Like every
// message, --help and --version go to stderr: the server's stdout carries
// MCP messages only (and the report of --check).
//
// The terminal is a pseudo-terminal that $BUILD/tests/on-tty
// (tests/e2e/on-tty.c) puts on the server's stdin and ends with Ctrl-D.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BUILD, REPO, makeScratch, makeTree, serverCommand, serverIds } from './lib.mjs';

const ON_TTY = path.join(BUILD, 'tests', 'on-tty');
const HINT = "try 'toolcell-fs --help'";

/* Every option, long and short. */
const OPTIONS = [
	['--policy', '-p'], ['--check', null], ['--write', '-w'], ['--timeout', '-t'],
	['--run-as', '-u'], ['--max-message-bytes', null], ['--allow-degraded', null],
	['--verbose', '-v'], ['--quiet', '-q'], ['--version', '-V'], ['--help', '-h'],
	['--print-config', null],
];

let tree;

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n', 'two/b.txt': 'bravo\n' });
	// Served writable below: the server's user's, or a start warns that
	// calls cannot write in them.
	const { uid, gid } = serverIds();
	for (const d of [tree.root, tree.p('two')])
		await fsp.chown(d, uid, gid);
});

after(async () => {
	await tree?.cleanup();
});

/* Runs toolcell-fs (or |server|) with |args|, its stdin a terminal if
 * |tty|, else empty. */
async function run(args, { tty = false, server } = {}) {
	const cmd = await serverCommand(args, server);
	const r = tty
	    ? spawnSync(ON_TTY, [cmd.command, ...cmd.args], { encoding: 'utf8', timeout: 10_000 })
	    : spawnSync(cmd.command, cmd.args, { input: '', encoding: 'utf8', timeout: 10_000 });
	if (r.error)
		throw r.error;
	return r;
}

const lines = (s) => s.split('\n').filter((l) => l !== '');

describe('started in a terminal', () => {
	before(() => {
		assert.ok(existsSync(ON_TTY), `${ON_TTY} is not built (make)`);
	});

	test('says on stderr what it serves and that it waits for an MCP client', async () => {
		const r = await run([tree.root], { tty: true });
		assert.equal(r.status, 0, r.stderr);
		assert.equal(r.stdout, '');
		const l = lines(r.stderr);
		assert.ok(l.length >= 1 && l.length <= 2, r.stderr);
		assert.match(l[0], /^toolcell-fs: /);
		assert.ok(r.stderr.includes(`${tree.root} (read-only)`), r.stderr);
		assert.match(r.stderr, /waiting for an MCP client on standard input/);
		assert.match(r.stderr, /Ctrl-D/);
	});

	test('names every directory and its access', async () => {
		const r = await run(['--write', tree.root, tree.p('two')], { tty: true });
		assert.equal(r.status, 0, r.stderr);
		assert.equal(r.stdout, '');
		assert.ok(r.stderr.includes(`${tree.root} (read-write)`), r.stderr);
		assert.ok(r.stderr.includes(`${tree.p('two')} (read-write)`), r.stderr);
		assert.ok(lines(r.stderr).length <= 2, r.stderr);
	});

	test('toolcell-shell names its programs, toolcell-sqlite its databases', async () => {
		const scratch = await makeScratch('clitty');
		try {
			const shell = await run(['--policy', await scratch.policy([`allow read ${tree.root}`, '[shell]',
			    'program ls', 'program cat'])], { tty: true, server: path.join(BUILD, 'toolcell-shell') });
			assert.equal(shell.status, 0, shell.stderr);
			assert.deepEqual(lines(shell.stderr), [`toolcell-shell: serving ${tree.root} (read-only)`,
			    'toolcell-shell: programs: ls, cat', lines(shell.stderr)[2]]);
			assert.match(lines(shell.stderr)[2], /waiting for an MCP client/);
			const db = await scratch.sqliteDb();
			const db2 = await scratch.sqliteDb('log.db');
			const sq = await run(['--policy', await scratch.policy(['[sqlite]', `database app ${db}`,
			    `database log ${db2} read-write`])], { tty: true, server: path.join(BUILD, 'toolcell-sqlite') });
			assert.equal(sq.status, 0, sq.stderr);
			assert.deepEqual(lines(sq.stderr).slice(0, 1), [`toolcell-sqlite: databases: app (${db}, read-only), `
			    + `log (${db2}, read-write)`]);
			assert.match(sq.stderr, /waiting for an MCP client/);
		} finally {
			await scratch.cleanup();
		}
	});

	test('says nothing when its input is not a terminal', async () => {
		const r = await run([tree.root]);
		assert.equal(r.status, 0);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, '');
	});

	test('--quiet keeps it quiet in a terminal too', async () => {
		const r = await run(['--quiet', tree.root], { tty: true });
		assert.equal(r.status, 0);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, '');
	});
});

describe('usage errors', () => {
	const cases = [
		[['-t', 'abc', 'DIR'], /--timeout: 'abc' is not a number from 1 to 3600000/],
		[['--timeout=0', 'DIR'], /--timeout: '0' is not a number/],
		[['--allow-degraded', 'foo', 'DIR'], /--allow-degraded: unknown layer 'foo' \(known: landlock, seccomp\)/],
		[['--max-message-bytes', '1', 'DIR'], /--max-message-bytes: '1' is not a number from 64/],
		[['--frob', 'DIR'], /unknown option '--frob'/],
		[['--frob=1', 'DIR'], /unknown option '--frob'/],
		[['-x', 'DIR'], /unknown option '-x'/],
		[['-wx', 'DIR'], /unknown option '-x'/],
		[['DIR', '--policy'], /option '--policy' needs a value/],
		[['DIR', '-t'], /option '-t' needs a value/],
		[['--check=yes', 'DIR'], /option '--check' takes no value/],
		[['--ver', 'DIR'], /ambiguous option '--ver' \(--verbose, --version\)/],
		[['-p', 'one.policy', '-p', 'two.policy'], /--policy: given twice/],
	];
	for (const [args, want] of cases) {
		test(`${args.join(' ')}: one line with a hint, exit 2`, async () => {
			const r = await run(args.map((a) => (a === 'DIR' ? tree.root : a)));
			assert.equal(r.status, 2, r.stderr);
			assert.equal(r.stdout, '');
			assert.equal(lines(r.stderr).length, 1, r.stderr);
			assert.match(r.stderr, /^toolcell-fs: error: /);
			assert.match(r.stderr, want);
			assert.ok(r.stderr.trimEnd().endsWith(HINT), r.stderr);
		});
	}

	test('--write with a policy and no DIR is a usage error', async () => {
		const r = await run(['--policy', path.join(tree.root, 'none.policy'), '--write']);
		assert.equal(r.status, 2, r.stderr);
		assert.equal(r.stdout, '');
		assert.equal(lines(r.stderr).length, 1, r.stderr);
		assert.match(r.stderr, /--write: it applies to the directories given on the command line/);
	});

	test('neither a policy nor a directory: one line naming --policy FILE, exit 2', async () => {
		const r = await run([]);
		assert.equal(r.status, 2, r.stderr);
		assert.equal(r.stdout, '');
		assert.equal(lines(r.stderr).length, 1, r.stderr);
		assert.match(r.stderr, /no directories to serve: run 'toolcell-fs --policy FILE'/);
	});
});

describe('--help and --version', () => {
	test('--help explains every option, and its usage line names each', async () => {
		for (const flag of ['--help', '-h']) {
			const r = await run([flag]);
			assert.equal(r.status, 0, r.stderr);
			assert.equal(r.stdout, '');
			const [synopsis, rest] = r.stderr.split('\n\n', 2);
			assert.match(synopsis, /^usage: toolcell-fs /);
			const shorts = synopsis.match(/\[-([A-Za-z]+)\]/)?.[1] ?? '';
			for (const [long, short] of OPTIONS) {
				assert.ok(rest.includes(long), `--help does not explain ${long}`);
				const named = synopsis.includes(`${long} `) || synopsis.includes(`${long}]`)
				    || (short && (synopsis.includes(`${short} `) || shorts.includes(short[1])));
				assert.ok(named, `the usage line does not name ${long}: ${synopsis}`);
			}
		}
	});

	test('--version prints the name and version', async () => {
		const r = await run(['--version']);
		assert.equal(r.status, 0);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /^toolcell-fs \d+\.\d+\.\d+\n$/);
	});

	test('the man page has every option in SYNOPSIS and in the list', () => {
		const man = readFileSync(path.join(REPO, 'servers/fs/toolcell-fs.1'), 'utf8');
		const synopsis = man.split('.Sh SYNOPSIS')[1].split('.Sh ')[0];
		const list = man.split('.Sh DESCRIPTION')[1].split('.Sh ')[0];
		const shorts = synopsis.match(/^\.Op Fl ([A-Za-z]+)$/m)?.[1] ?? '';
		for (const [long, short] of OPTIONS) {
			const l = long.slice(2), s = short?.[1];
			const inSyn = new RegExp(`Fl -${l}\\b`).test(synopsis)
			    || (s && (shorts.includes(s) || new RegExp(`Fl ${s}\\b`).test(synopsis)));
			assert.ok(inSyn, `SYNOPSIS lacks ${long}`);
			assert.match(list, new RegExp(`^\\.It .*Fl -${l}\\b`, 'm'), `the option list lacks ${long}`);
		}
	});
});
