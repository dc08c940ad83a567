// shell.test.mjs: toolcell-shell end to end with the official MCP client:
// every tool (run_command, start_command, read_output, write_input,
// stop_command, list_commands), what the model is told, the annotations,
// exit codes and signals, stdout and stderr apart, stdin, the environment
// the policy allows and the one it refuses, the working directory beneath
// a root and outside, a program and an argument the rules refuse, a
// timeout, jobs read by offsets (their exact bytes too), the subjects in
// the audit log; and the kernel as the guard: with the argument rule that
// refuses find's -exec taken away, "find -exec /bin/sh" still cannot start
// a shell, and the dynamic loader cannot be made to run a program the
// policy does not list.  start_command's tty: a terminal of the job's own
// (its window, its TERM and terminfo, the policy's TERM winning, its
// input typed, ^C, its exact bytes), stopped with its whole tree, where
// TIOCSTI is refused and no other terminal opens; and, where no terminal
// can be opened, a job that asks for one refused in words.
// The argument-injection table is shell-attacks.test.mjs's.
//
// With TOOLCELL_AS=nobody the server runs as nobody; the tree it writes in
// is then nobody's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs, { existsSync, readdirSync, readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, call, logRecords, makeScratch, makeTree, readdirOwned, runServer, secretToken, serverCommand,
	serverIds, sleep, startServer, textOf,
} from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');
const TIOCSTI = path.join(BUILD, 'tests', 'tiocsti');
const NO_LANDLOCK = path.join(BUILD, 'tests', 'no-landlock');
const TOOLS = ['run_command', 'start_command', 'read_output', 'write_input', 'stop_command',
    'list_commands'];

let tree;
const scratch = await makeScratch('shell');

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n', 'sub/b.txt': 'bravo\n', 'sub/deeper/c.txt': 'c\n' });
	// The server's user writes here (nobody, with TOOLCELL_AS).
	const { uid, gid } = serverIds();
	for (const p of ['', 'a.txt', 'sub', 'sub/b.txt', 'sub/deeper', 'sub/deeper/c.txt'])
		await fsp.chown(tree.p(p), uid, gid);
});

after(async () => {
	await tree?.cleanup();
	await scratch.cleanup();
});

/*
 * A policy: the tree (read-write unless |readOnly|), then a [shell]
 * section with |programs| (policy lines, "program ..."), and |more| lines.
 */
function policy(programs, more = [], { readOnly = false } = {}) {
	return scratch.policy([`allow ${readOnly ? 'read' : 'write'} ${tree.root}`, ...more,
	    '[shell]', ...programs]);
}

/* The usual programs: a few that read, one that writes, one that runs
 * others with the argument rules of the examples, env, sleep and cat. */
const PROGRAMS = [
	'program /bin/echo',
	'program ls',
	'program cat',
	'program pwd',
	'program false',
	'program env',
	'program sleep',
	'program touch',
	'program find',
	'args find deny -exec -execdir -ok -okdir -delete',
	'env FOO BAR',
];

function start(p, opts = {}) {
	return startServer(['--policy', p], { server: SHELL, ...opts });
}

/* Runs argv with |extra| arguments; returns the result, which must not be
 * an error. */
async function run(srv, argv, extra = {}) {
	const r = await call(srv, 'run_command', { argv, ...extra });
	assert.notEqual(r.isError, true, textOf(r));
	return r;
}

/* Runs argv; returns the text of the error it must be. */
async function refused(srv, argv, extra = {}) {
	const r = await call(srv, 'run_command', { argv, ...extra });
	assert.equal(r.isError, true, JSON.stringify(r));
	return textOf(r);
}

/* The dynamic loader that runs /usr/bin/env, as readelf names it. */
function loader() {
	const r = spawnSync('readelf', ['-l', '/usr/bin/env'], { encoding: 'utf8' });
	const m = /Requesting program interpreter: ([^\]]+)\]/.exec(r.stdout ?? '');
	return m ? m[1] : null;
}

describe('what the model is told', () => {
	test('six tools, never read-only, destructive unless every program is read-only', async () => {
		const srv = await start(await policy(PROGRAMS));
		try {
			const { tools } = await srv.client.listTools();
			assert.deepEqual(tools.map((t) => t.name), TOOLS);
			for (const name of ['run_command', 'start_command']) {
				const t = tools.find((x) => x.name === name);
				assert.equal(t.annotations.readOnlyHint, false, name);
				assert.equal(t.annotations.destructiveHint, true, name);
				assert.equal(t.inputSchema.properties.argv.type, 'array');
				assert.deepEqual(t.inputSchema.required, ['argv']);
				assert.equal(t.inputSchema.properties.env.type, 'object');
			}
		} finally {
			await srv.close();
		}
		const ro = await start(await policy(['program ls read-only', 'program cat read-only']));
		try {
			const { tools } = await ro.client.listTools();
			const t = tools.find((x) => x.name === 'run_command');
			assert.equal(t.annotations.readOnlyHint, false);
			assert.equal(t.annotations.destructiveHint, false);
		} finally {
			await ro.close();
		}
		// find starts programs of the call's choosing: read-only or not,
		// what it runs may change things.
		const runner = await start(await policy(['program ls read-only', 'program find read-only']));
		try {
			const { tools } = await runner.client.listTools();
			const t = tools.find((x) => x.name === 'run_command');
			assert.equal(t.annotations.destructiveHint, true);
		} finally {
			await runner.close();
		}
	});

	test('the instructions name the programs, the directories, the variables; an interpreter plainly', async () => {
		const srv = await start(await policy([...PROGRAMS, 'program sh']));
		try {
			const ins = srv.initResult.instructions;
			assert.match(ins, /\bls \(\/usr\/bin\/ls\)/);
			assert.match(ins, /\bcat \(/);
			assert.ok(ins.includes(`${tree.root} (read-write)`), ins);
			assert.match(ins, /FOO, BAR/);
			assert.match(ins, /no network/i);
			assert.match(ins, /sh \([^)]*a shell or interpreter\)/);
			assert.match(ins, /only the kernel sandbox/);
			assert.match(ins, /start_command with tty runs a program that needs a terminal/);
			// The program's own limit: the call's 30 s less the
			// answer's margin.
			assert.match(ins, /run_command stops a program after 29 s \(timeout_ms for less\)/);
			assert.doesNotMatch(ins, /subcommand/, 'no program has subcommands');
		} finally {
			await srv.close();
		}
		const sub = await start(await policy(['program env', 'args env subcommands true',
		    'timeout 2500ms']));
		try {
			const ins = sub.initResult.instructions;
			assert.match(ins, /env \([^)]*; subcommands: true\)/);
			assert.match(ins, /A subcommand comes right after its program, options after it/);
			assert.match(ins, /run_command stops a program after 2250 ms/);
		} finally {
			await sub.close();
		}
	});

	test('without Landlock (--allow-degraded landlock), the start and the instructions say nothing holds the programs', async () => {
		// The kernel answers Landlock's calls with ENOSYS, as one
		// built without it does.
		const srv = await startServer(['--policy', await policy(PROGRAMS, [], { readOnly: true }),
		    '--allow-degraded', 'landlock'], { server: SHELL, wrap: [NO_LANDLOCK] });
		try {
			const said = /the programs may read, write and execute anything the server's user can, whatever the policy lists/;
			assert.match(srv.stderr(), new RegExp(`warning: running without Landlock \\(--allow-degraded landlock\\): ${said.source}`));
			assert.match(srv.initResult.instructions, new RegExp(`Degraded: the kernel's Landlock path whitelist is not in force: ${said.source}\\.`));
			// And so it is: a file outside every directory is read.
			const r = await run(srv, ['cat', '/etc/passwd']);
			assert.match(r.structuredContent.stdout, /^root:/);
		} finally {
			await srv.close();
		}
		// Without the option, the same kernel refuses the start.
		const cmd = await serverCommand(['--policy', await policy(PROGRAMS), '--check'], SHELL);
		const r = spawnSync(NO_LANDLOCK, [cmd.command, ...cmd.args], { input: '', encoding: 'utf8',
		    timeout: 10_000 });
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, /the kernel offers no Landlock/);
	});

	test('--check fails where the start would: a TMPDIR it cannot make the calls\' homes in', async () => {
		const missing = path.join(scratch.root, 'no-such-tmp');
		const r = await runServer(['--policy', await policy(PROGRAMS), '--check'], SHELL,
		    { TMPDIR: missing });
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, new RegExp(`error: cannot make the calls' scratch directory in '${missing}' `
		    + "\\(give the \\[shell\\] section a 'home DIR', or set TMPDIR\\): No such file or directory"));
		// With a home of its own, TMPDIR does not matter.
		const home = await fsp.mkdtemp(path.join(scratch.root, 'home-'));
		await fsp.chown(home, serverIds().uid, serverIds().gid);
		const h = await runServer(['--policy', await policy([...PROGRAMS, `home ${home}`]), '--check'],
		    SHELL, { TMPDIR: missing });
		assert.equal(h.status, 0, h.stderr);
	});

	test('--check lists the git repositories in a writable directory, at its top and one down', async () => {
		const repos = await fsp.mkdtemp(path.join(scratch.root, 'repos-'));
		const plain = await fsp.mkdtemp(path.join(scratch.root, 'plain-'));
		await fsp.mkdir(path.join(repos, '.git'));
		for (const r of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'])
			await fsp.mkdir(path.join(repos, r, '.git'), { recursive: true });
		// A worktree's .git is a file; one two down is not looked for,
		// nor a link.
		await fsp.mkdir(path.join(repos, 'wt'));
		await fsp.writeFile(path.join(repos, 'wt', '.git'), 'gitdir: /elsewhere\n');
		await fsp.mkdir(path.join(repos, 'x', 'y', '.git'), { recursive: true });
		await fsp.mkdir(path.join(repos, 'ln'));
		await fsp.symlink(path.join(repos, 'a', '.git'), path.join(repos, 'ln', '.git'));
		await fsp.mkdir(path.join(plain, 'sub'));
		// The server's user (nobody, with TOOLCELL_AS) looks in them.
		await fsp.chmod(repos, 0o755);
		await fsp.chmod(plain, 0o755);
		const lines = [`allow write ${repos}`, `allow write ${plain}`, `allow read ${tree.root}`, '[shell]',
		    'program ls'];
		const esc = (p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		// Read-only, the default: listed, in order, and no warning.
		const r = await runServer(['--policy', await scratch.policy(lines), '--check'], SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.doesNotMatch(r.stderr, /git repositories/);
		assert.match(r.stdout, new RegExp(`^ {2}${esc(repos)}: \\.git, a/\\.git, b/\\.git, c/\\.git, d/\\.git, `
		    + 'e/\\.git, f/\\.git, g/\\.git and 3 more$', 'm'));
		assert.doesNotMatch(r.stdout, new RegExp(`^ {2}${esc(plain)}:`, 'm'));
		// Writable: one warning, for the directory that holds them.
		const w = await runServer(['--policy', await scratch.policy([...lines, 'repositories writable']),
		    '--check'], SHELL);
		assert.equal(w.status, 0, w.stderr);
		const warned = w.stderr.split('\n').filter((l) => /git repositories in it/.test(l));
		assert.equal(warned.length, 1, w.stderr);
		assert.match(warned[0], new RegExp(`:1: ${esc(repos)} is writable, and 'repositories writable' lets `
		    + 'the programs change the hooks and configuration of the git repositories in it '
		    + '\\(\\.git, a/\\.git, b/\\.git, c/\\.git, d/\\.git, e/\\.git, f/\\.git, g/\\.git and 3 more\\): '
		    + 'git runs them outside the sandbox'));
		assert.match(warned[0], /a commit runs \.git\/hooks\/pre-commit/);
		assert.match(w.stdout, /^repositories: writable {2}\(line 6\)$/m);
		// Read-only directories draw nothing either way.
		const ro = await runServer(['--policy', await scratch.policy([`allow read ${repos}`, '[shell]',
		    'program ls', 'repositories writable']), '--check'], SHELL);
		assert.equal(ro.status, 0, ro.stderr);
		assert.doesNotMatch(ro.stderr, /git repositories/);
	});

	test('--check warns that a deny rule holds the working directory, not what programs open', async () => {
		const r = await runServer(['--policy', await policy(PROGRAMS, ['deny **/secret']), '--check'],
		    SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stderr, /'deny \*\*\/secret' \(line 2\) holds only a call's working directory/);
		assert.doesNotMatch(r.stderr, /built in/, 'the built-in rules are not warned of');
		// toolcell-fs's note on its write tools is not toolcell-shell's.
		assert.match(r.stdout, /^tools:$/m);
		assert.doesNotMatch(r.stdout, /listed only when a directory is writable/);
		// The rules it prints say what they hold, built-in ones too.
		assert.match(r.stdout, /^deny \(wins over allow\):\n {2}\(checked on a call's working directory alone, never on the files its programs open, which may read and write anything beneath the directories, \.env and \.git too: keep what these protect out of them\)\n {2}read-write {2}\*\*\/\.env {2}\(built in\)$/m);
		// Two settings named output: the limit says it is the whole result.
		assert.match(r.stdout, /^ {2}output {6}64M {5}\(default; 'limit output': a call's whole result\)$/m);
		assert.match(r.stdout, /^output: 8M per stream, stdout and stderr each {2}\(default\)$/m);
	});

	test('--check and the start warn of node without --jitless where programs may not compile', async () => {
		// The node running these tests, as a program finds it.
		const node = await fsp.realpath(process.execPath);
		const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		const STOPS = `${esc(node)}\\) stops at its start: its JIT compiler needs memory writable `
		    + 'and executable, which the seccomp filter refuses; ';
		const JIT_ON = "let programs make such memory with 'jit on'";
		const check = async (lines, more = []) => {
			const r = await runServer(['--policy', await policy(lines, more), '--check'], SHELL);
			assert.equal(r.status, 0, r.stderr);
			return r.stderr;
		};
		assert.match(await check([`program ${node}`]), new RegExp(`:3: program ${esc(node)} \\(`
		    + `${STOPS}run it without one with 'args ${esc(node)} prefix --jitless', or ${JIT_ON}$`, 'm'));
		// A prefix line of its own: --jitless goes on it.
		assert.match(await check([`program ${node}`, `args ${node} prefix --max-old-space-size=64`]),
		    new RegExp(`:3: program ${esc(node)} \\(${STOPS}add --jitless to its prefix \\(line 4\\), `
		    + `or ${JIT_ON}$`, 'm'));
		// Either fix, and a policy without node, draws nothing.
		assert.doesNotMatch(await check([`program ${node}`, `args ${node} prefix --jitless`]), /JIT/);
		assert.doesNotMatch(await check([`program ${node}`], ['jit on']), /JIT/);
		assert.doesNotMatch(await check(PROGRAMS), /JIT/);
		// A script of node's (npm, npx): a prefix would be the script's.
		const script = path.join(scratch.root, 'tool.js');
		await fsp.writeFile(script, `#!${node}\nconsole.log(1)\n`);
		await fsp.chmod(script, 0o755);
		assert.match(await check([`program ${script}`]), new RegExp(`:3: program ${esc(script)} runs `
		    + `node \\(${esc(node)}\\), which stops at its start: .*; ${JIT_ON}$`, 'm'));
		// The server says so as it starts, too.
		const r = await runServer(['--policy', await policy([`program ${node}`])], SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stderr, /warning: .*:3: program .* stops at its start: its JIT compiler/);
	});

	test('--check without an allow line says no directory is served', async () => {
		const r = await runServer(['--policy', await scratch.policy(['[shell]', 'program ls']), '--check'],
		    SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^directories:\n {2}none \(no 'allow' line\)\nlimits per call:$/m);
	});

	test('--check says what holds a call\'s processes; as root without a pids cgroup it warns, and run-as quiets it', async () => {
		const p = await policy(PROGRAMS);
		const warning = /warning: calls run as root: no process limit holds for root/;
		const r = await runServer(['--policy', p, '--check'], SHELL);
		assert.equal(r.status, 0, r.stderr);
		const by = /^process limit: (.*)$/m.exec(r.stdout)?.[1];
		assert.ok(by, `no 'process limit:' line: ${r.stdout}`);
		if (serverIds().uid !== 0) {
			// Another user: RLIMIT_NPROC, and a pids cgroup as well
			// where one is delegated to it.
			assert.match(by, /RLIMIT_NPROC in the call's user namespace$/);
			assert.doesNotMatch(r.stderr, warning);
			return;
		}
		if (by.startsWith('none')) {
			assert.match(by, /^none: calls run as root, whom RLIMIT_NPROC does not hold/);
			assert.match(r.stderr, warning);
		} else {
			// Each call's own pids cgroup holds root's calls: no warning.
			// Their child has no keeper (pid 1 of its PID namespace):
			// pids.max is the limit itself.
			const m = /^pids cgroup v[12] at \/\S+, each call's own \(pids\.max (\d+)\)$/.exec(by);
			assert.ok(m, by);
			const limit = /^ {2}processes +(\d+)/m.exec(r.stdout)?.[1];
			assert.equal(m[1], limit, r.stdout);
			assert.doesNotMatch(r.stderr, warning);
		}
		const n = await runServer(['--policy', p, '--check', '--run-as', 'nobody'], SHELL);
		assert.equal(n.status, 0, n.stderr);
		assert.doesNotMatch(n.stderr, warning);
		assert.match(n.stdout, /^process limit: .*RLIMIT_NPROC in the call's user namespace$/m);
	});

	test('a network may be granted (shell-network.test.mjs reaches it)', async () => {
		const r = await runServer(['--policy', await policy(PROGRAMS, ['network on']), '--check'],
		    SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^network: on {2}\(line 2\)$/m);
	});

	test('no programs: refuses to start and says how to name them', async () => {
		const r = await runServer(['--policy', await policy([])], SHELL);
		assert.equal(r.status, 2, r.stderr);
		assert.match(r.stderr, /no programs to run/);
		const o = await runServer(['--policy', await policy(PROGRAMS), tree.root], SHELL);
		assert.equal(o.status, 2, o.stderr);
		assert.match(o.stderr, /policy file/);
	});

	test('a TMPDIR where no scratch directory can be made: refuses to start, exit 1, and says why', async () => {
		const missing = scratch.unique('no-such-tmpdir');
		const r = await runServer(['--policy', await policy(PROGRAMS)], SHELL, { TMPDIR: missing });
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, new RegExp(missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
	});
});

describe('what may run', () => {
	test('a call without cwd runs in the first root, and a consent rule on that directory sees it', async () => {
		const h = scratch.unique('deny', '.sh');
		await fsp.writeFile(h, '#!/bin/sh\necho no\nexit 1\n');
		await fsp.chmod(h, 0o755);
		const log = path.join(await scratch.ownedDir(), 'audit.jsonl');
		const srv = await start(await policy(PROGRAMS, [`consent run_command cwd ${tree.root}`,
		    'consent-by hook', `consent-hook ${h}`, `audit ${log}`]));
		try {
			const r = await call(srv, 'run_command', { argv: ['pwd'] });
			assert.equal(r.isError, true, textOf(r));
			assert.match(textOf(r), /consent/);
		} finally {
			await srv.close();
		}
		const rec = (await logRecords(log)).find((x) => x.event === 'call');
		assert.ok(rec.subjects.some((x) => x.kind === 'cwd'), JSON.stringify(rec.subjects));
	});

	test('a program beneath a writable directory refuses the start: a call could replace it', async () => {
		const tool = tree.p('sub/tool.sh');
		await fsp.writeFile(tool, '#!/bin/sh\necho tool\n');
		await fsp.chmod(tool, 0o755);
		try {
			const r = await runServer(['--policy', await policy([`program ${tool}`])], SHELL);
			assert.equal(r.status, 1, r.stderr);
			assert.match(r.stderr, /lies beneath the writable directory/);
			const c = await runServer(['--policy', await policy([`program ${tool}`]), '--check'],
			    SHELL);
			assert.equal(c.status, 1, c.stderr);
			// Read-only, it may run; the kernel executes it and its
			// interpreter, and nothing else.
			const srv = await start(await policy([`program ${tool}`], [], { readOnly: true }));
			try {
				assert.equal((await run(srv, [tool])).structuredContent.stdout, 'tool\n');
			} finally {
				await srv.close();
			}
		} finally {
			await fsp.rm(tool);
		}
	});

	test('node: without jit it runs --jitless (OpenSSL\'s configuration readable); with jit on, with its JIT', async () => {
		// The node running these tests: a program built on OpenSSL 3,
		// which reads its configuration as it starts, and a JIT.
		const node = await fsp.realpath(process.execPath);
		const script = 'let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log(s)';
		const ran = async (lines, more) => {
			const srv = await start(await policy([`program ${node}`, ...lines], more));
			try {
				return (await run(srv, [node, '-e', script])).structuredContent;
			} finally {
				await srv.close();
			}
		};
		// Its JIT wants memory writable and executable, which the
		// filter refuses by default: V8 stops on a failed check
		// (SIGTRAP).
		const j = await ran([], []);
		assert.notEqual(j.exit_code, 0, JSON.stringify(j));
		assert.ok(j.signal !== null || /Check failed/.test(j.stderr), JSON.stringify(j));
		// What the README says to do: --jitless, put first by the
		// policy on every call.
		const p = await ran([`args ${node} prefix --jitless`], []);
		assert.equal(p.stdout, '499999500000\n', JSON.stringify(p));
		assert.equal(p.exit_code, 0, JSON.stringify(p));
		// Or the policy lets programs compile.
		const r = await ran([], ['jit on']);
		assert.equal(r.stdout, '499999500000\n', JSON.stringify(r));
		assert.equal(r.exit_code, 0, JSON.stringify(r));
	});

	test('another path to the program\'s file, under its name, runs that program', async () => {
		const echo = await fsp.realpath('/bin/echo');
		const links = await fsp.mkdtemp(path.join(scratch.root, 'links-'));
		await fsp.chmod(links, 0o755);	// the server's user looks in it
		await fsp.symlink(echo, path.join(links, 'echo'));
		await fsp.symlink(echo, path.join(links, 'cat'));
		const srv = await start(await policy(['program echo']));
		try {
			for (const argv0 of ['/bin/echo', echo, path.join(links, 'echo')]) {
				const s = (await run(srv, [argv0, 'hi'])).structuredContent;
				assert.equal(s.stdout, 'hi\n', argv0);
			}
			// The file of echo under another name is not echo.
			assert.match(await refused(srv, [path.join(links, 'cat'), 'hi']),
			    /is not a program this server runs \(it runs: echo\)/);
		} finally {
			await srv.close();
		}
	});
});

describe('run_command', () => {
	let srv;
	const secret = secretToken();

	before(async () => {
		srv = await start(await policy(PROGRAMS), { env: { TOOLCELL_TEST_SECRET: secret } });
	});

	after(async () => {
		await srv?.close();
	});

	test('/bin/echo hi: exit 0, stdout apart, nothing on stderr', async () => {
		// As the policy names it, and as it resolved.
		for (const argv0 of ['/bin/echo', await fsp.realpath('/bin/echo')]) {
			const r = await run(srv, [argv0, 'hi']);
			const s = r.structuredContent;
			assert.equal(s.exit_code, 0);
			assert.equal(s.stdout, 'hi\n');
			assert.equal(s.stderr, '');
			assert.equal(s.stdout_bytes, 3);
			assert.equal(s.stdout_truncated, false);
			assert.equal(s.timed_out, false);
			assert.ok(textOf(r).includes('hi'));
		}
	});

	test('exit codes, and stderr apart from stdout', async () => {
		assert.equal((await run(srv, ['false'])).structuredContent.exit_code, 1);
		const s = (await run(srv, ['ls', 'a.txt', 'missing'])).structuredContent;
		assert.equal(s.exit_code, 2);
		assert.equal(s.stdout, 'a.txt\n');
		assert.match(s.stderr, /missing/);
		assert.doesNotMatch(s.stdout, /missing/);
	});

	test('stdin is the program\'s standard input; without it, an empty one', async () => {
		const text = 'line one\nline two\n';
		assert.equal((await run(srv, ['cat'], { stdin: text })).structuredContent.stdout, text);
		assert.equal((await run(srv, ['cat'])).structuredContent.stdout, '');
	});

	test('the environment: fixed PATH and HOME, the variables the policy allows, nothing of the server\'s', async () => {
		const s = (await run(srv, ['env'], { env: { FOO: 'foo value', BAR: '' } })).structuredContent;
		const vars = s.stdout.split('\n').filter((l) => l !== '');
		assert.ok(vars.includes('FOO=foo value'), s.stdout);
		assert.ok(vars.includes('BAR='), s.stdout);
		assert.ok(vars.includes('PATH=/usr/local/bin:/usr/bin:/bin'), s.stdout);
		assert.ok(vars.some((v) => v.startsWith('HOME=/')), s.stdout);
		assert.ok(!s.stdout.includes(secret), 'the server\'s environment stays out');
		assert.ok(!vars.some((v) => v.startsWith('TOOLCELL_TEST_SECRET=')));
	});

	test('programs run with the UTF-8 character set (LC_CTYPE), by the name the C library keeps it under', async () => {
		// glibc 2.35 and later keep it as C.utf8; C.UTF-8 costs every
		// program a failed open before it is found.  LC_CTYPE rather than
		// LANG: the other categories stay the C locale's, which need no
		// file to load.
		const want = fs.existsSync('/usr/lib/locale/C.utf8/LC_CTYPE') ? 'C.utf8' : 'C.UTF-8';
		const own = await start(await policy(['program env', 'program locale', 'env LANG LC_ALL LC_CTYPE']));
		const fixed = await start(await policy(['program env', 'program locale', 'env-set LANG=C']));
		const vars = async (srv, env) => (await run(srv, ['env'], env ? { env } : {}))
		    .structuredContent.stdout.split('\n').filter((l) => /^(LANG|LC_[A-Z]+)=/.test(l)).sort();
		const charmap = async (srv, env) => {
			const r = (await run(srv, ['locale', 'charmap'], env ? { env } : {})).structuredContent;
			assert.equal(r.stderr, '', `the locale is found: no warning (${JSON.stringify(env)})`);
			return r.stdout;
		};
		try {
			assert.deepEqual(await vars(own), [`LC_CTYPE=${want}`]);
			assert.equal(await charmap(own), 'UTF-8\n');
			// A locale the call or the policy names wins, as it would
			// over a LANG of ours: ours goes.
			assert.deepEqual(await vars(own, { LANG: 'C' }), ['LANG=C']);
			assert.equal(await charmap(own, { LANG: 'C' }), 'ANSI_X3.4-1968\n');
			assert.deepEqual(await vars(own, { LC_ALL: 'C' }), ['LC_ALL=C']);
			assert.equal(await charmap(own, { LC_ALL: 'C' }), 'ANSI_X3.4-1968\n');
			assert.deepEqual(await vars(own, { LC_CTYPE: 'C' }), ['LC_CTYPE=C']);
			assert.equal(await charmap(own, { LC_CTYPE: 'C' }), 'ANSI_X3.4-1968\n');
			// Set by the call to our very value beside a LANG: theirs,
			// kept.
			assert.deepEqual(await vars(own, { LANG: 'C', LC_CTYPE: want }), ['LANG=C', `LC_CTYPE=${want}`]);
			assert.equal(await charmap(own, { LANG: 'C', LC_CTYPE: want }), 'UTF-8\n');
			assert.deepEqual(await vars(fixed), ['LANG=C']);
			assert.equal(await charmap(fixed), 'ANSI_X3.4-1968\n');
		} finally {
			await own.close();
			await fixed.close();
		}
	});

	test('each call has a scratch HOME and TMPDIR of its own, gone after it, that no other call can find', async () => {
		const env = async () => Object.fromEntries((await run(srv, ['env'])).structuredContent
		    .stdout.split('\n').filter((l) => l.includes('=')).map((l) => l.split(/=(.*)/s)));
		const one = await env();
		const two = await env();
		assert.match(one.HOME, /^\/.+\/[0-9a-f]{32}$/, one.HOME);
		assert.equal(one.TMPDIR, one.HOME);
		assert.notEqual(one.HOME, two.HOME);
		assert.equal(path.dirname(one.HOME), path.dirname(two.HOME));
		// It is writable while the call runs (touch makes a file in it,
		// and touch's own HOME is another), and gone after.
		const t = (await run(srv, ['touch', path.join(one.HOME, 'f')])).structuredContent;
		assert.notEqual(t.exit_code, 0, 'the first call\'s directory is gone');
		assert.match(t.stderr, /No such file/);
		const ls = (await run(srv, ['ls', path.dirname(one.HOME)])).structuredContent;
		assert.notEqual(ls.exit_code, 0);
		assert.match(ls.stderr, /Permission denied/);
	});

	test('a call\'s scratch directory is emptied, moved aside and removed off its path', async () => {
		const env = async () => Object.fromEntries((await run(srv, ['env'])).structuredContent
		    .stdout.split('\n').filter((l) => l.includes('=')).map((l) => l.split(/=(.*)/s)));
		const homes = [];
		for (let i = 0; i < 3; i++)
			homes.push((await env()).HOME);
		// The base's "spent" directory, beside "calls" where the homes
		// are, where a call moves its directory once emptied, and the
		// server's sweeper removes it.  A call may change nothing in the
		// base, and list neither.
		const calls = path.dirname(homes[0]);
		const base = path.dirname(calls);
		const spent = path.join(base, 'spent');
		assert.equal(path.basename(calls), 'calls');
		assert.ok(fs.statSync(spent).isDirectory(), `${spent} is there`);
		assert.equal(fs.statSync(base).mode & 0o7777, 0o111, 'the base\'s mode');
		assert.equal(fs.statSync(calls).mode & 0o7777, 0o300, 'calls\' mode');
		assert.equal(fs.statSync(spent).mode & 0o7777, 0o300, 'spent\'s mode');
		for (const h of homes)
			assert.ok(!fs.existsSync(h), `${h} is gone from the base`);
		// Removed by the sweeper, not by the call: waited for, not timed.
		let left = homes.map((h) => path.basename(h));
		for (let i = 0; i < 200 && left.length > 0; i++) {
			const there = new Set(readdirOwned(spent));
			left = left.filter((n) => there.has(n));
			if (left.length > 0)
				await new Promise((r) => setTimeout(r, 50));
		}
		assert.deepEqual(left, [], 'the sweeper removed them from spent');
	});

	test('a variable the policy does not allow is refused, with the list', async () => {
		for (const name of ['LD_PRELOAD', 'BASH_ENV', 'GIT_CONFIG_GLOBAL', 'BAZ']) {
			const msg = await refused(srv, ['env'], { env: { FOO: 'x', [name]: '/tmp/x' } });
			assert.ok(msg.includes(`'${name}' is not a variable a call may set`), msg);
			assert.match(msg, /FOO, BAR/);
		}
	});

	test('cwd: the first root by default, a directory beneath it, nothing outside', async () => {
		assert.equal((await run(srv, ['pwd'])).structuredContent.stdout, `${tree.root}\n`);
		assert.equal((await run(srv, ['pwd'], { cwd: null })).structuredContent.stdout,
		    `${tree.root}\n`);
		assert.equal((await run(srv, ['ls'], { cwd: 'sub' })).structuredContent.stdout,
		    'b.txt\ndeeper\n');
		assert.equal((await run(srv, ['pwd'], { cwd: tree.p('sub/deeper') }))
		    .structuredContent.stdout, `${tree.p('sub/deeper')}\n`);
		for (const cwd of ['/etc', '..', tree.p('sub/../..'), 'a.txt', 'nowhere'])
			assert.match(await refused(srv, ['pwd'], { cwd }),
			    /cwd|outside|not a directory|not found|no such/i, cwd);
	});

	test('a program the policy does not list is refused in the rules\' words', async () => {
		for (const argv0 of ['rm', '/bin/rm', '/bin/sh', 'python3']) {
			const msg = await refused(srv, [argv0, '-rf', '.']);
			assert.match(msg, /is not a program this server runs \(it runs: \/bin\/echo, ls,/,
			    msg);
		}
		assert.equal((await run(srv, ['ls'])).structuredContent.stdout.includes('a.txt'), true,
		    'nothing was removed');
	});

	test('an argument the rules refuse is refused before anything runs', async () => {
		const msg = await refused(srv, ['find', '.', '-exec', 'touch', 'pwned', ';']);
		assert.match(msg, /find: '-exec' is refused: the policy denies/, msg);
		const ls = (await run(srv, ['ls'])).structuredContent.stdout;
		assert.ok(!ls.includes('pwned'), ls);
		assert.equal((await run(srv, ['find', '.', '-name', 'c.txt'])).structuredContent.stdout,
		    './sub/deeper/c.txt\n');
	});

	test('a timeout stops the program and says so', async () => {
		const t0 = Date.now();
		const s = (await run(srv, ['sleep', '30'], { timeout_ms: 300 })).structuredContent;
		assert.equal(s.timed_out, true);
		assert.equal(s.exit_code, null);
		assert.match(s.signal, /^SIG/);
		assert.ok(Date.now() - t0 < 20_000);
	});

	test('max_output_bytes keeps the start and counts the rest', async () => {
		const s = (await run(srv, ['cat', 'a.txt', 'sub/b.txt'], { max_output_bytes: 4 }))
		    .structuredContent;
		assert.equal(s.stdout, 'alph');
		assert.equal(s.stdout_bytes, 12);
		assert.equal(s.stdout_truncated, true);
	});

	test('it writes beneath a writable root, and no more', async () => {
		await run(srv, ['touch', 'made.txt']);
		await fsp.access(tree.p('made.txt'));
		const s = (await run(srv, ['touch', '/tmp/toolcell-shell-escape', '/etc/made'])).structuredContent;
		assert.notEqual(s.exit_code, 0);
		assert.match(s.stderr, /Permission denied/);
		await assert.rejects(fsp.access('/tmp/toolcell-shell-escape'));
	});
});

describe('the kernel is the guard', () => {
	test('without the rule on -exec, find cannot start a shell: Landlock refuses to execute it', async () => {
		const srv = await start(await policy(['program find', 'program env']));
		try {
			const s = (await run(srv, ['find', '.', '-maxdepth', '0', '-exec', '/bin/sh', '-c',
			    'echo pwned', ';'])).structuredContent;
			assert.ok(!s.stdout.includes('pwned'), s.stdout);
			assert.match(s.stderr, /Permission denied/);
			// Nor through the dynamic loader: a program the policy does
			// not list cannot even be read.
			const ld = loader();
			if (ld === null) {
				test.diagnostic('SKIP: no dynamic loader named by /usr/bin/env');
				return;
			}
			const l = (await run(srv, ['env', ld, '/usr/bin/id'])).structuredContent;
			assert.notEqual(l.exit_code, 0);
			assert.match(l.stderr, /Permission denied/);
			assert.doesNotMatch(l.stdout, /uid=/);
		} finally {
			await srv.close();
		}
	});
});

describe('start_command and the job tools', () => {
	let srv;

	before(async () => {
		srv = await start(await policy(PROGRAMS));
	});

	after(async () => {
		await srv?.close();
	});

	async function read(job, offset, extra = {}) {
		const r = await call(srv, 'read_output', { job, offset, ...extra }, { timeout: 40_000 });
		assert.notEqual(r.isError, true, textOf(r));
		return r.structuredContent;
	}

	/* Reads |job| from |offset| until its output holds |want|. */
	async function readUntil(job, offset, want) {
		let text = '';
		let next = offset;
		for (let i = 0; i < 100 && !text.includes(want); i++) {
			const o = await read(job, next, { wait_ms: 5000 });
			assert.equal(o.offset, next, 'a read begins where the last ended');
			text += o.output;
			next = o.next_offset;
			if (o.state !== 'running')
				break;
		}
		assert.ok(text.includes(want), `'${want}' never came; got '${text}'`);
		return next;
	}

	test('a job\'s input, its output by offsets, its end and its result', async () => {
		const r = await call(srv, 'start_command', { argv: ['cat'] });
		assert.notEqual(r.isError, true, textOf(r));
		assert.equal(r.structuredContent.state, 'running');
		const job = r.structuredContent.job;
		const w = await call(srv, 'write_input', { job, data: 'first\n' });
		assert.notEqual(w.isError, true, textOf(w));
		const next = await readUntil(job, 0, 'first\n');
		assert.equal(next, 6);
		const list = await call(srv, 'list_commands', {});
		const mine = list.structuredContent.jobs.find((j) => j.job === job);
		assert.equal(mine.state, 'running');
		assert.equal(mine.tool, 'start_command');
		await call(srv, 'write_input', { job, data: 'second\n', close: true });
		const end = await readUntil(job, next, 'second\n');
		// A read past the output waits for more, or for the end.
		for (let i = 0; i < 100; i++)
			if ((await read(job, end, { wait_ms: 5000 })).state !== 'running')
				break;
		const o = await read(job, 0);
		assert.equal(o.state, 'exited');
		assert.equal(o.output, 'first\nsecond\n');
		assert.equal(o.result.structuredContent.exit_code, 0);
		// The output is read by offset; the result counts it, and does
		// not carry it again with every read (docs/hosts.md).
		assert.equal(o.result.structuredContent.stdout, '');
		assert.equal(o.result.structuredContent.stdout_bytes, 13);
		assert.match(o.result.content[0].text, /--- stdout: 13 bytes, in the job's output ---/);
		// A host that passes on only the structured half is told
		// where the bytes went, not just that stdout holds none.
		assert.equal(o.result.structuredContent.note,
		    "its output is in the job's output, which read_output returns: stdout and stderr here hold none of it");
		assert.doesNotMatch(o.result.content[0].text, /which read_output returns/, 'said once in the text');
	});

	test('read_output with binary: every byte value exactly, at the text\'s offsets', async () => {
		// 0x00-0xff four times: NULs, stray continuation bytes, bytes
		// UTF-8 never has.
		const bytes = Buffer.alloc(1024, 0).map((_, i) => i & 0xff);
		const name = 'bytes.bin';
		await fsp.writeFile(tree.p(name), bytes);
		const r = await call(srv, 'start_command', { argv: ['cat', name], binary: true });
		assert.notEqual(r.isError, true, textOf(r));
		const job = r.structuredContent.job;
		// Reads of 100 bytes, several ending inside what could start a
		// character.
		const parts = [];
		let next = 0;
		let o;
		for (let i = 0; i < 200; i++) {
			o = await read(job, next, { wait_ms: 5000, max_bytes: 100, binary: true });
			assert.equal(o.offset, next, 'a read begins where the last ended');
			const b = Buffer.from(o.data_base64, 'base64');
			assert.equal(b.toString('base64'), o.data_base64, 'standard, padded base64');
			assert.equal(o.next_offset - o.offset, b.length, `read ${i}: the bytes from offset to next_offset`);
			parts.push(b);
			next = o.next_offset;
			if (o.eof)
				break;
		}
		assert.equal(o.eof, true, 'the job never ended');
		assert.deepEqual(Buffer.concat(parts), bytes);
		// The text: no NUL, the bytes that are not UTF-8 replaced.
		const all = await read(job, 0, { max_bytes: 4096 });
		assert.equal(all.data_base64, undefined, 'base64 only when asked');
		assert.ok(!all.output.includes('\0'));
		assert.ok(all.output.includes('\ufffd'));
		assert.ok(all.output.startsWith('\ufffd\u0001\u0002'), JSON.stringify(all.output.slice(0, 8)));
		// The program's result counts them, and keeps none of them.
		assert.equal(o.result.structuredContent.stdout_bytes, bytes.length);
		assert.equal(o.result.structuredContent.stdout_base64, '');
	});

	test('stop_command kills a job; list_commands shows it stopped', async () => {
		const r = await call(srv, 'start_command', { argv: ['sleep', '100'] });
		const job = r.structuredContent.job;
		const s = await call(srv, 'stop_command', { job });
		assert.notEqual(s.isError, true, textOf(s));
		assert.equal(s.structuredContent.state, 'stopped');
		const list = await call(srv, 'list_commands', {});
		assert.equal(list.structuredContent.jobs.find((j) => j.job === job).state, 'stopped');
	});

	test('start_command checks as run_command does, before anything starts', async () => {
		const r = await call(srv, 'start_command', { argv: ['rm', '-rf', '.'] });
		assert.equal(r.isError, true);
		assert.match(textOf(r), /'rm' is not a program this server runs/);
		const e = await call(srv, 'start_command', { argv: ['env'], env: { LD_PRELOAD: 'x' } });
		assert.equal(e.isError, true);
		assert.match(textOf(e), /LD_PRELOAD/);
	});
});

describe('subjects', () => {
	test('the audit log names the program, each argument, the working directory and the variables', async () => {
		const dir = await scratch.ownedDir();
		const log = path.join(dir, 'audit.jsonl');
		const srv = await start(await policy(PROGRAMS, [`audit ${log}`]));
		try {
			await run(srv, ['ls', '-a', 'b.txt'], { cwd: 'sub', env: { FOO: 'secret value' } });
		} finally {
			await srv.close();
		}
		const recs = (await logRecords(log)).filter((r) => r.event === 'call' && r.tool === 'run_command');
		assert.equal(recs.length, 1);
		const subj = recs[0].subjects.map((s) => [s.kind, s.value]);
		const ls = subj.find(([k]) => k === 'program');
		assert.ok(ls && ls[1].endsWith('/ls'), JSON.stringify(subj));
		assert.deepEqual(subj.filter(([k]) => k === 'arg').map(([, v]) => v), ['-a', 'b.txt']);
		assert.deepEqual(subj.filter(([k]) => k === 'cwd').map(([, v]) => v), [tree.p('sub')]);
		assert.deepEqual(subj.filter(([k]) => k === 'env').map(([, v]) => v), ['FOO']);
		assert.ok(!JSON.stringify(recs[0].subjects).includes('secret value'));
	});

	test('a working directory outside the roots is the policy\'s refusal, before any fork', async () => {
		const dir = await scratch.ownedDir();
		const log = path.join(dir, 'audit.jsonl');
		const link = tree.p('out-link');
		await fsp.symlink(dir, link);
		const cwds = ['/etc', '..', tree.p('sub/../..'), 'out-link', 'sub/../out-link/x'];
		const srv = await start(await policy(PROGRAMS, [`audit ${log}`]));
		try {
			for (const cwd of cwds)
				for (const tool of ['run_command', 'start_command']) {
					const r = await call(srv, tool, { argv: ['pwd'], cwd });
					assert.equal(r.isError, true, `${tool} in ${cwd}: ${JSON.stringify(r)}`);
					assert.match(textOf(r), /^cwd '.*': (resolves )?outside the allowed directories/,
					    `${tool} in ${cwd}`);
				}
			// Not there, or not a directory: the handler's to say, as ever.
			await refused(srv, ['pwd'], { cwd: 'nowhere' });
		} finally {
			await srv.close();
			await fsp.rm(link);
		}
		const recs = await logRecords(log);
		const calls = recs.filter((r) => r.event === 'call');
		assert.deepEqual(calls.map((c) => [c.args.cwd, c.decision, c.by]),
		    [...cwds.flatMap((c) => [[c, 'denied', 'policy'], [c, 'denied', 'policy']]),
			['nowhere', 'run', undefined]]);
		assert.equal(recs.filter((r) => r.event === 'result').length, 1,
		    'a call outside the roots was forked');
	});
});

// ---------------------------------------------------------------- a terminal

/* The pids of the processes one of whose arguments is |arg|, exactly. */
function processesWithArg(arg) {
	const found = [];
	for (const d of readdirSync('/proc')) {
		if (!/^\d+$/.test(d))
			continue;
		try {
			const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z')
				continue;
			if (readFileSync(`/proc/${d}/cmdline`, 'latin1').split('\0').includes(arg))
				found.push(Number(d));
		} catch {
			// Gone while we looked.
		}
	}
	return found;
}

/* The pseudo-terminals of this machine's devpts, by name. */
function ptys() {
	return readdirSync('/dev/pts').filter((n) => /^\d+$/.test(n)).map((n) => `/dev/pts/${n}`);
}

describe('start_command on a terminal (tty)', () => {
	let srv;
	let tmp;
	let helper;		// a copy of tests/tiocsti the server's user can run

	before(async () => {
		tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-tty-'));
		await fsp.chmod(tmp, 0o755);
		const extra = ['program test', 'program stty', 'program sh', 'program tput'];
		if (existsSync(TIOCSTI)) {
			helper = path.join(tmp, 'tiocsti');
			await fsp.copyFile(TIOCSTI, helper);
			await fsp.chmod(helper, 0o755);
			extra.push(`program ${helper}`);
		}
		srv = await start(await policy([...PROGRAMS, ...extra]));
	});

	after(async () => {
		await srv?.close();
		if (tmp)
			await fsp.rm(tmp, { recursive: true, force: true });
	});

	async function read(job, offset, extra = {}) {
		const r = await call(srv, 'read_output', { job, offset, ...extra }, { timeout: 40_000 });
		assert.notEqual(r.isError, true, textOf(r));
		return r.structuredContent;
	}

	/* Starts |argv| on a terminal; returns the job's id. */
	async function startTty(argv, extra = {}) {
		const r = await call(srv, 'start_command', { argv, tty: true, ...extra });
		assert.notEqual(r.isError, true, textOf(r));
		return r.structuredContent.job;
	}

	/*
	 * Reads |job| from |offset| until its output holds |want| (a string
	 * or a RegExp) or it ends; returns { text, next, state }.
	 */
	async function readUntil(job, offset, want) {
		const has = (t) => (typeof want === 'string' ? t.includes(want) : want.test(t));
		let text = '';
		let next = offset;
		let state = 'running';
		for (let i = 0; i < 100 && !has(text) && state === 'running'; i++) {
			const o = await read(job, next, { wait_ms: 5000 });
			text += o.output;
			next = o.next_offset;
			state = o.state;
		}
		assert.ok(has(text), `${want} never came; got ${JSON.stringify(text)}`);
		return { text, next, state };
	}

	/*
	 * Waits for |job| to end; returns its last read (with its result).
	 * With |stop|, a job still running after 15 s is stopped before the
	 * test fails, and the failure shows its output.
	 */
	async function ended(job, { stop = false } = {}) {
		let o;
		let next = 0;
		// Reads from the end, which wait for more or for the end.
		const t0 = Date.now();
		for (let i = 0; i < 1000 && Date.now() - t0 < (stop ? 15_000 : 60_000); i++) {
			o = await read(job, next, { wait_ms: 5000 });
			next = o.next_offset;
			if (o.state !== 'running')
				break;
		}
		if (o.state !== 'running')
			o = await read(job, 0, { max_bytes: 1 << 18 });
		if (o.state === 'running' && stop)
			await call(srv, 'stop_command', { job });
		assert.notEqual(o.state, 'running', `the job never ended: ${JSON.stringify(o.output)}`);
		return o;
	}

	test('the schema offers tty, a boolean that is false by default', async () => {
		const { tools } = await srv.client.listTools();
		const tty = tools.find((t) => t.name === 'start_command').inputSchema.properties.tty;
		assert.equal(tty?.type, 'boolean', JSON.stringify(tty));
		assert.equal(tty.default, false);
		assert.match(tty.description, /80 columns by 24 rows/);
		assert.equal(tools.find((t) => t.name === 'run_command').inputSchema.properties.tty, undefined,
		    'run_command has no terminal');
	});

	test('on a terminal, fds 0-2 are one, 80x24; without tty they are not', async () => {
		const job = await startTty(['test', '-t', '0', '-a', '-t', '1', '-a', '-t', '2']);
		const o = await ended(job);
		const sc = o.result.structuredContent;
		assert.equal(sc.exit_code, 0, `not a terminal: ${JSON.stringify(o.result)}`);
		assert.equal(sc.tty, true);
		assert.match(textOf(o.result), /ran on a terminal/);
		const size = await ended(await startTty(['stty', 'size']));
		assert.equal(size.output, '24 80\r\n');
		// The result counts the job's output, and does not repeat it.
		assert.equal(size.result.structuredContent.stdout_bytes, 7);
		assert.equal(size.result.structuredContent.stderr_bytes, 0);
		// The control: pipes.
		const r = await call(srv, 'start_command', { argv: ['test', '-t', '1'] });
		const p = await ended(r.structuredContent.job);
		assert.equal(p.result.structuredContent.exit_code, 1);
		assert.equal(p.result.structuredContent.tty, undefined);
	});

	/*
	 * Waits for job |job| of server |server| to end, reading from the
	 * end (which waits for more or for the end); returns a read of it
	 * from the start, with its result.
	 */
	async function endOf(server, job) {
		let o;
		let next = 0;
		for (let i = 0; i < 100 && (o === undefined || o.state === 'running'); i++) {
			const r = await call(server, 'read_output', { job, offset: next, wait_ms: 5000 },
			    { timeout: 40_000 });
			assert.notEqual(r.isError, true, textOf(r));
			o = r.structuredContent;
			next = o.next_offset;
		}
		assert.notEqual(o.state, 'running', `job ${job} never ended`);
		return (await call(server, 'read_output', { job, offset: 0, max_bytes: 1 << 18 }))
		    .structuredContent;
	}

	test('a terminal gets TERM=xterm-256color, whose terminfo entry its programs read', async () => {
		const env = await ended(await startTty(['env']));
		const vars = env.output.split('\r\n');
		assert.ok(vars.includes('TERM=xterm-256color'), env.output);
		// The window's size is the terminal's own (TIOCGWINSZ), which a
		// program may change: no COLUMNS or LINES to contradict it.
		assert.ok(!vars.some((v) => /^(COLUMNS|LINES)=/.test(v)), env.output);
		const cols = await ended(await startTty(['tput', 'cols']));
		assert.equal(cols.output, '80\r\n', JSON.stringify(cols.result));
		assert.equal(cols.result.structuredContent.exit_code, 0);
		const clear = await ended(await startTty(['tput', 'clear']));
		assert.equal(clear.result.structuredContent.exit_code, 0, clear.output);
		assert.match(clear.output, /^\x1b\[H\x1b\[2J/, 'not xterm\'s clear');
		// The local entries, where ncurses looks before the system's
		// (Alpine keeps all of them there).
		if (existsSync('/etc/terminfo')) {
			const ls = await ended(await startTty(['ls', '/etc/terminfo']));
			assert.equal(ls.result.structuredContent.exit_code, 0, ls.output);
		}
		// Without a terminal, none.
		const r = await call(srv, 'start_command', { argv: ['env'] });
		const p = await ended(r.structuredContent.job);
		assert.doesNotMatch(p.output, /^TERM=/m);
		assert.doesNotMatch(textOf(await run(srv, ['env'])), /^TERM=/m);
	});

	test("the policy's TERM wins, and a call's where the policy lets it set one", async () => {
		for (const [line, want, set] of [
			['env-set TERM=vt100', 'TERM=vt100', {}],
			['env TERM', 'TERM=dumb', { env: { TERM: 'dumb' } }],
			['env TERM', 'TERM=xterm-256color', {}],
		]) {
			const own = await start(await policy(['program env', 'program tput', line]));
			try {
				const ask = async (argv) => {
					const r = await call(own, 'start_command', { argv, tty: true, ...set });
					assert.notEqual(r.isError, true, textOf(r));
					return endOf(own, r.structuredContent.job);
				};
				// The whole read in the message: how the job ended, and
				// what came, if a line is missing.
				const env = await ask(['env']);
				assert.ok(env.output.split('\r\n').includes(want), `${line}: ${JSON.stringify(env)}`);
				if (want !== 'TERM=dumb')
					assert.equal((await ask(['tput', 'cols'])).output, '80\r\n', line);
			} finally {
				await own.close();
			}
		}
	});

	test('with no pseudo-terminal to open, a job that asks for one is refused in words; others run', async (t) => {
		// A machine whose /dev/pts is no devpts (a bare container or
		// chroot): the server runs in a mount namespace of its own, where
		// a tmpfs hides /dev/pts, so that the child's open of /dev/ptmx
		// fails (ENODEV; ENOENT where /dev/ptmx links into /dev/pts).
		// Nothing of the machine changes; only root may do it.
		if (process.getuid() !== 0)
			return t.skip('needs root: a mount namespace of its own');
		const unshare = ['unshare', '--mount', '--propagation', 'private'];
		if (spawnSync(unshare[0], [...unshare.slice(1), 'true']).status !== 0)
			return t.skip('unshare --mount is not available here');
		const own = await start(await policy(['program env']), {
			wrap: [...unshare, 'sh', '-c', 'mount -t tmpfs -o size=4k,mode=755 tmpfs /dev/pts && exec "$@"',
			    'sh'],
		});
		/* Starts |argv| with |extra|; returns the job's last read. */
		const job = async (argv, extra = {}) => {
			const r = await call(own, 'start_command', { argv, ...extra });
			assert.notEqual(r.isError, true, textOf(r));
			return endOf(own, r.structuredContent.job);
		};
		try {
			// The job ends at once, its result the refusal.
			const o = await job(['env'], { tty: true });
			assert.equal(o.output, '');
			assert.equal(o.result.isError, true, JSON.stringify(o));
			assert.match(textOf(o.result), /^no pseudo-terminal could be opened for this job: (No such device|No such file or directory)$/);
			// The server serves on: a job on pipes, and a command.
			const p = await job(['env']);
			assert.equal(p.state, 'exited', JSON.stringify(p));
			assert.match(p.output, /^PATH=/m);
			assert.match(textOf(await run(own, ['env'])), /^PATH=/m);
		} finally {
			await own.close();
		}
	});

	test('an interactive program answers what write_input types; stderr comes through the terminal', async () => {
		const job = await startTty(['sh', '-c', 'printf "name? "; read n; echo "hi $n"; echo "to stderr" >&2; read m; echo "then $m"']);
		let { next } = await readUntil(job, 0, 'name? ');
		await call(srv, 'write_input', { job, data: 'bob\n' });
		// The terminal echoes what is typed, and ends lines with \r\n.
		({ next } = await readUntil(job, next, 'to stderr\r\n'));
		await call(srv, 'write_input', { job, data: 'more\n', close: true });
		const o = await ended(job);
		assert.equal(o.output, 'name? bob\r\nhi bob\r\nto stderr\r\nmore\r\nthen more\r\n');
		assert.equal(o.result.structuredContent.exit_code, 0);
	});

	test('closing the input is end-of-file to a program reading the terminal', async () => {
		const job = await startTty(['cat'], { stdin: 'first\n' });
		const { next } = await readUntil(job, 0, 'first\r\nfirst\r\n');
		await call(srv, 'write_input', { job, data: 'second\n', close: true });
		await readUntil(job, next, 'second\r\nsecond\r\n');
		const o = await ended(job);
		assert.equal(o.state, 'exited');
		assert.equal(o.result.structuredContent.exit_code, 0);
	});

	test('^C typed into the terminal interrupts its foreground program', async () => {
		const job = await startTty(['sh', '-c', 'echo ready; exec sleep 100']);
		await readUntil(job, 0, 'ready');
		await call(srv, 'write_input', { job, data: '\u0003' });
		const o = await ended(job);
		assert.equal(o.result.structuredContent.signal, 'SIGINT', JSON.stringify(o.result));
	});

	test('with binary, a terminal\'s output keeps its bytes (but for \\n sent as \\r\\n)', async () => {
		const bytes = Buffer.alloc(1024, 0).map((_, i) => i & 0xff);
		await fsp.writeFile(tree.p('tty-bytes.bin'), bytes);
		const job = await startTty(['cat', 'tty-bytes.bin'], { binary: true });
		const o = await ended(job);
		const want = Buffer.from(bytes.toString('latin1').replaceAll('\n', '\r\n'), 'latin1');
		assert.equal(o.result.structuredContent.stdout_bytes, want.length);
		const all = await read(job, 0, { binary: true, max_bytes: 4096 });
		assert.deepEqual(Buffer.from(all.data_base64, 'base64'), want);
	});

	test('stop_command kills a job on a terminal with its whole tree', async () => {
		const tags = [`${1000 + Math.floor(Math.random() * 8000)}.${process.pid}1`,
		    `${1000 + Math.floor(Math.random() * 8000)}.${process.pid}2`];
		// One in the background, one whose parent has gone.
		const job = await startTty(['sh', '-c', `sleep ${tags[0]} & sh -c "sleep ${tags[1]} &"; echo started; wait`]);
		await readUntil(job, 0, 'started');
		for (let i = 0; i < 100 && tags.some((t) => processesWithArg(t).length === 0); i++)
			await sleep(50);
		for (const t of tags)
			assert.equal(processesWithArg(t).length, 1, `sleep ${t} is not running`);
		const s = await call(srv, 'stop_command', { job });
		assert.equal(s.structuredContent.state, 'stopped');
		let left = tags.flatMap(processesWithArg);
		for (let i = 0; i < 200 && left.length > 0; i++) {
			await sleep(50);
			left = tags.flatMap(processesWithArg);
		}
		assert.deepEqual(left, [], 'processes of the job outlived its stop');
	});

	test('TIOCSTI and TIOCLINUX from inside the terminal are refused', async (t) => {
		if (!helper)
			return t.skip(`${TIOCSTI} is not built`);
		const job = await startTty([helper]);
		const o = await ended(job);
		const text = o.output.replaceAll('\r', '');
		assert.match(text, /^pushed 0$/m, `something was pushed: ${text}`);
		const lines = text.split('\n').filter((l) => / TIOC/.test(l));
		assert.ok(lines.length >= 6, `the helper tried too little: ${text}`);
		for (const line of lines) {
			const [target, req, e, h] = line.split(' ');
			if (target === '/dev/tty')
				continue;	// not opened at all: below
			assert.notEqual(e, '0', `${req} on ${target} worked`);
			assert.notEqual(h, '0', `${req} with high bits on ${target} worked`);
		}
	});

	test('a program on a terminal opens no other: not another job\'s, nor /dev/tty, nor /dev/ptmx', async () => {
		const before = new Set(ptys());
		const other = await startTty(['sleep', '100']);
		let theirs = [];
		for (let i = 0; i < 100 && theirs.length === 0; i++) {
			theirs = ptys().filter((p) => !before.has(p));
			if (theirs.length === 0)
				await sleep(50);
		}
		// Another job's, and any other of this machine's.
		const targets = [...new Set([...theirs, ...ptys()])].slice(0, 8);
		assert.ok(targets.length > 0, 'no terminal to try');
		const all = [...targets, '/dev/tty', '/dev/ptmx', '/dev/pts/ptmx'];
		// The helper opens each without blocking on it (cat would wait
		// for input from a terminal it should not have opened).
		const job = await startTty(helper ? [helper, ...all] : ['cat', ...all]);
		const o = await ended(job, { stop: true });
		// Refused (EACCES); but a terminal of this machine's other
		// than the job's may have gone since it was listed (ENOENT).
		const gone = (p) => !theirs.includes(p) && p.startsWith('/dev/pts/') && p !== '/dev/pts/ptmx';
		for (const p of all)
			assert.match(o.output, helper ? new RegExp(`^${p} open ${gone(p) ? '(13|2)' : '13'}\r$`, 'm') :
			    new RegExp(`cat: ${p}: (Permission denied${gone(p) ? '|No such file or directory' : ''})`),
			o.output);
		await call(srv, 'stop_command', { job: other });
	});
});
