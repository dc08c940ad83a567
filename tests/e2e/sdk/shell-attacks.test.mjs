// shell-attacks.test.mjs: the adversarial suite of toolcell-shell, driven
// with the official MCP client.  Each attack is a row of a table that
// says which line stops it:
//
//   rules   the policy's argument rules refuse the call: a tool error that
//           names the argument, recorded in the audit log as denied by the
//           policy, with no result record (nothing was forked);
//   prefix  the call runs, and an argument the policy forces (git's
//           -c core.fsmonitor=, sed's --sandbox, vim's -Z) makes the
//           program refuse the attack itself;
//   kernel  the call runs with the program allowed bare, and its attempt
//           to start anything else (/bin/sh) fails with EACCES, or its
//           write outside the allowed directories fails;
//   mount   the call runs with the program allowed bare, and its write
//           into a repository's .git beneath the writable directory fails
//           with EROFS: each call's child binds it read-only.
//
// Every row also checks that the escape did not happen from outside (a
// marker file the payload would write is not there, a string only a shell
// that ran could print is absent), and each kernel row has a control: the
// same call under a policy that also allows sh, where the marker must
// appear, so that a payload that could never work proves nothing.  Then
// programs that take commands from a terminal, environment canaries, what
// a call can reach around it (its parent, fds, directories, set-id
// programs), the network, a fork bomb, orphans, output floods, a long run
// of calls with no output lost, timeouts and cancellation, and
// TIOCSTI/TIOCLINUX against the server's own controlling terminal.
//
// A program not installed here skips its rows with the reason (nothing
// is installed by the tests).  With TOOLCELL_AS=nobody the server runs as
// nobody; every directory it writes belongs to it.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	BUILD, CALL_TIMEOUT, call, fileUri, logRecords, makeScratch, makeTree, readdirOwned, runAs,
	runServer, serverIds, sleep, startServer, textOf, transcript, until,
} from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');
const TIOCSTI = path.join(BUILD, 'tests', 'tiocsti');

/* The PATH the server resolves a bare program name against (shell.h). */
const SHELL_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/* What only a shell that ran prints: its argv holds "$((6*7))". */
const RAN = 'SHELL-42-RAN';

/* Skips, or fails when TOOLCELL_MUST_WORK=1 asks for every case. */
function skipOrFail(t, why) {
	if (process.env.TOOLCELL_MUST_WORK === '1')
		assert.fail(`TOOLCELL_MUST_WORK=1, and this case cannot run here: ${why}`);
	t.skip(why);
}

/* The canonical path of program |name| as the server would find it, or
 * null when it is not installed. */
function which(name) {
	for (const dir of name.includes('/') ? [''] : SHELL_PATH) {
		const p = name.includes('/') ? name : path.join(dir, name);
		try {
			accessSync(p, constants.X_OK);
			if (statSync(p).isFile())
				return realpathSync(p);
		} catch {
			// Not here.
		}
	}
	return null;
}

/* The uid the server (and so each call) runs as. */
const serverUid = () => runAs()?.uid ?? process.getuid();

/*
 * Skips |t| (returning true) unless toolcell-shell is built and each of
 * |programs| is installed.
 */
function cannotRun(t, programs = []) {
	if (!existsSync(SHELL)) {
		skipOrFail(t, `${SHELL} is not built`);
		return true;
	}
	const missing = programs.filter((p) => which(p) === null);
	if (missing.length > 0) {
		skipOrFail(t, `not installed here: ${missing.join(' ')}`);
		return true;
	}
	return false;
}

// ---------------------------------------------------------------- results

/*
 * run_command's result, read in one place: {exit, signal, stdout, stderr,
 * stdoutBytes, stderrBytes, stdoutTruncated, stderrTruncated, timedOut,
 * stdoutB64, stderrB64}.
 */
function res(r) {
	const sc = r.structuredContent;
	assert.ok(sc && typeof sc === 'object', `no structuredContent: ${JSON.stringify(r).slice(0, 2000)}`);
	return {
		exit: sc.exit_code ?? null,
		signal: sc.signal ?? null,
		stdout: sc.stdout ?? '',
		stderr: sc.stderr ?? '',
		stdoutBytes: sc.stdout_bytes,
		stderrBytes: sc.stderr_bytes,
		stdoutTruncated: sc.stdout_truncated,
		stderrTruncated: sc.stderr_truncated,
		stdoutB64: sc.stdout_base64,
		stderrB64: sc.stderr_base64,
		timedOut: sc.timed_out ?? false,
		sc,
	};
}

/* Everything a result says, as one string (for the marks of a shell). */
function said(r) {
	return JSON.stringify(r);
}

/* Calls run_command with |argv| (null: extra.argv) and |extra| arguments. */
function run(srv, argv, extra = {}, timeout = CALL_TIMEOUT) {
	return call(srv, 'run_command', { ...extra, ...(argv ? { argv } : {}) }, { timeout });
}

/*
 * run(), but a connection the client dropped fails the test with what the
 * client said (the official client drops it on a message past 10 MiB, its
 * STDIO_DEFAULT_MAX_BUFFER_SIZE: a host using it would lose the server).
 */
async function runKept(srv, argv, extra, timeout) {
	try {
		return await run(srv, argv, extra, timeout);
	} catch (e) {
		const why = srv.clientErrors.map((x) => x.message).join('; ');
		assert.fail(`the client lost the server (${e.message}): ${why || 'no client error'}`);
	}
}

/* Asserts that |srv| still answers a benign call. */
async function assertServes(srv, what) {
	const r = await run(srv, ['echo', 'still', 'here']);
	assert.notEqual(r.isError, true, `${what}: the benign call failed: ${textOf(r)}`);
	assert.equal(res(r).stdout, 'still here\n', `${what}: the benign call said ${said(r)}`);
}

// ---------------------------------------------------------------- processes

/* The pids of the processes whose command line holds |tag|. */
function processesWith(tag) {
	const found = [];
	for (const d of readdirSync('/proc')) {
		if (!/^\d+$/.test(d) || Number(d) === process.pid)
			continue;
		try {
			const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z')
				continue;
			if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(tag))
				found.push(Number(d));
		} catch {
			// Gone while we looked.
		}
	}
	return found;
}

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

/* Waits up to |ms| for |check| to return an empty list; returns the last. */
async function waitEmpty(check, ms) {
	const t0 = Date.now();
	let left = check();
	while (left.length > 0 && Date.now() - t0 < ms) {
		await sleep(50);
		left = check();
	}
	return left;
}

/* Waits up to |ms| for |check| to return a list of |n|; returns the last. */
async function waitCount(check, n, ms) {
	const t0 = Date.now();
	let got = check();
	while (got.length < n && Date.now() - t0 < ms) {
		await sleep(50);
		got = check();
	}
	return got;
}

/* A sleep duration nothing else on the machine sleeps: "100.<digits>". */
function sleepTag() {
	return `100.${randomBytes(6).readUIntBE(0, 6).toString().padStart(15, '0')}`;
}

// ---------------------------------------------------------------- the world

/*
 * The directories every server here serves, made once:
 *   W  writable, the server user's: where the calls run and the markers go
 *   R  read-only: files to read, and victims a -delete must not remove
 *   O  outside every policy, yet the server user's own: only the sandbox
 *      keeps a call from writing there
 * and the scratch directory for policies and audit logs.
 */
let scratch;
let W;
let R;
let O;
let nMarks = 0;

before(async () => {
	scratch = await makeScratch('shattacks');
	W = await scratch.ownedDir();
	O = await scratch.ownedDir();
	R = await makeTree({ 'f.txt': 'one\ntwo\n', 'victims/.keep': '' });
	// The server's user may remove what is in victims/ as far as the
	// file modes go: only the sandbox (R is read-only) stands in the way.
	own(R.p('victims'));
});

after(async () => {
	await R?.cleanup();
	await scratch?.cleanup();
});

/* Gives |p| (and everything beneath it) to the server's user. */
function own(p) {
	const { uid, gid } = serverIds();
	execFileSync('chown', ['-R', `${uid}:${gid}`, p]);
}

/*
 * Writes a policy of |lines| (after the directories) in the [shell]
 * section, with an audit log of its own; returns {file, log}.
 */
async function shellPolicy(lines, { dirs = true, audit = true } = {}) {
	const logDir = audit ? await scratch.ownedDir() : null;
	const log = audit ? path.join(logDir, 'audit.jsonl') : null;
	const file = await scratch.policy([
		'[shell]',
		...(dirs ? [`allow write ${W}`, `allow read ${R.root}`] : []),
		...(audit ? [`audit ${log}`] : []),
		...lines,
	]);
	return { file, log };
}

/* Starts toolcell-shell with policy |pol| ({file, log}); opts as startServer's. */
async function startShell(pol, opts = {}) {
	const srv = await startServer(['--policy', pol.file], { server: SHELL, ...opts });
	srv.log = pol.log;
	return srv;
}

/*
 * The audit records of the last tools/call |srv| sent: {call, result}
 * (result undefined when none was written).
 */
async function lastCallRecords(srv) {
	const req = srv.sent.findLast((m) => m.method === 'tools/call');
	const recs = await logRecords(srv.log);
	const c = recs.find((r) => r.event === 'call' && r.request_id === String(req.id));
	assert.ok(c, `no call record for request ${req.id}`);
	return { call: c, result: recs.find((r) => r.event === 'result' && r.call === c.call) };
}

// ---------------------------------------------------------------- argument injection

/*
 * The argument rules a careful policy gives each program (the strict
 * server); the bare server allows each with none, so that only the kernel
 * stands in the way.  A pattern of a long option refuses its
 * abbreviations too (getopt_long(3) takes an unambiguous one), with
 * wildcards ('--upload-pack*') or without, and a dash and one letter
 * refuses the letter in a cluster ('-cvI'): toolcell-policy(5).
 */
const PROGRAMS = {
	find: ['args find deny -exec -execdir -ok -okdir -fprint* -fls -delete'],
	git: [
		'args git prefix -c core.fsmonitor= -c core.hooksPath=/dev/null -c core.pager=cat',
		'args git deny -c --config-env --upload-pack* --exec-path',
		'args git subcommands status log diff show ls-remote',
	],
	tar: ['args tar deny --checkpoint-action --to-command -I --use-compress-program -F --info-script '
	    + '--new-volume-script --rsh-command --rmt-command'],
	sed: ['args sed prefix --sandbox'],
	awk: [],
	sort: ['args sort deny --compress-program'],
	xargs: ['args xargs subcommands echo'],
	env: ['args env subcommands true'],
	ssh: ['args ssh deny -o -F'],
	vim: ['args vim prefix -Z'],
	zip: ['args zip deny -TT --unzip-command'],
	rsync: ['args rsync deny -e --rsh'],
	bash: [],
	cat: [],
	ln: [],
	python3: [],
	strace: [],
};

/*
 * The rows.  Each has:
 *   name     what is tried
 *   prog     the program it runs (argv[0])
 *   layer    'rules', 'prefix', 'kernel' or 'mount': what must stop it,
 *            in the strict policy for rules and prefix, the bare one for
 *            kernel and mount
 *   kind     'exec' (runs sh with the payload, which writes c.marker),
 *            'write' (writes c.out, outside the policy but for the
 *            control; or changes the file row.written(c) names),
 *            'delete' (removes c.victim, read-only but for the
 *            control), 'read' (reads c.secret, outside but for the
 *            control: its token shows), 'link' (makes c.hard, a hard link
 *            of c.secret), 'attach' (what it says matches row.attached)
 *   argv(c)  the arguments; c = {pay, marker, out, victim, secret, link,
 *            hard, token, repo, tarball, cwd}
 *   stdin(c), env(c), setup(c)  optional
 *   rule     rules: what the refusal must name (a regexp of its text)
 *   repo     a git repository, c.repo, one level down in W (two with
 *            deep: where no mount keeps its .git read-only); cwdRepo:
 *            the call runs there; config(c), hook: written into it
 *   says     kernel, mount and prefix: what the program says on stderr (on
 *            stdout with on: 'stdout'): the attempt was made and refused,
 *            where it says anything
 *   exitNot0 prefix: the program fails (it says nothing)
 *   control  false: no control (nothing a policy could allow makes it work)
 */
const CASES = [
	// find
	{ name: 'find -exec sh', prog: 'find', layer: 'rules', kind: 'exec', rule: /-exec/,
	    argv: (c) => ['.', '-maxdepth', '0', '-exec', 'sh', '-c', c.pay, ';'] },
	{ name: 'find -exec sh', prog: 'find', layer: 'kernel', kind: 'exec', says: /sh.*Permission denied/,
	    argv: (c) => ['.', '-maxdepth', '0', '-exec', 'sh', '-c', c.pay, ';'] },
	{ name: 'find -execdir sh', prog: 'find', layer: 'rules', kind: 'exec', rule: /-execdir/,
	    argv: (c) => ['.', '-maxdepth', '0', '-execdir', 'sh', '-c', c.pay, ';'] },
	{ name: 'find -execdir sh', prog: 'find', layer: 'kernel', kind: 'exec', says: /sh.*Permission denied/,
	    argv: (c) => ['.', '-maxdepth', '0', '-execdir', 'sh', '-c', c.pay, ';'] },
	{ name: 'find -ok sh (answered y)', prog: 'find', layer: 'rules', kind: 'exec', rule: /-ok/,
	    argv: (c) => ['.', '-maxdepth', '0', '-ok', 'sh', '-c', c.pay, ';'], stdin: () => 'y\n' },
	{ name: 'find -ok sh (answered y)', prog: 'find', layer: 'kernel', kind: 'exec', says: /sh.*Permission denied/,
	    argv: (c) => ['.', '-maxdepth', '0', '-ok', 'sh', '-c', c.pay, ';'], stdin: () => 'y\n' },
	{ name: 'find -fprintf outside', prog: 'find', layer: 'rules', kind: 'write', rule: /-fprintf/,
	    argv: (c) => ['.', '-maxdepth', '0', '-fprintf', c.out, '%p\n'] },
	{ name: 'find -fprintf outside', prog: 'find', layer: 'kernel', kind: 'write', says: /Permission denied/,
	    argv: (c) => ['.', '-maxdepth', '0', '-fprintf', c.out, '%p\n'] },
	{ name: 'find -delete in a read-only directory', prog: 'find', layer: 'rules', kind: 'delete', rule: /-delete/,
	    argv: (c) => [c.victim, '-delete'] },
	{ name: 'find -delete in a read-only directory', prog: 'find', layer: 'kernel', kind: 'delete',
	    says: /Permission denied|Read-only|Operation not permitted/, argv: (c) => [c.victim, '-delete'] },

	// git
	{ name: 'git -c alias.x=!sh', prog: 'git', layer: 'rules', kind: 'exec', rule: /-c/,
	    argv: (c) => ['-c', `alias.x=!sh -c '${c.pay}'`, 'x'] },
	{ name: 'git -c alias.x=!sh', prog: 'git', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['-c', `alias.x=!sh -c '${c.pay}'`, 'x'] },
	{ name: 'git -c core.sshCommand', prog: 'git', layer: 'rules', kind: 'exec', rule: /-c/,
	    argv: (c) => ['-c', `core.sshCommand=sh -c '${c.pay}'`, 'ls-remote', 'ssh://nowhere.invalid/r'] },
	{ name: 'git -c core.sshCommand', prog: 'git', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['-c', `core.sshCommand=sh -c '${c.pay}'`, 'ls-remote', 'ssh://nowhere.invalid/r'] },
	{ name: 'git ls-remote --upload-pack', prog: 'git', layer: 'rules', kind: 'exec', rule: /upload-pack/,
	    argv: (c) => ['ls-remote', `--upload-pack=sh -c '${c.pay}'`, c.repo], repo: true },
	{ name: 'git ls-remote --upload-pack', prog: 'git', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['ls-remote', `--upload-pack=sh -c '${c.pay}'`, c.repo], repo: true },
	{ name: 'git ls-remote --upload-p (an abbreviation)', prog: 'git', layer: 'rules', kind: 'exec',
	    rule: /--upload-p=/, argv: (c) => ['ls-remote', `--upload-p=sh -c '${c.pay}'`, c.repo], repo: true },
	{ name: 'git ls-remote --upl (an abbreviation of a pattern)', prog: 'git', layer: 'rules', kind: 'exec',
	    rule: /'--upl' may abbreviate an option matching '--upload-pack\*'/,
	    argv: (c) => ['ls-remote', `--upl=sh -c '${c.pay}'`, c.repo], repo: true },
	{ name: 'git --config-env=alias.x=VAR', prog: 'git', layer: 'rules', kind: 'exec', rule: /config-env/,
	    argv: () => ['--config-env=alias.x=TOOLCELL_PAYLOAD', 'x'],
	    env: (c) => ({ TOOLCELL_PAYLOAD: `!sh -c '${c.pay}'` }) },
	{ name: 'git --config-env=alias.x=VAR', prog: 'git', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: () => ['--config-env=alias.x=TOOLCELL_PAYLOAD', 'x'],
	    env: (c) => ({ TOOLCELL_PAYLOAD: `!sh -c '${c.pay}'` }) },
	{ name: 'git x, an alias in a written .git/config', prog: 'git', layer: 'rules', kind: 'exec', rule: /\bx\b/,
	    repo: true, cwdRepo: true, config: (c) => `[alias]\n\tx = "!sh -c '${c.pay}'"\n`, argv: () => ['x'] },
	{ name: 'git x, an alias in a written .git/config', prog: 'git', layer: 'kernel', kind: 'exec',
	    says: /Permission denied/, repo: true, cwdRepo: true,
	    config: (c) => `[alias]\n\tx = "!sh -c '${c.pay}'"\n`, argv: () => ['x'] },
	{ name: 'git --namespace status x: the option takes status, x (an alias) runs', prog: 'git',
	    layer: 'rules', kind: 'exec', rule: /'--namespace' comes before the subcommand 'status'/,
	    repo: true, cwdRepo: true, config: (c) => `[alias]\n\tx = "!sh -c '${c.pay}'"\n`,
	    argv: () => ['--namespace', 'status', 'x'] },
	{ name: 'git --namespace status x: the option takes status, x (an alias) runs', prog: 'git',
	    layer: 'kernel', kind: 'exec', says: /Permission denied/, repo: true, cwdRepo: true,
	    config: (c) => `[alias]\n\tx = "!sh -c '${c.pay}'"\n`, argv: () => ['--namespace', 'status', 'x'] },
	{ name: 'git status, core.fsmonitor in a written .git/config', prog: 'git', layer: 'prefix', kind: 'exec',
	    repo: true, cwdRepo: true, config: (c) => `[core]\n\tfsmonitor = "sh -c '${c.pay}'"\n`,
	    argv: () => ['status'], calm: true },
	{ name: 'git status, core.fsmonitor in a written .git/config', prog: 'git', layer: 'kernel', kind: 'exec',
	    says: /Permission denied/, repo: true, cwdRepo: true,
	    config: (c) => `[core]\n\tfsmonitor = "sh -c '${c.pay}'"\n`, argv: () => ['status'] },
	// Two levels down no mount keeps .git read-only: the execute right
	// is what stops the hook there.  One level down the commit cannot
	// even take its lock.
	{ name: 'git commit, a pre-commit hook written into .git/hooks two levels down', prog: 'git', layer: 'kernel',
	    kind: 'exec', says: /Permission denied|cannot exec|cannot run/, repo: true, deep: true, cwdRepo: true,
	    hook: true, control: false, config: () => '[user]\n\tname = t\n\temail = t@example.invalid\n',
	    argv: () => ['commit', '--allow-empty', '-q', '-m', 'x'] },
	{ name: 'git commit, a pre-commit hook written into .git/hooks', prog: 'git', layer: 'mount', kind: 'exec',
	    says: /index\.lock': Read-only file system/, repo: true, cwdRepo: true, hook: true,
	    config: () => '[user]\n\tname = t\n\temail = t@example.invalid\n',
	    argv: () => ['commit', '--allow-empty', '-q', '-m', 'x'] },
	{ name: 'git config core.fsmonitor, into the repository\'s own configuration', prog: 'git', layer: 'mount',
	    kind: 'write', says: /could not lock config file .*: Read-only file system/, repo: true, cwdRepo: true,
	    written: (c) => path.join(c.repo, '.git', 'config'), argv: (c) => ['config', 'core.fsmonitor', `sh -c '${c.pay}'`] },

	// tar
	{ name: 'tar --checkpoint-action=exec', prog: 'tar', layer: 'rules', kind: 'exec', rule: /checkpoint-action/,
	    argv: (c) => ['-cf', '/dev/null', '--checkpoint=1', `--checkpoint-action=exec=sh -c '${c.pay}'`, 'f.txt'] },
	{ name: 'tar --checkpoint-action=exec', prog: 'tar', layer: 'kernel', kind: 'exec', says: /Cannot exec: Permission denied/,
	    argv: (c) => ['-cf', '/dev/null', '--checkpoint=1', `--checkpoint-action=exec=sh -c '${c.pay}'`, 'f.txt'] },
	{ name: 'tar -x --to-command', prog: 'tar', layer: 'rules', kind: 'exec', rule: /to-command/,
	    argv: (c) => ['-xf', c.tarball, `--to-command=sh -c '${c.pay}'`], tarball: true },
	{ name: 'tar -x --to-command', prog: 'tar', layer: 'kernel', kind: 'exec', says: /Cannot exec: Permission denied/,
	    argv: (c) => ['-xf', c.tarball, `--to-command=sh -c '${c.pay}'`], tarball: true },
	{ name: 'tar -I', prog: 'tar', layer: 'rules', kind: 'exec', rule: /-I/,
	    argv: (c) => ['-cf', `${c.marker}.tar`, '-I', `sh -c '${c.pay}'`, 'f.txt'] },
	{ name: 'tar -I', prog: 'tar', layer: 'kernel', kind: 'exec', says: /Cannot exec: Permission denied/,
	    argv: (c) => ['-cf', `${c.marker}.tar`, '-I', `sh -c '${c.pay}'`, 'f.txt'] },

	{ name: 'tar -cvI (the option in a cluster)', prog: 'tar', layer: 'rules', kind: 'exec', rule: /-cvI/,
	    argv: (c) => ['-cvI', `sh -c '${c.pay}'`, '-f', `${c.marker}.tar`, 'f.txt'] },
	{ name: 'tar -cvI (the option in a cluster)', prog: 'tar', layer: 'kernel', kind: 'exec',
	    says: /Cannot exec: Permission denied/,
	    argv: (c) => ['-cvI', `sh -c '${c.pay}'`, '-f', `${c.marker}.tar`, 'f.txt'] },
	{ name: 'tar --use-compress-prog (an abbreviation)', prog: 'tar', layer: 'rules', kind: 'exec',
	    rule: /--use-compress-prog=/,
	    argv: (c) => ['-cf', `${c.marker}.tar`, `--use-compress-prog=sh -c '${c.pay}'`, 'f.txt'] },

	// sed
	{ name: 'sed e', prog: 'sed', layer: 'prefix', kind: 'exec', says: /disabled in sandbox mode/,
	    argv: (c) => ['-n', `1e ${c.pay}`, 'f.txt'] },
	{ name: 'sed e', prog: 'sed', layer: 'kernel', kind: 'exec', says: /error in subprocess/,
	    argv: (c) => ['-n', `1e ${c.pay}`, 'f.txt'] },
	{ name: 'sed w outside', prog: 'sed', layer: 'prefix', kind: 'write', says: /disabled in sandbox mode/,
	    argv: (c) => ['-n', `w ${c.out}`, 'f.txt'] },
	{ name: 'sed w outside', prog: 'sed', layer: 'kernel', kind: 'write', says: /Permission denied/,
	    argv: (c) => ['-n', `w ${c.out}`, 'f.txt'] },

	// awk: no rule can read an awk program; the kernel holds it.
	{ name: "awk 'BEGIN{system()}'", prog: 'awk', layer: 'kernel', kind: 'exec',
	    argv: (c) => [`BEGIN { system("${c.pay}") }`] },
	{ name: "awk 'print | \"cmd\"'", prog: 'awk', layer: 'kernel', kind: 'exec',
	    argv: (c) => [`BEGIN { print "" | "${c.pay}" }`] },

	// sort runs its compress program on its temporary files: sh, given the
	// sorted lines, each the payload, as its script.
	{ name: 'sort --compress-program=sh', prog: 'sort', layer: 'rules', kind: 'exec', rule: /compress-program/,
	    argv: (c) => ['-S', '1K', '-T', c.W, '--compress-program=sh'], stdin: (c) => `${c.pay}\n`.repeat(2000) },
	{ name: 'sort --compress-prog=sh (an abbreviation)', prog: 'sort', layer: 'rules', kind: 'exec',
	    rule: /--compress-prog=/,
	    argv: (c) => ['-S', '1K', '-T', c.W, '--compress-prog=sh'], stdin: (c) => `${c.pay}\n`.repeat(2000) },
	{ name: 'sort --compress-program=sh', prog: 'sort', layer: 'kernel', kind: 'exec',
	    says: /couldn't execute compress program/,
	    argv: (c) => ['-S', '1K', '-T', c.W, '--compress-program=sh'], stdin: (c) => `${c.pay}\n`.repeat(2000) },

	// xargs, env: they run what they are given.
	{ name: 'xargs sh -c', prog: 'xargs', layer: 'rules', kind: 'exec', rule: /\bsh\b/,
	    argv: (c) => ['sh', '-c', c.pay], stdin: () => 'x\n' },
	{ name: 'xargs sh -c', prog: 'xargs', layer: 'kernel', kind: 'exec', says: /sh: Permission denied/,
	    argv: (c) => ['sh', '-c', c.pay], stdin: () => 'x\n' },
	{ name: 'env sh -c', prog: 'env', layer: 'rules', kind: 'exec', rule: /\bsh\b/,
	    argv: (c) => ['sh', '-c', c.pay] },
	{ name: 'env sh -c', prog: 'env', layer: 'kernel', kind: 'exec', says: /sh.*Permission denied/,
	    argv: (c) => ['sh', '-c', c.pay] },

	// rsync -e, ssh -o ProxyCommand: the remote shell and the proxy are
	// started before any connection.
	{ name: 'rsync -e sh', prog: 'rsync', layer: 'rules', kind: 'exec', rule: /-e/,
	    argv: (c) => ['-e', `sh -c '${c.pay}'`, 'f.txt', 'nowhere.invalid:x'] },
	{ name: 'rsync -e sh', prog: 'rsync', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['-e', `sh -c '${c.pay}'`, 'f.txt', 'nowhere.invalid:x'] },
	{ name: 'ssh -o ProxyCommand', prog: 'ssh', layer: 'rules', kind: 'exec', rule: /-o/,
	    argv: (c) => ['-o', `ProxyCommand=sh -c '${c.pay}'`, 'nowhere.invalid'] },
	{ name: 'ssh -o ProxyCommand', prog: 'ssh', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['-o', `ProxyCommand=sh -c '${c.pay}'`, 'nowhere.invalid'] },

	// vim, in Ex mode with no terminal: :! runs the shell; -Z refuses it
	// (silently: vim -es only fails).
	{ name: 'vim -es -c :!sh', prog: 'vim', layer: 'prefix', kind: 'exec', exitNot0: true,
	    argv: (c) => ['-es', '-u', 'NONE', '-i', 'NONE', '-c', `!sh -c '${c.pay}'`, '-c', 'qa!'] },
	{ name: 'vim -es -c :!sh', prog: 'vim', layer: 'kernel', kind: 'exec',
	    argv: (c) => ['-es', '-u', 'NONE', '-i', 'NONE', '-c', `!sh -c '${c.pay}'`, '-c', 'qa!'] },
	{ name: 'vim -es -c system()', prog: 'vim', layer: 'kernel', kind: 'exec',
	    argv: (c) => ['-es', '-u', 'NONE', '-i', 'NONE', '-c', `call system("${c.pay}")`, '-c', 'qa!'] },

	// zip -TT: the test command runs through the shell.
	{ name: 'zip -T -TT sh', prog: 'zip', layer: 'rules', kind: 'exec', rule: /-TT/,
	    argv: (c) => ['-T', `${c.marker}.zip`, 'f.txt', '-TT', `sh -c '${c.pay}' ; true`] },
	{ name: 'zip -T -TT sh', prog: 'zip', layer: 'kernel', kind: 'exec', says: /could not spawn unzip/, on: 'stdout',
	    argv: (c) => ['-T', `${c.marker}.zip`, 'f.txt', '-TT', `sh -c '${c.pay}' ; true`] },

	// A shell the policy names is held by the kernel alone: it may run its
	// builtins, never another program, nor write outside.
	{ name: 'bash -c runs sh', prog: 'bash', layer: 'kernel', kind: 'exec', says: /Permission denied/,
	    argv: (c) => ['-c', `sh -c '${c.pay}'`] },
	{ name: 'bash -c writes outside', prog: 'bash', layer: 'kernel', kind: 'write', says: /Permission denied/,
	    argv: (c) => ['-c', `echo x > '${c.out}'`] },
	{ name: 'bash writes a script into the working directory, then runs it', prog: 'bash', layer: 'kernel',
	    kind: 'exec', says: /Permission denied/, control: false,
	    argv: (c) => ['-c', `printf '#!/bin/bash\\n%s\\n' "$1" > ./s && chmod +x ./s; ./s`, 'bash', c.pay] },
	{ name: 'python3 runs a script from a memfd', prog: 'python3', layer: 'kernel', kind: 'exec', control: false,
	    says: /PermissionError|Operation not permitted|Permission denied/,
	    argv: (c) => ['-I', '-c', [
		'import os, sys',
		'fd = os.memfd_create("x", 0)',
		`os.write(fd, b"#!/bin/sh\\n" + sys.argv[1].encode() + b"\\n")`,
		'os.execv(f"/proc/self/fd/{fd}", ["x"])',
	    ].join('\n'), c.pay] },

	// Reads and links: only beneath the policy's directories.
	{ name: 'cat a file outside', prog: 'cat', layer: 'kernel', kind: 'read', says: /Permission denied/,
	    argv: (c) => [c.secret] },
	{ name: 'cat through a symbolic link to a file outside', prog: 'cat', layer: 'kernel', kind: 'read',
	    says: /Permission denied/, argv: (c) => [c.link] },
	{ name: 'bash reads a file outside', prog: 'bash', layer: 'kernel', kind: 'read', says: /Permission denied/,
	    argv: (c) => ['-c', 'read -r x < "$1"; echo "$x"', 'bash', c.secret] },
	// No control: a call makes no hard link at all, inside W either.
	{ name: 'ln: a hard link of a file outside, into the working directory', prog: 'ln', layer: 'kernel',
	    kind: 'link', says: /Invalid cross-device link|Permission denied|Operation not permitted/, control: false,
	    argv: (c) => [c.secret, c.hard] },

	// Another process: the server.
	{ name: 'strace -p the server', prog: 'strace', layer: 'kernel', kind: 'attach', control: false,
	    attached: /Process \d+ attached/, says: /Operation not permitted|Permission denied|No such process/,
	    argv: (c) => ['-p', String(c.serverPid), '-e', 'trace=none'] },
];

/* The world of one row: its marker, payload and files. */
async function rowWorld(row, control) {
	const n = ++nMarks;
	const c = { W };
	c.marker = path.join(W, `m-${n}`);
	c.pay = `echo SHELL-$((6*7))-RAN; echo x > ${c.marker}`;
	c.out = path.join(control ? W : O, `out-${n}`);
	// A victim of -delete: in R (read-only), or in W for the control.
	const vdir = control ? W : R.p('victims');
	c.victim = path.join(vdir, `victim-${n}`);
	await fsp.writeFile(c.victim, 'v\n');
	if (control)
		own(c.victim);
	// What a read must not reach: a token in O (in W for the control),
	// the server's user's own, and a symbolic link to it from W.
	c.token = `TOKEN-${randomUUID()}`;
	c.secret = path.join(control ? W : O, `secret-${n}`);
	await fsp.writeFile(c.secret, `${c.token}\n`, { mode: 0o600 });
	own(c.secret);
	c.link = path.join(W, `link-${n}`);
	await fsp.symlink(c.secret, c.link);
	// Where a hard link of the secret would appear.
	c.hard = path.join(W, `hard-${n}`);
	c.cwd = W;
	if (row.tarball) {
		c.tarball = path.join(W, `t-${n}.tar`);
		execFileSync('tar', ['-cf', c.tarball, '-C', R.root, 'f.txt']);
		own(c.tarball);
	}
	if (row.repo) {
		c.repo = row.deep ? path.join(W, `deep-${n}`, `repo-${n}`) : path.join(W, `repo-${n}`);
		execFileSync('git', ['init', '-q', c.repo], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: W } });
		if (row.config)
			await fsp.appendFile(path.join(c.repo, '.git', 'config'), row.config(c));
		if (row.hook) {
			const hook = path.join(c.repo, '.git', 'hooks', 'pre-commit');
			await fsp.writeFile(hook, `#!/bin/sh\n${c.pay}\n`, { mode: 0o755 });
		}
		own(row.deep ? path.dirname(c.repo) : c.repo);
		if (row.written)
			c.before = readFileSync(row.written(c), 'utf8');
		if (row.cwdRepo)
			c.cwd = c.repo;
	}
	// f.txt beside the call, for the programs that read or archive it.
	await fsp.copyFile(R.p('f.txt'), path.join(c.cwd, 'f.txt')).catch(() => {});
	own(path.join(c.cwd, 'f.txt'));
	return c;
}

/* Whether the row's escape happened, by what is on disk and in |r|. */
function escaped(row, c, r) {
	switch (row.kind) {
	case 'exec':
		return existsSync(c.marker) || said(r).includes(RAN);
	case 'write':
		return row.written ? readFileSync(row.written(c), 'utf8') !== c.before : existsSync(c.out);
	case 'delete':
		return !existsSync(c.victim);
	case 'read':
		return said(r).includes(c.token);
	case 'link':
		return existsSync(c.hard);
	case 'attach':
		return row.attached.test(said(r));
	}
	throw new Error(`row ${row.name}: kind ${row.kind}`);
}

/* The arguments of run_command for |row| in world |c|. */
function rowArgs(row, c) {
	const a = { argv: [row.prog, ...row.argv(c)], cwd: c.cwd, timeout_ms: 20_000 };
	if (row.stdin)
		a.stdin = row.stdin(c);
	if (row.env)
		a.env = row.env(c);
	return a;
}

describe('argument injection: the rules refuse, or the kernel stops', () => {
	const installed = Object.keys(PROGRAMS).filter((p) => which(p) !== null);
	const sh = which('sh');
	let strict;
	let bare;
	let control;

	before(async () => {
		if (!existsSync(SHELL))
			return;
		const envs = ['program echo', 'env TOOLCELL_PAYLOAD'];
		const progs = (withRules) => installed.flatMap((p) => [`program ${p}`, ...(withRules ? PROGRAMS[p] : [])]);
		strict = await startShell(await shellPolicy([...progs(true), ...envs]));
		bare = await startShell(await shellPolicy([...progs(false), ...envs]));
		if (sh !== null && !installed.includes('sh'))
			control = await startShell(await shellPolicy([...progs(false), 'program sh', ...envs]));
	});

	after(async () => {
		for (const s of [strict, bare, control])
			await s?.close().catch(() => {});
	});

	for (const row of CASES) {
		test(`${row.layer}: ${row.name}`, async (t) => {
			if (cannotRun(t, [row.prog]))
				return;
			const srv = row.layer === 'rules' || row.layer === 'prefix' ? strict : bare;
			const c = await rowWorld(row, false);
			c.serverPid = srv.pid;
			const r = await run(srv, null, rowArgs(row, c), 30_000);
			const { call: rec, result } = await lastCallRecords(srv);
			assert.equal(escaped(row, c, r), false, `ESCAPED: ${row.name}: ${said(r)}`);
			if (row.layer === 'rules') {
				assert.equal(r.isError, true, `the rules let it run: ${said(r)}`);
				assert.match(textOf(r), row.rule, 'the refusal names the argument');
				assert.equal(rec.decision, 'denied', JSON.stringify(rec));
				assert.equal(rec.by, 'policy', JSON.stringify(rec));
				assert.equal(result, undefined, 'a refused call was forked');
			} else {
				assert.equal(rec.decision, 'run', `refused before it ran: ${textOf(r)}`);
				assert.ok(result, 'no result record');
				const o = res(r);
				if (row.says)
					assert.match(row.on === 'stdout' ? o.stdout : o.stderr, row.says,
					    `the attempt was not made and refused: ${said(r)}`);
				if (row.exitNot0)
					assert.notEqual(o.exit, 0, `the program did not refuse: ${said(r)}`);
				if (row.calm)
					assert.doesNotMatch(o.stderr, /Permission denied/, 'the forced prefix did not keep the program from trying');
			}
			await assertServes(srv, row.name);
		});

		if (row.layer !== 'kernel' || row.control === false)
			continue;
		test(`control: ${row.name} escapes where the policy also allows sh`, async (t) => {
			if (cannotRun(t, [row.prog, 'sh']))
				return;
			const c = await rowWorld(row, true);
			const r = await run(control, null, rowArgs(row, c), 30_000);
			assert.equal(escaped(row, c, r), true,
			    `the payload did nothing even where sh may run, so its row proves nothing: ${said(r)}`);
		});
	}
});

// ---------------------------------------------------------------- on a terminal

/*
 * less's '!' and git's pager run commands only on a terminal: through a
 * job on a pseudo-terminal of its own, where start_command offers one.
 * Each row has its control (sh allowed, the marker appears).
 */
describe('programs that take commands from a terminal', () => {
	const rows = [
		{ name: 'less, then !sh', prog: 'less', argv: () => ['f.txt'], ready: /\(END\)/,
		    input: (c) => [`!sh -c '${c.pay}'\n`, 'q'] },
		{ name: 'git -p log, core.pager=sh', prog: 'git', repo: true, cwdRepo: true,
		    argv: (c) => ['-c', `core.pager=sh -c '${c.pay}'`, '-p', 'log'], input: () => [] },
		{ name: 'vim, then :!sh', prog: 'vim', argv: () => ['-N', '-u', 'NONE', '-i', 'NONE', '-n', 'f.txt'],
		    ready: /f\.txt/, input: (c) => [`:!sh -c '${c.pay}'\r`, '\r', ':qa!\r'] },
	];
	let bare;
	let control;
	let ptyArg;

	before(async () => {
		if (!existsSync(SHELL))
			return;
		const progs = ['less', 'git', 'vim'].filter((p) => which(p) !== null).map((p) => `program ${p}`);
		bare = await startShell(await shellPolicy([...progs, 'program echo']));
		const start = (await bare.client.listTools()).tools.find((x) => x.name === 'start_command');
		ptyArg = ['pty', 'tty', 'terminal'].find((k) => start?.inputSchema?.properties?.[k]);
		if (which('sh') !== null)
			control = await startShell(await shellPolicy([...progs, 'program echo', 'program sh']));
	});

	after(async () => {
		await bare?.close().catch(() => {});
		await control?.close().catch(() => {});
	});

	/* Runs |row| as a job on a terminal of |srv|'s; returns its output. */
	async function onTerminal(srv, row, c) {
		const s = await call(srv, 'start_command', { argv: [row.prog, ...row.argv(c)], cwd: c.cwd, [ptyArg]: true });
		assert.notEqual(s.isError, true, textOf(s));
		const job = s.structuredContent.job;
		let text = '';
		let next = 0;
		const read = async (ms) => {
			const o = await call(srv, 'read_output', { job, offset: next, wait_ms: ms });
			text += o.structuredContent.output;
			next = o.structuredContent.next_offset;
			return o.structuredContent.state;
		};
		// Input only once the program shows it is ready for it (its
		// screen drawn): a program that sets its terminal's modes with
		// TCSAFLUSH drops what was typed before, and on a busy machine
		// its start may take longer than any fixed wait.
		const until = Date.now() + 20_000;
		let state = await read(2000);
		while (row.ready && !row.ready.test(text) && state === 'running' && Date.now() < until)
			state = await read(1000);
		if (row.ready)
			assert.match(text, row.ready, `${row.prog} did not show it was ready: ${text}`);
		for (const data of row.input(c)) {
			await call(srv, 'write_input', { job, data });
			await read(1000);
		}
		if (await read(1000) === 'running')
			await call(srv, 'stop_command', { job });
		return text;
	}

	for (const row of rows) {
		test(`kernel: ${row.name}`, async (t) => {
			if (cannotRun(t, [row.prog]))
				return;
			if (!ptyArg)
				return skipOrFail(t, 'start_command offers no pseudo-terminal');
			const c = await rowWorld(row, false);
			const text = await onTerminal(bare, row, c);
			assert.equal(escaped({ kind: 'exec' }, c, text), false, `ESCAPED: ${row.name}: ${text}`);
		});

		test(`control: ${row.name} escapes where the policy also allows sh`, async (t) => {
			if (cannotRun(t, [row.prog, 'sh']))
				return;
			if (!ptyArg)
				return skipOrFail(t, 'start_command offers no pseudo-terminal');
			const c = await rowWorld(row, true);
			const text = await onTerminal(control, row, c);
			assert.equal(escaped({ kind: 'exec' }, c, text), true, `the payload did nothing: ${text}`);
		});
	}
});

// ---------------------------------------------------------------- environment

describe('environment canaries', () => {
	const secret = `TOOLCELL-SECRET-${randomUUID()}`;
	const need = ['env', 'cat', 'bash'];
	let S;
	let bashEnvMarker;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		bashEnvMarker = path.join(W, `bash-env-${randomUUID()}`);
		const script = path.join(R.root, 'bash-env.sh');
		await fsp.writeFile(script, `echo x > ${bashEnvMarker}\necho BASH_ENV-RAN\n`);
		await fsp.chmod(script, 0o644);
		// /proc readable: only what is not Landlock may keep the
		// environment of another process from a call.
		const pol = await shellPolicy([...need.map((p) => `program ${p}`), 'program echo', 'allow read /proc',
		    'env TOOLCELL_PASSED']);
		// The server's own environment: a secret, and what would hijack a
		// program if it were passed on (a preload that does not exist
		// makes every dynamic program complain on stderr).
		S = await startShell(pol, {
			env: {
				...process.env,
				TOOLCELL_TEST_SECRET: secret,
				LD_PRELOAD: `/nonexistent/${secret}.so`,
				BASH_ENV: script,
				ENV: script,
				GIT_CONFIG_PARAMETERS: `'alias.x=!echo ${secret}'`,
			},
		});
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	test('env shows the names a call passes, and nothing of the server\'s', async (t) => {
		if (cannotRun(t, need))
			return;
		const r = await run(S, ['env'], { env: { TOOLCELL_PASSED: 'yes' }, cwd: W });
		const o = res(r);
		assert.match(o.stdout, /^TOOLCELL_PASSED=yes$/m, 'the control: a name the policy allows is passed');
		assert.match(o.stdout, /^PATH=/m);
		for (const name of ['TOOLCELL_TEST_SECRET', 'LD_PRELOAD', 'BASH_ENV', 'ENV', 'GIT_CONFIG_PARAMETERS'])
			assert.doesNotMatch(o.stdout, new RegExp(`^${name}=`, 'm'), `${name} reached the program`);
		assert.ok(!said(r).includes(secret), 'the secret reached the program');
	});

	test('cat /proc/self/environ: the passed name is there, the secret is not', async (t) => {
		if (cannotRun(t, need))
			return;
		const r = await run(S, ['cat', '/proc/self/environ'], { env: { TOOLCELL_PASSED: 'yes' }, cwd: W });
		const o = res(r);
		assert.ok(!said(r).includes(secret), 'the secret reached the program');
		assert.match(o.stdout, /TOOLCELL_PASSED=yes/, `the control: ${said(r)}`);
	});

	test('/proc/$PPID/environ, /proc/1/environ, the server\'s and every other: no secret', async (t) => {
		if (cannotRun(t, need))
			return;
		const script = [
			'for p in "$PPID" 1 "$0"; do',
			'  echo "== $p"; cat "/proc/$p/environ" 2>&1; echo',
			'done',
			'for f in /proc/[0-9]*/environ; do cat "$f" 2>/dev/null; done; echo done',
		].join('\n');
		const r = await run(S, ['bash', '-c', script, String(S.pid)], { cwd: W, timeout_ms: 20_000 }, 30_000);
		const o = res(r);
		assert.match(o.stdout, /done/, `the script did not run: ${said(r)}`);
		assert.ok(!said(r).includes(secret), `the secret was read: ${o.stdout.slice(0, 4000)}`);
	});

	test('BASH_ENV and ENV in the server\'s environment do not reach bash', async (t) => {
		if (cannotRun(t, need))
			return;
		const r = await run(S, ['bash', '-c', 'echo ok'], { cwd: W });
		assert.equal(res(r).stdout, 'ok\n', said(r));
		assert.equal(existsSync(bashEnvMarker), false, 'BASH_ENV ran');
		assert.doesNotMatch(said(r), /BASH_ENV-RAN|cannot be preloaded/, said(r));
	});

	test('bash -c reads no startup file: its stderr is empty', async (t) => {
		if (cannotRun(t, need))
			return;
		// bash sources the system's and HOME's bashrc when it believes
		// its stdin is a network connection: when getpeername(0) fails
		// with anything but ENOTSOCK or EINVAL (bash's isnetconn()).
		const r = await run(S, ['bash', '-c', 'echo ok'], { cwd: W });
		assert.equal(res(r).stdout, 'ok\n', said(r));
		assert.equal(res(r).stderr, '', `bash read a startup file: ${said(r)}`);
	});

	test('LD_PRELOAD, a name the policy does not list, is refused before a fork', async (t) => {
		if (cannotRun(t, need))
			return;
		const r = await run(S, ['env'], { env: { LD_PRELOAD: '/nonexistent/x.so' }, cwd: W });
		assert.equal(r.isError, true, `LD_PRELOAD was accepted: ${said(r)}`);
		assert.match(textOf(r), /LD_PRELOAD/);
		const { call: rec, result } = await lastCallRecords(S);
		assert.equal(rec.decision, 'denied');
		assert.equal(result, undefined, 'a refused call was forked');
	});

	for (const line of ['env LD_PRELOAD', 'env LD_LIBRARY_PATH', 'env LD_AUDIT', 'env BASH_ENV', 'env ENV',
	    'env GIT_CONFIG_PARAMETERS', 'env GIT_SSH_COMMAND', 'env LESSOPEN', 'env PAGER', 'env PERL5OPT',
	    'env L*', 'env PATH', 'env HOME', 'env-set LD_PRELOAD=/nonexistent/x.so']) {
		test(`a policy with '${line}' is refused, or the name never reaches a program`, async (t) => {
			if (cannotRun(t, ['env']))
				return;
			const name = line.split(' ')[1].split('=')[0];
			const pol = await shellPolicy(['program env', line], { audit: false });
			const chk = await runServer(['--policy', pol.file, '--check'], SHELL);
			if (chk.status !== 0) {
				assert.ok(chk.stderr.includes(name), `the refusal does not name ${name}: ${chk.stderr}`);
				return;
			}
			const P = await startShell(pol);
			try {
				const r = await run(P, ['env'], line.startsWith('env-set') ? { cwd: W }
				    : { env: { [name]: '/nonexistent/x.so' }, cwd: W });
				if (r.isError !== true)
					assert.ok(!res(r).stdout.split('\n').some((l) => l.startsWith(`${name}=`)),
					    `${name} reached the program`);
			} finally {
				await P.close().catch(() => {});
			}
		});
	}

	test('the secret appears nowhere in what the server sent', async (t) => {
		if (cannotRun(t, need))
			return;
		assert.ok(!transcript(S).includes(secret));
	});
});

// ---------------------------------------------------------------- around a call

describe('what a call can reach around it', () => {
	const need = ['bash', 'ls', 'sleep'];
	let S;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		S = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'program echo',
		    'allow read /proc']));
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	test('kill -9 $PPID and kill -9 -1: the server and a process of its user live on', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = sleepTag();
		const as = runAs();
		const argv = ['sleep', tag];
		const cmd = as ? ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', ...argv] : argv;
		const sentinel = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore' });
		try {
			assert.equal((await waitCount(() => sleepers([tag]), 1, 5000)).length, 1, 'the sentinel never showed');
			await run(S, ['bash', '-c', 'kill -9 "$PPID"; kill -9 -1; echo done'], { cwd: W });
			await assertServes(S, 'after kill -9 $PPID and -1');
			assert.equal(sentinel.exitCode, null, 'the sentinel was killed');
			assert.equal(sentinel.signalCode, null, 'the sentinel was killed');
			assert.equal(sleepers([tag]).length, 1, 'the sentinel is gone');
		} finally {
			sentinel.kill('SIGKILL');
		}
	});

	test('a program finds only fds 0, 1 and 2 open', async (t) => {
		if (cannotRun(t, need))
			return;
		const r = await run(S, ['ls', '/proc/self/fd'], { cwd: W });
		const o = res(r);
		assert.equal(o.exit, 0, said(r));
		// 3: the directory ls reads.
		const fds = o.stdout.split('\n').filter(Boolean);
		assert.deepEqual(fds.filter((f) => !['0', '1', '2', '3'].includes(f)), [], `inherited: ${o.stdout}`);
	});

	/*
	 * The program is started by a clone that shares the handler's memory
	 * until it runs exec (shell_run.c: spawn_program()): what it holds then
	 * is what the handler had, and must be the call's confinement and no
	 * more.  Read by head from its own /proc/self, for run_command and for
	 * jobs with and without a terminal.
	 */
	test('a program starts confined, with no signal blocked or ignored and fds 0-2 only, in calls and jobs', async (t) => {
		if (cannotRun(t, ['head', 'ls']))
			return;
		const P = await startShell(await shellPolicy(['program head', 'program ls', 'allow read /proc']));
		try {
			const job = async (argv, tty) => {
				const s = await call(P, 'start_command', { argv, cwd: W, ...(tty ? { tty: true } : {}) });
				assert.notEqual(s.isError, true, textOf(s));
				let out = '';
				let offset = 0;
				await until(async () => {
					const r = await call(P, 'read_output', { job: s.structuredContent.job, offset, wait_ms: 1000 });
					out += r.structuredContent.output;
					offset = r.structuredContent.next_offset;
					return r.structuredContent.state !== 'running';
				}, 20_000, 'the job to end');
				return out.replace(/\r\n/g, '\n');
			};
			const ways = [
				['run_command', async (argv) => res(await run(P, argv, { cwd: W })).stdout],
				['start_command', (argv) => job(argv, false)],
				['start_command on a terminal', (argv) => job(argv, true)],
			];
			for (const [way, runIt] of ways) {
				const status = await runIt(['head', '-n', '100', '/proc/self/status']);
				const field = (f) => new RegExp(`^${f}:\\s*(.*)$`, 'm').exec(status)?.[1];
				assert.equal(field('NoNewPrivs'), '1', `${way}: ${status}`);
				assert.equal(field('Seccomp'), '2', `${way}: ${status}`);
				for (const f of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'SigBlk', 'SigIgn'])
					assert.equal(field(f), '0000000000000000', `${way}: ${f}: ${status}`);
				// 3: the directory ls reads.
				const fds = (await runIt(['ls', '-1', '/proc/self/fd'])).split('\n').filter(Boolean);
				assert.deepEqual(fds.filter((f) => !['0', '1', '2', '3'].includes(f)), [], `${way}: inherited: ${fds}`);
			}
		} finally {
			await P.close().catch(() => {});
		}
	});

	for (const [what, cwd] of [
		['outside every directory', () => O],
		['a .. out of an allowed one', () => `${W}/../${path.basename(O)}`],
		['the root', () => '/'],
		['a symbolic link in an allowed one to outside', async () => {
			const l = path.join(W, `dlink-${++nMarks}`);
			await fsp.symlink(O, l);
			return l;
		}],
	]) {
		test(`a working directory ${what} is refused`, async (t) => {
			if (cannotRun(t, need))
				return;
			const dir = await cwd();
			const r = await run(S, ['ls', '-d', '.'], { cwd: dir });
			assert.equal(r.isError, true, `it ran: ${said(r)}`);
			assert.ok(textOf(r).includes(dir), `the refusal does not name the directory: ${textOf(r)}`);
			assert.equal(r.structuredContent?.stdout, undefined, `ls ran: ${said(r)}`);
		});
	}

	test('a set-uid-root program gains nothing', async (t) => {
		if (cannotRun(t, ['id']))
			return;
		if (serverUid() === 0)
			return t.skip('the server runs as root: a set-uid-root program has nothing to give it');
		const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-suid-'));
		try {
			await fsp.chmod(dir, 0o755);
			const id = path.join(dir, 'id');
			await fsp.copyFile(which('id'), id);
			await fsp.chmod(id, 0o4755);
			const pol = await shellPolicy([`program ${id}`, 'program echo']);
			const chk = await runServer(['--policy', pol.file, '--check'], SHELL);
			if (chk.status !== 0) {
				// Refusing the program is as good.
				assert.match(chk.stderr, /set-?[ug]id|setuid/i, chk.stderr);
				return;
			}
			const P = await startShell(pol);
			try {
				const r = await run(P, [id, '-u'], { cwd: W });
				assert.equal(res(r).stdout, `${serverUid()}\n`, `the program ran as another user: ${said(r)}`);
			} finally {
				await P.close().catch(() => {});
			}
		} finally {
			await fsp.rm(dir, { recursive: true, force: true });
		}
	});

	test('a program beneath a writable directory is refused at start', async (t) => {
		if (cannotRun(t, ['true']))
			return;
		const tool = path.join(W, `tool-${++nMarks}`);
		await fsp.copyFile(which('true'), tool);
		await fsp.chmod(tool, 0o755);
		const pol = await shellPolicy([`program ${tool}`], { audit: false });
		const chk = await runServer(['--policy', pol.file, '--check'], SHELL);
		assert.notEqual(chk.status, 0, `a program a call could replace was accepted: ${chk.stdout}`);
		assert.ok(chk.stderr.includes(tool), chk.stderr);
	});
});

// ---------------------------------------------------------------- network

describe('network off', () => {
	let S;
	let tcp;
	let udp;
	let accepted = 0;
	let datagrams = 0;

	before(async () => {
		if (!existsSync(SHELL))
			return;
		tcp = net.createServer((s) => {
			accepted++;
			s.destroy();
		});
		await new Promise((resolve) => tcp.listen(0, '127.0.0.1', resolve));
		udp = dgram.createSocket('udp4');
		udp.on('message', () => { datagrams++; });
		await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
		const progs = ['bash', 'python3'].filter((p) => which(p) !== null).map((p) => `program ${p}`);
		S = await startShell(await shellPolicy([...progs, 'program echo', 'network off']));
	});

	after(async () => {
		await S?.close().catch(() => {});
		tcp?.close();
		udp?.close();
	});

	test('bash /dev/tcp to a listener on 127.0.0.1 fails', async (t) => {
		if (cannotRun(t, ['bash']))
			return;
		const port = tcp.address().port;
		const r = await run(S, ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED-$((6*7))`],
		    { cwd: W });
		const o = res(r);
		assert.doesNotMatch(o.stdout, /CONNECTED-42/, `connected: ${said(r)}`);
		assert.notEqual(o.exit, 0, said(r));
		assert.match(o.stderr, /unreachable|refused|not permitted|denied/i, said(r));
		assert.equal(accepted, 0, 'the listener accepted a connection');
	});

	test('python3: a TCP connect and a UDP datagram to 127.0.0.1 fail', async (t) => {
		if (cannotRun(t, ['python3']))
			return;
		const script = [
			'import socket',
			'try:',
			`    socket.create_connection(("127.0.0.1", ${tcp.address().port}), 5)`,
			'    print("CONNECTED-" + str(6 * 7))',
			'except OSError as e:',
			'    print("tcp", e.errno, e)',
			'try:',
			'    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
			`    s.sendto(b"x", ("127.0.0.1", ${udp.address().port}))`,
			'    print("SENT-" + str(6 * 7))',
			'except OSError as e:',
			'    print("udp", e.errno, e)',
		].join('\n');
		const r = await run(S, ['python3', '-I', '-c', script], { cwd: W });
		const o = res(r);
		assert.match(o.stdout, /^tcp \d+/m, said(r));
		assert.doesNotMatch(o.stdout, /CONNECTED-42|SENT-42/, said(r));
		// A datagram sent would be here by the time the next call
		// answers: one round trip through the server and a fork.
		await assertServes(S, 'after the network attempts');
		assert.equal(accepted, 0, 'the listener accepted a connection');
		assert.equal(datagrams, 0, 'a datagram arrived');
	});

	/*
	 * A server's calls share one empty network namespace
	 * (sandbox-int.h: tc_netns_share(); a server that is not root makes
	 * it in a user namespace of its own, which the process that clones
	 * the calls' children enters: the spawner, or each call's keeper).  A job tries to leave something
	 * there for the calls after it (a TCP listener on 127.0.0.1, an
	 * abstract Unix socket, a socket of a pair bound to an abstract
	 * name) and holds on; another call beside it tries to reach them.
	 * Every attempt fails at the system call (seccomp: no socket() and no
	 * bind(), listen() or connect() without a network), and from outside
	 * the namespace holds nothing but a loopback that is down.
	 */
	test('calls that share the empty network namespace can leave nothing there for each other', async (t) => {
		if (cannotRun(t, ['python3']))
			return;
		const tag = sleepTag();
		const name = `tc-shared-${randomUUID()}`;
		const port = 20000 + (randomBytes(2).readUInt16BE(0) % 20000);
		const attempt = (what, code) => [
			'try:',
			...code.map((l) => `    ${l}`),
			`    print("${what} OPEN-" + str(6 * 7), flush=True)`,
			'except OSError as e:',
			`    print("${what}", e.errno, e, flush=True)`,
		];
		const listener = [
			'import socket, sys, time',
			...attempt('tcp-listen', [
				's = socket.socket(socket.AF_INET, socket.SOCK_STREAM)',
				`s.bind(("127.0.0.1", ${port}))`, 's.listen(1)']),
			...attempt('unix-listen', [
				'u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
				`u.bind("\\0${name}")`, 'u.listen(1)']),
			...attempt('pair-bind', [
				'a, b = socket.socketpair()', `a.bind("\\0${name}-pair")`, 'a.listen(1)']),
			'print("READY", flush=True)',
			'time.sleep(float(sys.argv[1]))',
		].join('\n');
		const dialer = [
			'import socket',
			...attempt('tcp-connect', [`socket.create_connection(("127.0.0.1", ${port}), 5)`]),
			...attempt('unix-connect', [
				'u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)', `u.connect("\\0${name}")`]),
			...attempt('pair-connect', [
				'a, b = socket.socketpair()', `a.connect("\\0${name}-pair")`]),
		].join('\n');
		const s = await call(S, 'start_command', { argv: ['python3', '-I', '-c', listener, tag], cwd: W });
		assert.notEqual(s.isError, true, textOf(s));
		const job = s.structuredContent.job;
		try {
			let out = '';
			let offset = 0;
			await until(async () => {
				const r = await call(S, 'read_output', { job, offset, wait_ms: 1000 });
				out += r.structuredContent.output;
				offset = r.structuredContent.next_offset;
				return out.includes('READY') || r.structuredContent.state !== 'running';
			}, 20_000, 'the listening job to say READY');
			assert.match(out, /READY/, out);
			assert.doesNotMatch(out, /OPEN-42/, `the job left something open: ${out}`);
			for (const what of ['tcp-listen', 'unix-listen', 'pair-bind'])
				assert.match(out, new RegExp(`^${what} 1 `, 'm'), `${what} was not refused with EPERM: ${out}`);

			const r = await run(S, ['python3', '-I', '-c', dialer], { cwd: W });
			const o = res(r);
			assert.doesNotMatch(o.stdout, /OPEN-42/, `a call reached the job: ${said(r)}`);
			for (const what of ['tcp-connect', 'unix-connect', 'pair-connect'])
				assert.match(o.stdout, new RegExp(`^${what} 1 `, 'm'), `${what} was not refused with EPERM: ${said(r)}`);

			// From outside: the job's program is in a network namespace
			// that is not the server's, the one a second job is in too
			// (the shared one), and it holds a loopback that is down and
			// no socket with a name.
			const [pid] = processesWithArg(tag);
			assert.ok(pid, 'the job\'s program was not found');
			const ns = (p) => execFileSync('readlink', [`/proc/${p}/ns/net`], { encoding: 'utf8' }).trim();
			// The server's is this test's own (it makes none for itself),
			// read here: the server is not dumpable, so a test that is not
			// root may not read its /proc entry.
			assert.notEqual(ns(pid), ns('self'), 'the job is in the server\'s network namespace');
			const tag2 = sleepTag();
			const s2 = await call(S, 'start_command', { argv: ['python3', '-I', '-c',
			    'import sys, time; print("UP", flush=True); time.sleep(float(sys.argv[1]))', tag2], cwd: W });
			const job2 = s2.structuredContent.job;
			try {
				const [pid2] = await waitCount(() => processesWithArg(tag2), 1, 10_000);
				assert.ok(pid2, 'the second job\'s program was not found');
				assert.equal(ns(pid2), ns(pid), 'two jobs are in network namespaces of their own');
			} finally {
				await call(S, 'stop_command', { job: job2 });
			}
			if (process.getuid() !== 0)
				return t.diagnostic('the tests are not run as root: nsenter cannot look inside the namespace');
			if (which('nsenter') === null || which('ip') === null)
				return t.diagnostic('no nsenter or ip here: the namespace\'s links are not looked at');
			const links = execFileSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'ip', '-o', 'link'],
			    { encoding: 'utf8' }).trim().split('\n');
			assert.equal(links.length, 1, `more than a loopback: ${links.join('\n')}`);
			assert.match(links[0], /^1: lo: <LOOPBACK>/, `the loopback is up: ${links[0]}`);
			const unix = readFileSync(`/proc/${pid}/net/unix`, 'utf8');
			assert.doesNotMatch(unix, /@/, `an abstract socket is there: ${unix}`);
			const tcp4 = readFileSync(`/proc/${pid}/net/tcp`, 'utf8').trim().split('\n');
			assert.equal(tcp4.length, 1, `a TCP socket is there: ${tcp4.join('\n')}`);
		} finally {
			await call(S, 'stop_command', { job });
		}
	});
});

// ---------------------------------------------------------------- scratch directories

/*
 * Each call's scratch directory (its HOME) is made beneath the server's
 * scratch base; once its program has ended the call empties it and moves
 * it into "spent", where the server's sweeper removes it (shell_scratch.c).
 * Processes a call left behind may still write in it until the call ends,
 * so what arrives in spent may not be empty: no later call may list spent
 * (or find what is there), nor put a directory of its own in its place,
 * into which later calls' directories would go.
 */
describe('scratch directories', () => {
	const need = ['bash', 'ls', 'mv', 'mkdir'];
	let S;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		S = await startShell(await shellPolicy(need.map((p) => `program ${p}`)));
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	/* The HOME of a call of |srv|. */
	async function home(srv) {
		const r = await run(srv, ['bash', '-c', 'echo "$HOME"']);
		return res(r).stdout.trim();
	}

	/* Where a scratch directory |dir| could be once spent: "spent" beside
	 * it, or beside its parent. */
	const spentPlaces = (dir) => [path.dirname(dir), path.dirname(path.dirname(dir))]
	    .map((p) => path.join(p, 'spent', path.basename(dir)));

	test('no call can list spent, nor read there what an earlier call\'s processes left in its home', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = randomUUID();
		// Processes that leave the program's group (job control) and write
		// in its home until the call ends, after the home was emptied.
		for (let i = 0; i < 3; i++)
			await run(S, ['bash', '-c', 'set -m; (cd "$HOME" && i=0 && while :; do '
			    + `echo "left-${tag}" > "f$((i++ % 50))"; done) </dev/null >/dev/null 2>&1 & exit 0`]);
		const r = await run(S, ['bash', '-c', 'for d in "$HOME/.." "$HOME/../.."; do '
		    + 'ls -a "$d/spent" && echo "LISTED $d"; for f in "$d"/spent/*/f*; do read -r l < "$f" && echo "$l"; done; '
		    + 'done 2>/dev/null; true']);
		const o = res(r);
		assert.doesNotMatch(o.stdout, new RegExp(`left-${tag}`), `a later call read what an earlier one left: ${said(r)}`);
		assert.doesNotMatch(o.stdout, /LISTED/, `a call listed spent: ${said(r)}`);
	});

	test('no call can put a directory of its own in the place of spent; later calls\' homes are still removed', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = randomUUID();
		const r = await run(S, ['bash', '-c', 'cd "$HOME/.." && for s in spent ../spent; do '
		    + `mv "$s" "$s-${tag}" && mkdir "$s" && echo "REPLACED $s"; done; true`]);
		assert.doesNotMatch(res(r).stdout, /REPLACED/, `a call replaced spent: ${said(r)}`);
		// The homes of the calls after it are removed from wherever they
		// were moved: by the sweeper, waited for, not timed.
		const homes = [await home(S), await home(S), await home(S)];
		const left = () => homes.flatMap((h) => [h, ...spentPlaces(h),
		    ...spentPlaces(h).map((p) => path.join(`${path.dirname(p)}-${tag}`, path.basename(p)))])
		    .filter((p) => existsSync(p));
		assert.deepEqual(await waitEmpty(left, 10_000), [], 'later calls\' homes were not removed');
	});

	/*
	 * A ready child makes its call's home before the call comes (the
	 * profile's ahead hook), and is retired without a call whenever the
	 * client's roots change: its home must not stay behind.  Two ready
	 * children of each profile at most ("children 2"), so that calls
	 * holds four homes at most between calls, however often the roots
	 * change.
	 */
	test('the homes of ready children retired without a call do not pile up (the client changing its roots)', async (t) => {
		if (cannotRun(t, need))
			return;
		const pol = await shellPolicy([...need.map((p) => `program ${p}`), 'children 2']);
		const P = await startServer(['--policy', pol.file], {
			server: SHELL, capabilities: { roots: { listChanged: true } },
			handlers: [[ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(W) }] })]],
		});
		try {
			const calls = path.dirname(await home(P));
			const count = () => readdirOwned(calls).length;
			for (let i = 0; i < 10; i++) {
				await P.client.sendRootsListChanged();
				// Answered once no call runs: the next call comes after it.
				await home(P);
			}
			let n = count();
			await until(async () => {
				await home(P);
				n = count();
				return n <= 4;
			}, 10_000, 'calls to hold no more than the ready children\'s homes').catch(() => {});
			assert.ok(n <= 4, `${n} homes in ${calls} after ten changes of the roots, with four ready children at most: `
			    + readdirOwned(calls).join(' '));
		} finally {
			await P.close().catch(() => {});
		}
	});

	test('with run-as, the sweeper is the calls\' user and sweeps their homes', async (t) => {
		if (cannotRun(t, need))
			return;
		if (serverUid() !== 0)
			return t.skip('only a root server may name a run-as user');
		const P = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'run-as nobody'], { dirs: false }));
		try {
			const homes = [await home(P), await home(P), await home(P)];
			const base = path.dirname(path.dirname(homes[0]));
			for (const d of ['calls', 'spent'])
				assert.equal(statSync(path.join(base, d)).uid, 65534, `${d}'s owner`);
			const kids = readFileSync(`/proc/${P.pid}/task/${P.pid}/children`, 'utf8').trim().split(/\s+/);
			const uids = kids.map((k) => {
				try {
					const st = readFileSync(`/proc/${k}/status`, 'utf8');
					return execFileSync('readlink', [`/proc/${k}/fd/4`], { encoding: 'utf8' }).trim() === 'anon_inode:inotify'
					    ? /^Uid:\s*(.*)$/m.exec(st)[1] : null;
				} catch {
					return null;
				}
			}).filter(Boolean);
			assert.deepEqual(uids, ['65534\t65534\t65534\t65534'], 'the sweeper\'s ids');
			const left = () => homes.flatMap((h) => [h, ...spentPlaces(h)]).filter((p) => existsSync(p));
			assert.deepEqual(await waitEmpty(left, 10_000), [], 'the homes were not removed');
		} finally {
			await P.close().catch(() => {});
		}
	});

	/*
	 * The server removes the base as it exits, while children it retired
	 * may still be dying, and a ready child still making its call's home:
	 * nothing may stay.  Servers that change their roots just before they
	 * go, so that their ready children are being made again as they exit.
	 */
	test('the base goes with a server that exits while its ready children are being made', async (t) => {
		if (cannotRun(t, need))
			return;
		const pol = await shellPolicy([...need.map((p) => `program ${p}`), 'children 8']);
		const bases = [];
		for (let i = 0; i < 8; i++) {
			const P = await startServer(['--policy', pol.file], {
				server: SHELL, capabilities: { roots: { listChanged: true } },
				handlers: [[ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(W) }] })]],
			});
			try {
				bases.push(path.dirname(path.dirname(await home(P))));
				await P.client.sendRootsListChanged();
				await home(P);
				await P.client.sendRootsListChanged();
			} finally {
				await P.close().catch(() => {});
			}
		}
		// Where it is, or where it may have been moved to go.
		const left = () => bases.flatMap((b) => readdirSync(path.dirname(b))
		    .filter((n) => n === path.basename(b) || n.startsWith(`${path.basename(b)}.`))
		    .map((n) => path.join(path.dirname(b), n)));
		const stayed = await waitEmpty(left, 10_000);
		assert.deepEqual(stayed, [], `bases left: ${stayed.map((b) => `${b}: ${execFileSync('ls', ['-laR', b],
		    { encoding: 'utf8' })}`).join('\n')}`);
	});

	test('the base goes with the server, with what calls left in spent', async (t) => {
		if (cannotRun(t, need))
			return;
		const P = await startShell(await shellPolicy(need.map((p) => `program ${p}`)));
		let base;
		try {
			await run(P, ['bash', '-c', 'set -m; (cd "$HOME" && while :; do echo x > f; done) '
			    + '</dev/null >/dev/null 2>&1 & exit 0']);
			base = path.dirname(path.dirname(await home(P)));
			assert.ok(existsSync(path.join(base, 'spent')), `no spent in ${base}`);
			// The sweeper: the server's child that holds spent and an
			// inotify instance, as the calls' user, with no capability
			// and no new privileges.
			const kids = readFileSync(`/proc/${P.pid}/task/${P.pid}/children`, 'utf8').trim().split(/\s+/);
			const link = (k, fd) => {
				try {
					return execFileSync('readlink', [`/proc/${k}/fd/${fd}`], { encoding: 'utf8' }).trim();
				} catch {
					return null;
				}
			};
			const sweepers = kids.filter((k) => link(k, 3) === path.join(base, 'spent')
			    && link(k, 4) === 'anon_inode:inotify');
			assert.equal(sweepers.length, 1, `the sweeper among ${kids.join(' ')}`);
			const status = readFileSync(`/proc/${sweepers[0]}/status`, 'utf8');
			const field = (f) => new RegExp(`^${f}:\\s*(.*)$`, 'm').exec(status)?.[1];
			assert.equal(field('Uid').split(/\s+/)[0], String(serverUid()), status);
			assert.equal(field('CapEff'), '0000000000000000', status);
			assert.equal(field('CapPrm'), '0000000000000000', status);
			assert.equal(field('NoNewPrivs'), '1', status);
		} finally {
			await P.close();
		}
		assert.deepEqual(await waitEmpty(() => (existsSync(base) ? [base] : []), 10_000), [],
		    'the base outlived the server');
	});

	/*
	 * A server killed with SIGKILL cannot remove its base; the next one
	 * to start in the same TMPDIR does, being able to tell (by its name:
	 * PID namespace, pid, start time, boot id) that its server is gone.
	 * Nothing else goes: not a live server's base, nor a directory of such
	 * a name that is another user's, of another mode, or a link.
	 */
	test('a base a killed server left is removed by the next server; a live one\'s, another user\'s, odd ones are not', async (t) => {
		if (cannotRun(t, need))
			return;
		const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-left-'));
		await fsp.chmod(tmp, 0o1777);
		const pol = await shellPolicy(need.map((p) => `program ${p}`));
		const servers = [];
		const begin = async () => {
			const s = await startShell(pol, { env: { TMPDIR: tmp } });
			servers.push(s);
			return s;
		};
		const baseOf = async (s) => path.dirname(path.dirname(await home(s)));
		try {
			const live = await baseOf(await begin());
			const killed = await begin();
			const left = await baseOf(killed);
			assert.match(path.basename(left), /^toolcell-shell\.\d+-\d+-\d+\.[0-9a-f]{32}\.[A-Za-z0-9]{6}$/);
			assert.ok(path.basename(left).includes(`.${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replaceAll('-', '')}.`), 'named for this boot');
			process.kill(killed.pid, 'SIGKILL');
			await killed.exit;
			assert.ok(existsSync(left), 'the killed server\'s base is there until the next server starts');
			// Of the killed server's name, each of a shape a base has not.
			const named = (s) => path.join(tmp, `${path.basename(left).replace(/\.[^.]*$/, '')}.${s}`);
			await fsp.mkdir(named('oddmod'), { mode: 0o700 });
			await fsp.chmod(named('oddmod'), 0o755);
			const target = await fsp.mkdtemp(path.join(tmp, 'target-'));
			await fsp.chmod(target, 0o111);
			await fsp.symlink(target, named('linked'));
			// Another user's: nobody's for a root server, ours (root) for
			// a server that runs as nobody.
			let theirs = null;
			if (process.getuid() === 0) {
				theirs = named('others');
				await fsp.mkdir(theirs, { mode: 0o700 });
				if (serverUid() === 0)
					await fsp.chown(theirs, 65534, 65534);
				await fsp.chmod(theirs, 0o111);
			}
			await baseOf(await begin());
			assert.ok(!existsSync(left), `the killed server's base is still there: ${readdirSync(tmp).join(' ')}`);
			assert.ok(existsSync(live), 'the live server\'s base was removed');
			assert.ok(existsSync(named('oddmod')), 'a directory of another mode was removed');
			assert.ok(existsSync(named('linked')) && existsSync(target), 'a link, or what it names, was removed');
			if (theirs)
				assert.ok(existsSync(theirs), 'another user\'s was removed');
			else
				t.diagnostic('another user\'s: not tried (only root makes one)');
		} finally {
			for (const s of servers)
				await s.close().catch(() => {});
			await fsp.rm(tmp, { recursive: true, force: true }).catch(() => {});
		}
	});

	/*
	 * A tree deeper than the removal holds open (64 levels): a call's home
	 * filled 300 levels deep goes as the call ends, and a tree a call left
	 * in "calls" itself goes with the base as the server exits; nothing of
	 * the base is left in TMPDIR.
	 */
	test('a home filled 300 levels deep goes with its call, a tree as deep left in calls with the base', async (t) => {
		if (cannotRun(t, [...need, 'head']))
			return;
		const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-deep-'));
		await fsp.chmod(tmp, 0o1777);
		const deep = 'for ((i = 0; i < 300; i++)); do mkdir d && cd d || exit 1; done; '
		    + 'head -c 65536 /dev/zero > f1 && head -c 65536 /dev/zero > f2';
		let s;
		try {
			s = await startShell(await shellPolicy([...need, 'head'].map((p) => `program ${p}`)),
			    { env: { TMPDIR: tmp } });
			const r = await run(s, ['bash', '-c', `echo "$HOME"; cd "$HOME" && ${deep}`]);
			assert.equal(res(r).exit, 0, `the call could not build its tree: ${said(r)}`);
			const h = res(r).stdout.trim();
			const left = () => [h, ...spentPlaces(h)].filter((p) => existsSync(p));
			assert.deepEqual(await waitEmpty(left, 10_000), [], 'the deep home was not removed');
			const junk = `junk-${randomUUID()}`;
			const q = await run(s, ['bash', '-c', `cd "$HOME/.." && mkdir ${junk} && cd ${junk} && ${deep}`]);
			assert.equal(res(q).exit, 0, `the call could not build its tree in calls: ${said(q)}`);
			assert.ok(existsSync(path.join(path.dirname(h), junk)), 'the tree left in calls is not there');
			await s.close();
			s = null;
			const bases = () => readdirSync(tmp).filter((n) => n.startsWith('toolcell-shell.'));
			assert.deepEqual(await waitEmpty(bases, 10_000), [], 'the server left its base');
		} finally {
			await s?.close().catch(() => {});
			await fsp.rm(tmp, { recursive: true, force: true }).catch(() => {});
		}
	});
});

// ---------------------------------------------------------------- fork bomb

/*
 * The directory of process |pid|'s cgroup in the hierarchy with the pids
 * controller (a v1 one, else the unified one), or null.
 */
function pidsCgroupOf(pid) {
	const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' '));
	const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
	const v1 = lines.map((l) => /^\d+:([^:]*):(\/.*)$/.exec(l)).find((m) => m && m[1].split(',').includes('pids'));
	if (v1) {
		const m = mounts.find((f) => f[2] === 'cgroup' && (f[3] ?? '').split(',').includes('pids'));
		return m ? path.join(m[1], v1[2]) : null;
	}
	const v2 = lines.map((l) => /^0::(\/.*)$/.exec(l)).find(Boolean);
	const m = mounts.find((f) => f[2] === 'cgroup2');
	return v2 && m ? path.join(m[1], v2[1]) : null;
}

/* A cgroup v1 hierarchy with the pids controller mounted read-write here:
 * a root server can make its calls' cgroups there. */
function v1PidsWritable() {
	return readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' '))
	    .some((f) => f[2] === 'cgroup' && (f[3] ?? '').split(',').includes('pids') &&
		(f[3] ?? '').split(',').includes('rw'));
}

/*
 * Runs what follows it in a mount namespace of its own where every cgroup
 * hierarchy is read-only: a root server there may make no pids cgroup.
 */
const NO_CGROUP = ['unshare', '-m', '--propagation', 'private', 'sh', '-c',
    'for m in $(awk \'$3 ~ /^cgroup/ {print $2}\' /proc/self/mounts); do ' +
    'mount -o remount,bind,ro "$m" || exit 1; done; exec "$0" "$@"'];

describe('fork bomb', () => {
	const LIMIT = 32;
	// What a root server without run-as says at start and in --check
	// where it may make no pids cgroup: no process limit holds for uid 0,
	// which the kernel exempts from RLIMIT_NPROC (in a user namespace
	// too).
	const ROOT_WARNING = /warning: calls run as root: no process limit holds for root .*name 'run-as USER'/;
	// --check's line that says what holds a call's processes.
	const LIMIT_LINE = /^process limit: (.*)$/m;
	const lines = ['program echo', `limit processes ${LIMIT}`, 'timeout 20s'];
	let S;
	// Where the limit holds: S, or as root a server with run-as nobody.
	let H;
	let polS;
	let progs = [];

	before(async () => {
		if (!existsSync(SHELL))
			return;
		progs = ['perl', 'bash'].filter((p) => which(p) !== null).map((p) => `program ${p}`);
		polS = await shellPolicy([...progs, ...lines]);
		S = await startShell(polS);
		// Calls as nobody: only the tree nobody may read, first.
		H = serverUid() === 0 ? await startShell(await shellPolicy([`allow read ${R.root}`, ...progs, ...lines,
		    'run-as nobody'], { dirs: false })) : S;
	});

	after(async () => {
		await S?.close().catch(() => {});
		if (H !== S)
			await H?.close().catch(() => {});
	});

	/* Forks at most 500 children, tagged |tag|, that sleep; prints "forked
	 * N"; then, with |stay|, sleeps too. */
	const boundedBomb = (tag, stay = false) => `my $n = 0;
		for (1..500) {
			my $p = fork();
			if (!defined $p) { print "failed after $n: $!\\n"; last }
			if ($p == 0) { $0 = "${tag}"; sleep 60; exit 0 }
			$n++;
		}
		print "forked $n\\n";${stay ? ' $| = 1; sleep 60;' : ''}`;

	/* Runs the bounded bomb on |srv| in |cwd|; returns how many children
	 * it forked and its output, once they are all gone. */
	async function bomb(srv, cwd) {
		const tag = `bomb-${randomUUID()}`;
		const r = await run(srv, ['perl', '-e', boundedBomb(tag)], { cwd, timeout_ms: 15_000 }, 60_000);
		const o = res(r);
		const m = /forked (\d+)/.exec(o.stdout);
		assert.ok(m, `the bomb did not report: ${said(r)}`);
		const n = Number(m[1]);
		assert.ok(n > 0, 'not one child was forked');
		const left = await waitEmpty(() => processesWith(tag), 10_000);
		assert.deepEqual(left, [], `${left.length} of the bomb's children outlived the call`);
		return { n, o };
	}

	/* What --check says holds a call's processes under policy |pol|. */
	async function limitLine(pol) {
		const chk = await runServer(['--policy', pol.file, '--check'], SHELL);
		assert.equal(chk.status, 0, chk.stderr);
		const m = LIMIT_LINE.exec(chk.stdout);
		assert.ok(m, `no 'process limit:' line in --check: ${chk.stdout}`);
		return { said: m[1], chk };
	}

	// Bounded: at most 500 children even if no limit holds, so that a
	// failure here cannot take the machine down; the real bomb runs only
	// where this one was contained.
	let bounded = false;
	// S's calls each have a pids cgroup of their own.
	let cgroup = false;

	test(`a bounded bomb: its tree ends with the call; below the process limit (${LIMIT}), or as root without a pids cgroup a warning`, async (t) => {
		if (cannotRun(t, ['perl']))
			return;
		const { n, o } = await bomb(S, W);
		await assertServes(S, 'after the bomb');
		const { said: by, chk } = await limitLine(polS);
		if (serverUid() === 0 && by.startsWith('none')) {
			// No limit holds for root here: the server says so, and
			// run-as is the answer (the next tests).
			assert.ok(!v1PidsWritable(), `a v1 pids hierarchy is writable here, yet --check says: ${by}`);
			assert.match(S.stderr(), ROOT_WARNING, 'no warning at start');
			assert.match(chk.stderr, ROOT_WARNING, 'no warning from --check');
			assert.match(S.initResult.instructions, /run as root, where no limit holds on how many processes/);
			t.diagnostic(`as root, ${n} children forked: no process limit holds for uid 0, and no pids cgroup`);
			return;
		}
		if (serverUid() === 0) {
			// The call's child has no keeper: pids.max is the limit itself.
			assert.match(by, /^pids cgroup v[12] at \/\S+, each call's own \(pids\.max 32[;)]/, 'as root');
			cgroup = true;
		} else
			assert.match(by, /RLIMIT_NPROC in the call's user namespace$/, `as uid ${serverUid()}`);
		assert.doesNotMatch(S.stderr(), /calls run as root/);
		assert.doesNotMatch(chk.stderr, /calls run as root/);
		assert.doesNotMatch(S.initResult.instructions, /run as root/);
		assert.ok(n < LIMIT, `${n} children forked as uid ${serverUid()} (${by}): the process limit did not hold`);
		assert.match(o.stdout, /failed after \d+: Resource temporarily unavailable/);
		bounded = true;
	});

	test('as root without run-as, a bomb job fills its own pids cgroup and no more; another call runs beside it; the cgroup goes with the job', async (t) => {
		if (cannotRun(t, ['perl']))
			return;
		if (!cgroup)
			return t.skip(serverUid() === 0 ? 'no pids cgroup the server may write here (the warning case above)' :
			    'only a root server makes pids cgroups here; calls of another user are held by RLIMIT_NPROC (the case above)');
		const tag = `bomb-${randomUUID()}`;
		const s = await call(S, 'start_command', { argv: ['perl', '-e', boundedBomb(tag, true)], cwd: W });
		assert.notEqual(s.isError, true, textOf(s));
		const job = s.structuredContent.job;
		let text = '';
		let offset = 0;
		await until(async () => {
			const r = await call(S, 'read_output', { job, offset, wait_ms: 2000 }, { timeout: 40_000 });
			text += r.structuredContent.output;
			offset = r.structuredContent.next_offset;
			return /forked \d+/.test(text) || r.structuredContent.state !== 'running';
		}, 30_000, 'the bomb job to report');
		const m = /forked (\d+)/.exec(text);
		assert.ok(m, `the bomb did not report: ${text}`);
		assert.match(text, /failed after \d+: Resource temporarily unavailable/);
		assert.ok(Number(m[1]) < LIMIT, `${m[1]} children forked: pids.max did not hold`);

		// Every process of the bomb is in one cgroup: the server's
		// directory, then the pid of the call's child (pid 1 of its
		// PID namespace, placed there as it was cloned).
		const pids = processesWith(tag);
		assert.ok(pids.length > Number(m[1]), `only ${pids.length} bomb processes seen`);
		const dirs = new Set(pids.map(pidsCgroupOf));
		assert.equal(dirs.size, 1, `the bomb's processes are in ${[...dirs].join(', ')}`);
		const [dir] = dirs;
		assert.match(dir, /\/toolcell-\d+-\d+-\d+\/\d+$/, 'a call\'s cgroup, in the server\'s directory');
		const read = (f) => readFileSync(path.join(dir, f), 'utf8').trim();
		const max = Number(read('pids.max'));
		assert.equal(max, LIMIT, 'pids.max: the limit itself, the call\'s child counted (no keeper)');
		assert.ok(Number(read('pids.current')) <= max, `pids.current ${read('pids.current')} past pids.max ${max}`);
		if (existsSync(path.join(dir, 'pids.peak')))
			assert.ok(Number(read('pids.peak')) <= max, `pids.peak ${read('pids.peak')} past pids.max ${max}`);
		assert.ok(Number(/max (\d+)/.exec(read('pids.events'))?.[1]) > 0, `no fork was refused: ${read('pids.events')}`);

		// One call's bomb takes nothing from another's: a second bomb,
		// while the first holds its cgroup full, forks too, and the two
		// together more than one limit would let them share.
		await assertServes(S, 'while a bomb fills its own cgroup');
		const second = await bomb(S, W);
		assert.ok(second.n < LIMIT, `${second.n} children forked by the second bomb: pids.max did not hold`);
		assert.ok(second.n + Number(m[1]) > LIMIT, `the bombs forked ${m[1]} and ${second.n}: they share one limit`);

		const stop = await call(S, 'stop_command', { job });
		assert.notEqual(stop.isError, true, textOf(stop));
		const left = await waitEmpty(() => processesWith(tag), 10_000);
		assert.deepEqual(left, [], `${left.length} bomb processes outlived the stopped job`);
		const gone = await waitEmpty(() => existsSync(dir) ? [dir] : [], 10_000);
		assert.deepEqual(gone, [], 'the call\'s cgroup is still there after the job');
		await assertServes(S, 'after the bomb job');
	});

	test('a tool\'s own lower limit (run_command\'s 4 under the policy\'s 32) holds for its calls, whoever they run as, and --check says so', async (t) => {
		if (cannotRun(t, ['perl']))
			return;
		const TOOL = 4;
		const pol = await shellPolicy([...progs, ...lines, `tool run_command limit processes ${TOOL}`]);
		const { said: by } = await limitLine(pol);
		if (serverUid() === 0 && by.startsWith('none'))
			return t.skip('as root without a pids cgroup no process limit holds (the warning case above)');
		const T = await startShell(pol);
		try {
			// Twice: a ready child and then the one made to replace it
			// both get the tool's limit, not the policy's.
			for (let i = 0; i < 2; i++) {
				const { n, o } = await bomb(T, W);
				assert.ok(n < TOOL, `${n} children forked as uid ${serverUid()} (${by}): run_command's own limit of ${TOOL} did not hold`);
				assert.match(o.stdout, /failed after \d+: Resource temporarily unavailable/);
			}
			await assertServes(T, 'after the bombs');
		} finally {
			await T.close().catch(() => {});
		}
		if (serverUid() === 0)
			assert.match(by, /pids\.max 32; a tool's own: run_command 4\)/, `--check does not say run_command's own pids.max: ${by}`);
	});

	test('as root where no pids cgroup may be made (cgroupfs read-only): the warning at start, in --check and in the instructions', async (t) => {
		if (cannotRun(t, ['perl']))
			return;
		if (serverUid() !== 0)
			return t.skip('only a root server is exempt from RLIMIT_NPROC (the pass as another user has no warning to give)');
		if (which('unshare') === null)
			return skipOrFail(t, 'not installed here: unshare');
		const N = await startShell(polS, { wrap: NO_CGROUP });
		try {
			assert.match(N.stderr(), ROOT_WARNING, 'no warning at start');
			assert.match(N.initResult.instructions, /run as root, where no limit holds on how many processes/);
			await assertServes(N, 'without a pids cgroup');
		} finally {
			await N.close().catch(() => {});
		}
		const chk = spawnSync(NO_CGROUP[0], [...NO_CGROUP.slice(1), SHELL, '--policy', polS.file, '--check'],
		    { input: '', encoding: 'utf8', timeout: 10_000 });
		assert.equal(chk.status, 0, chk.stderr);
		assert.match(chk.stderr, ROOT_WARNING, 'no warning from --check');
		assert.match(chk.stdout, /^process limit: none: calls run as root/m);
	});

	test(`a root server with run-as nobody: no warning, and the bounded bomb stops below ${LIMIT}`, async (t) => {
		if (cannotRun(t, ['perl']))
			return;
		if (serverUid() !== 0)
			return t.skip('only a root server can switch users (the pass as another user has nothing to run here)');
		assert.doesNotMatch(H.stderr(), /calls run as root/);
		assert.doesNotMatch(H.initResult.instructions, /run as root/);
		const { n, o } = await bomb(H, R.root);
		assert.ok(n < LIMIT, `${n} children forked: the process limit did not hold`);
		assert.match(o.stdout, /failed after \d+: Resource temporarily unavailable/);
		await assertServes(H, 'after the bomb');
		bounded = true;
	});

	test('the real bomb, :(){ :|:& };:, is contained where the limit holds, and the server serves on', async (t) => {
		if (cannotRun(t, ['bash']))
			return;
		if (!bounded)
			return skipOrFail(t, 'the bounded bomb was not contained (or did not run): not running an unbounded one');
		// As root: under run-as (RLIMIT_NPROC), and without it where
		// each call has a pids cgroup.
		for (const srv of cgroup && H !== S ? [H, S] : [H]) {
			const tag = `bomb${randomUUID().replaceAll('-', '')}`;
			const r = await run(srv, ['bash', '-c', `${tag}(){ ${tag}|${tag}& }; ${tag}`],
			    { cwd: srv === S ? W : R.root, timeout_ms: 3000 }, 60_000);
			assert.ok(r, 'no answer');
			const left = await waitEmpty(() => processesWith(tag), 15_000);
			assert.deepEqual(left, [], `${left.length} bomb processes outlived the call`);
			await assertServes(srv, 'after the real bomb');
		}
	});
});

// ---------------------------------------------------------------- orphans

/*
 * A script that leaves three sleepers behind, each told apart by its
 * duration: one in the background, one whose parent exits (a double
 * fork), one in a session of its own.  It prints their pids (as it sees
 * them: in the call's PID namespace, if it has one) and, a moment later,
 * "alive PID" for each that still runs (the exec of sleep worked), then
 * "ready".
 */
function orphanScript(tags, tail = '') {
	return [
		'p1=; p2=; p3=',
		`sleep ${tags[0]} >/dev/null 2>&1 & p1=$!`,
		`p2=$( ( sleep ${tags[1]} >/dev/null 2>&1 & echo $! ) )`,
		`setsid sleep ${tags[2]} >/dev/null 2>&1 & p3=$!`,
		'echo "pids $p1 $p2 $p3"',
		'sleep 0.5',
		'for p in $p1 $p2 $p3; do kill -0 "$p" 2>/dev/null && echo "alive $p"; done',
		'echo ready',
		tail,
	].join('\n');
}

/* The host pids of the sleepers of |tags| (sleep TAG: not the shell
 * whose script names them). */
const sleepers = (tags) => tags.flatMap((tag) => processesWithArg(tag));

describe('orphans', () => {
	const need = ['bash', 'sleep', 'setsid'];
	let S;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		S = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'program echo', 'timeout 20s']));
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	test('sleep &, a double fork and setsid: all gone after the call', async (t) => {
		if (cannotRun(t, need))
			return;
		const tags = [sleepTag(), sleepTag(), sleepTag()];
		const r = await run(S, ['bash', '-c', orphanScript(tags)], { cwd: W });
		const o = res(r);
		assert.match(o.stdout, /^pids \d+ \d+ \d+$/m, `the script did not start its sleepers: ${said(r)}`);
		assert.equal((o.stdout.match(/^alive \d+$/gm) ?? []).length, 3, `a sleeper did not run: ${said(r)}`);
		const left = await waitEmpty(() => sleepers(tags), 10_000);
		assert.deepEqual(left, [], `sleepers outlived the call: ${left.join(' ')}`);
	});

	test('sleep & holding the call\'s stdout: the call answers all the same, and the sleeper is gone', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = sleepTag();
		const r = await run(S, ['bash', '-c', `sleep ${tag} & echo "pid $!"`], { cwd: W, timeout_ms: 5000 }, 30_000);
		assert.notEqual(r.isError, true, `the call did not answer: ${said(r)}`);
		assert.match(res(r).stdout, /^pid \d+$/m, said(r));
		const left = await waitEmpty(() => sleepers([tag]), 10_000);
		assert.deepEqual(left, [], `the sleeper outlived the call: ${left.join(' ')}`);
	});

	test('orphans that end are reaped as the call runs: three times the process limit of them, and it forks on', async (t) => {
		if (cannotRun(t, need))
			return;
		// The call's child is pid 1 of its PID namespace, so each
		// orphan becomes its child; one that ends stays a zombie,
		// counted against the limit, until the child reaps it.
		const LIMIT = 12;
		const L = await startShell(await shellPolicy(['program bash', 'program sleep', `limit processes ${LIMIT}`,
		    'timeout 30s']));
		try {
			// The control: as many alive at once as three times the
			// limit cannot be, where the limit holds at all.
			const alive = await run(L, ['bash', '-c', `for i in $(eval echo {1..${3 * LIMIT}}); do ` +
			    'sleep 5 & done 2>/dev/null; wait; echo all'], { cwd: W, timeout_ms: 20000 }, 40_000);
			if (/^all$/m.test(res(alive).stdout))
				return t.skip(`no process limit holds for this server's calls here: ${said(alive).slice(0, 300)}`);
			// Each (sleep &) leaves an orphan that ends 10 ms later.
			const r = await run(L, ['bash', '-c', `for i in $(eval echo {1..${3 * LIMIT}}); do ` +
			    '( sleep 0.01 & ) || { echo "no fork at $i"; exit 1; }; sleep 0.05; done; echo "forked $i"'],
			{ cwd: W, timeout_ms: 20000 }, 40_000);
			assert.equal(res(r).stdout, `forked ${3 * LIMIT}\n`, said(r));
			assert.equal(res(r).exit, 0, said(r));
			// Not even once: bash retries a fork the limit refused a
			// second later, by when anything reaps them.
			assert.doesNotMatch(res(r).stderr, /fork/, said(r));
		} finally {
			await L.close().catch(() => {});
		}
	});

	test('sleep &, a double fork and setsid in a job: alive while it runs, gone after stop_command', async (t) => {
		if (cannotRun(t, need))
			return;
		const tags = [sleepTag(), sleepTag(), sleepTag()];
		const s = await call(S, 'start_command', { argv: ['bash', '-c', orphanScript(tags, 'exec sleep 1000')], cwd: W });
		assert.notEqual(s.isError, true, textOf(s));
		const job = s.structuredContent.job;
		// The control: the test sees them while the job runs.
		const seen = await waitCount(() => sleepers(tags), 3, 10_000);
		assert.equal(seen.length, 3, `the sleepers never showed: ${seen.join(' ')}`);
		const list = await call(S, 'list_commands', {});
		assert.ok(list.structuredContent.jobs.some((j) => j.job === job), said(list));
		const stop = await call(S, 'stop_command', { job });
		assert.notEqual(stop.isError, true, textOf(stop));
		const left = await waitEmpty(() => sleepers(tags), 10_000);
		assert.deepEqual(left, [], `sleepers outlived the stopped job: ${left.join(' ')}`);
	});
});

// ---------------------------------------------------------------- floods

/* The first |n| bytes of "0123456789abcdef\n" repeated: what yes writes. */
function yesPrefix(n, line = '0123456789abcdef\n') {
	return line.repeat(Math.ceil(n / line.length)).slice(0, n);
}

const MiB = 1024 * 1024;

describe('output floods', () => {
	const need = ['bash', 'yes', 'head', 'cat'];
	const CAP = MiB;
	let S;
	let pol;
	let blob;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		blob = randomBytes(5 * MiB);
		await fsp.writeFile(R.p('blob'), blob);
		await fsp.chmod(R.p('blob'), 0o644);
		await fsp.writeFile(R.p('text'), yesPrefix(5 * MiB));
		await fsp.chmod(R.p('text'), 0o644);
		pol = await shellPolicy([...need.map((p) => `program ${p}`), 'program echo',
		    'output 8M', 'timeout 2m', 'limit output 256M']);
		S = await startShell(pol);
	});

	/* Runs |fn| with a server of its own: a result the client cannot
	 * take ends its connection, and no other test's with it. */
	async function alone(fn) {
		const A = await startShell(pol);
		try {
			await fn(A);
		} finally {
			await A.close().catch(() => {});
		}
	}

	after(async () => {
		await S?.close().catch(() => {});
	});

	const Y = 'yes 0123456789abcdef | head -c 104857600';
	for (const [name, script, streams] of [
		['stdout', Y, ['stdout']],
		['stderr', `${Y} >&2`, ['stderr']],
		['both at once', `{ ${Y}; } & ${Y} >&2; wait`, ['stdout', 'stderr']],
	]) {
		test(`100 MiB on ${name}: the call returns, cut at the cap, counted exactly`, async (t) => {
			if (cannotRun(t, need))
				return;
			// --norc: what bash reads at its start is another test's.
			const r = await run(S, ['bash', '--norc', '-c', script],
			    { cwd: W, max_output_bytes: CAP, timeout_ms: 110_000 },
			    120_000);
			assert.notEqual(r.isError, true, said(r).slice(0, 2000));
			const o = res(r);
			assert.equal(o.exit, 0, said(r).slice(0, 2000));
			for (const s of streams) {
				assert.equal(o[`${s}Bytes`], 100 * MiB, `${s}: counted`);
				assert.equal(o[`${s}Truncated`], true, `${s}: said to be cut`);
				assert.equal(o[s].length, CAP, `${s}: kept`);
				assert.ok(o[s] === yesPrefix(CAP), `${s}: the bytes kept are not the first ${CAP} in order`);
			}
			await assertServes(S, `after 100 MiB on ${name}`);
		});
	}

	test('5 MiB of binary, byte for byte, with binary=true', async (t) => {
		if (cannotRun(t, need))
			return;
		await alone(async (A) => {
			const r = await runKept(A, ['cat', R.p('blob')], { cwd: W, binary: true, max_output_bytes: 8 * MiB },
			    60_000);
			assert.notEqual(r.isError, true, said(r).slice(0, 2000));
			const o = res(r);
			assert.equal(o.stdoutBytes, blob.length);
			assert.equal(o.stdoutTruncated, false);
			assert.equal(typeof o.stdoutB64, 'string', 'no base64 in the structured content');
			const got = Buffer.from(o.stdoutB64, 'base64');
			assert.equal(got.length, blob.length);
			assert.ok(got.equals(blob), 'the bytes differ');
		});
	});

	test('5 MiB of text, byte for byte, five times over', async (t) => {
		if (cannotRun(t, need))
			return;
		const want = createHash('sha256').update(yesPrefix(5 * MiB)).digest('hex');
		await alone(async (A) => {
			for (let i = 0; i < 5; i++) {
				const r = await runKept(A, ['cat', R.p('text')], { cwd: W, max_output_bytes: 8 * MiB }, 60_000);
				const o = res(r);
				assert.equal(o.stdoutBytes, 5 * MiB, `run ${i}`);
				assert.equal(o.stdoutTruncated, false, `run ${i}`);
				assert.equal(createHash('sha256').update(o.stdout).digest('hex'), want,
				    `run ${i}: the bytes differ`);
			}
		});
	});
});

describe('a flood under the policy\'s own output limit', () => {
	const need = ['bash', 'yes', 'head'];
	let S;

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		S = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'program echo', 'timeout 2m']));
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	// A host's client is the official one with its defaults: it drops the
	// connection on a message past 10 MiB (the SDK's
	// STDIO_DEFAULT_MAX_BUFFER_SIZE).  With no max_output_bytes, what a
	// call keeps of both streams must still reach it.
	test('100 MiB on stdout and on stderr, no max_output_bytes: the official client gets the answer', async (t) => {
		if (cannotRun(t, need))
			return;
		const Y = 'yes 0123456789abcdef | head -c 104857600';
		const r = await runKept(S, ['bash', '--norc', '-c', `{ ${Y}; } & ${Y} >&2; wait`],
		    { cwd: W, timeout_ms: 110_000 }, 120_000);
		const o = res(r);
		assert.equal(o.stdoutBytes, 100 * MiB);
		assert.equal(o.stderrBytes, 100 * MiB);
		assert.equal(o.stdoutTruncated, true);
		assert.ok(o.stdout === yesPrefix(o.stdout.length), 'stdout: the bytes kept are not the first in order');
		await assertServes(S, 'after the flood');
	});
});

// ---------------------------------------------------------------- stress

// The issue's 10,000 runs, about 25 s on a 2-core machine;
// TOOLCELL_STRESS_RUNS changes the number, and a tenth of it the jobs on
// a terminal.
const STRESS_RUNS = Number(process.env.TOOLCELL_STRESS_RUNS ?? 10_000);

describe('stress', () => {
	let S;

	before(async () => {
		if (!existsSync(SHELL))
			return;
		S = await startShell(await shellPolicy(['program /bin/echo', 'program env'], { audit: false }));
	});

	after(async () => {
		await S?.close().catch(() => {});
	});

	test(`${STRESS_RUNS} runs of echo hi in a row: no output lost`, { timeout: 300_000 }, async (t) => {
		if (cannotRun(t, ['echo']))
			return;
		const bad = [];
		for (let i = 0; i < STRESS_RUNS; i++) {
			const r = await run(S, ['/bin/echo', 'hi'], { cwd: W });
			const o = r.isError ? null : res(r);
			if (o === null || o.stdout !== 'hi\n' || o.exit !== 0 || o.stderr !== '')
				bad.push([i, said(r).slice(0, 300)]);
		}
		assert.deepEqual(bad.slice(0, 10), [], `${bad.length} of ${STRESS_RUNS} runs came back wrong`);
		assert.deepEqual(S.clientErrors, []);
	});

	// A terminal's output is read up to a mark the handler writes after
	// the program's exit (docs/shell.md, "A terminal"): every job here
	// takes that path, three at a time.  What it answers, Linux's EIO
	// before the last bytes can be read, came about once in 6,000 jobs
	// beside a loaded machine's suite: this is not sure to meet it.
	const TTY_RUNS = Math.floor(STRESS_RUNS / 10);
	test(`${TTY_RUNS} jobs of env on a terminal, three at a time: no output lost`, { timeout: 300_000 }, async (t) => {
		if (cannotRun(t, ['env']))
			return;
		if (TTY_RUNS === 0)
			return t.skip('TOOLCELL_STRESS_RUNS asks for none');
		const first = await call(S, 'start_command', { argv: ['env'], cwd: W, tty: true });
		if (first.isError && /no pseudo-terminal could be opened/.test(textOf(first)))
			return t.skip(textOf(first));
		await call(S, 'stop_command', { job: first.structuredContent?.job ?? 0 });
		const bad = [];
		let want = null;
		const one = async (i) => {
			const s = await call(S, 'start_command', { argv: ['env'], cwd: W, tty: true });
			if (s.isError)
				return bad.push([i, said(s).slice(0, 300)]);
			const job = s.structuredContent.job;
			let o;
			let next = 0;
			for (let k = 0; k < 100 && o?.state !== 'exited'; k++) {
				o = (await call(S, 'read_output', { job, offset: next, wait_ms: 5000 })).structuredContent;
				next = o.next_offset;
				if (o.state !== 'running' && o.state !== 'exited')
					break;
			}
			o = (await call(S, 'read_output', { job, offset: 0, max_bytes: 1 << 16 })).structuredContent;
			// The same variables each time, but HOME and TMPDIR, a
			// scratch directory of the call's own, of one length.
			const lines = o.output.split('\r\n').map((l) => l.split('=')[0]);
			want ??= lines.join(' ');
			// Nothing held its output: a mark that came back.
			const sc = o.result?.structuredContent;
			if (o.state !== 'exited' || sc?.exit_code !== 0 || /held/.test(sc?.note ?? '') ||
			    !lines.includes('TERM') || lines.join(' ') !== want)
				bad.push([i, JSON.stringify(o).slice(0, 600)]);
		};
		for (let i = 0; i < TTY_RUNS; i += 3)
			await Promise.all([i, i + 1, i + 2].filter((k) => k < TTY_RUNS).map(one));
		assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${TTY_RUNS} jobs came back wrong`);
		assert.deepEqual(S.clientErrors, []);
	});
});

// ---------------------------------------------------------------- timeouts and cancellation

describe('timeouts and cancellation', () => {
	const need = ['bash', 'sleep'];
	let S;		// a 5-second deadline
	let L;		// a 1-minute one, for what must not meet its deadline

	before(async () => {
		if (!existsSync(SHELL) || need.some((p) => which(p) === null))
			return;
		S = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'program echo', 'timeout 5s']));
		L = await startShell(await shellPolicy([...need.map((p) => `program ${p}`), 'program echo', 'timeout 1m']));
	});

	after(async () => {
		await S?.close().catch(() => {});
		await L?.close().catch(() => {});
	});

	/* Says whether |r| is a run that timed out, as a result or a tool error. */
	const timedOut = (r) => (r.isError === true && /timed out|deadline/i.test(textOf(r)))
	    || r.structuredContent?.timed_out === true;

	test('timeout_ms stops a sleeper and its tree', async (t) => {
		if (cannotRun(t, need))
			return;
		const tags = [sleepTag(), sleepTag()];
		const r = await run(S, ['bash', '-c', `sleep ${tags[0]} & sleep ${tags[1]}`], { cwd: W, timeout_ms: 300 });
		assert.ok(timedOut(r), `did not time out: ${said(r)}`);
		const left = await waitEmpty(() => sleepers(tags), 10_000);
		assert.deepEqual(left, [], 'a sleeper outlived the timeout');
	});

	test('a timeout_ms past the policy\'s is clamped to it', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = sleepTag();
		const r = await run(S, ['sleep', tag], { cwd: W, timeout_ms: 3_600_000 }, 30_000);
		assert.ok(timedOut(r), `did not time out at the policy's 5 s: ${said(r)}`);
		const left = await waitEmpty(() => sleepers([tag]), 10_000);
		assert.deepEqual(left, []);
	});

	test('cancelling a running call kills its tree; the server serves on', async (t) => {
		if (cannotRun(t, need))
			return;
		const tags = [sleepTag(), sleepTag()];
		const ac = new AbortController();
		const p = L.client.callTool({ name: 'run_command',
		    arguments: { argv: ['bash', '-c', `sleep ${tags[0]} & sleep ${tags[1]}`], cwd: W } },
		undefined, { timeout: 30_000, signal: ac.signal });
		p.catch(() => {});
		const seen = await waitCount(() => sleepers(tags), 2, 10_000);
		assert.equal(seen.length, 2, 'the sleepers never showed');
		ac.abort('enough');
		await assert.rejects(p);
		assert.ok(L.sent.findLast((m) => m.method === 'notifications/cancelled'), 'no notifications/cancelled sent');
		const left = await waitEmpty(() => sleepers(tags), 10_000);
		assert.deepEqual(left, [], 'a sleeper outlived the cancelled call');
		await assertServes(L, 'after the cancellation');
	});

	test('a job with a timeout_ms ends with its tree', async (t) => {
		if (cannotRun(t, need))
			return;
		const tags = [sleepTag(), sleepTag()];
		const s = await call(L, 'start_command', { argv: ['bash', '-c', `sleep ${tags[0]} & sleep ${tags[1]}`], cwd: W,
		    timeout_ms: 1000 });
		assert.notEqual(s.isError, true, textOf(s));
		const seen = await waitCount(() => sleepers(tags), 2, 10_000);
		assert.equal(seen.length, 2, 'the sleepers never showed');
		const left = await waitEmpty(() => sleepers(tags), 15_000);
		assert.deepEqual(left, [], 'a sleeper outlived the job\'s timeout');
		const o = await call(L, 'read_output', { job: s.structuredContent.job, offset: 0, wait_ms: 5000 });
		assert.notEqual(o.isError, true, textOf(o));
		assert.notEqual(o.structuredContent.state, 'running', said(o));
	});

	test('stop_command on a job that ignores SIGTERM still ends it', async (t) => {
		if (cannotRun(t, need))
			return;
		const tag = sleepTag();
		const s = await call(L, 'start_command', { argv: ['bash', '-c', `trap '' TERM; sleep ${tag}; sleep ${tag}`],
		    cwd: W });
		assert.notEqual(s.isError, true, textOf(s));
		assert.equal((await waitCount(() => sleepers([tag]), 1, 10_000)).length, 1, 'the sleeper never showed');
		const stop = await call(L, 'stop_command', { job: s.structuredContent.job });
		assert.notEqual(stop.isError, true, textOf(stop));
		const left = await waitEmpty(() => sleepers([tag]), 10_000);
		assert.deepEqual(left, []);
	});
});

// ---------------------------------------------------------------- TIOCSTI, TIOCLINUX

describe('TIOCSTI and TIOCLINUX', () => {
	let helper;		// a copy of tests/tiocsti the server's user can run
	let tmp;

	before(async () => {
		if (!existsSync(TIOCSTI))
			return;
		tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-tiocsti-'));
		await fsp.chmod(tmp, 0o755);
		helper = path.join(tmp, 'tiocsti');
		await fsp.copyFile(TIOCSTI, helper);
		await fsp.chmod(helper, 0o755);
	});

	after(async () => {
		if (tmp)
			await fsp.rm(tmp, { recursive: true, force: true });
	});

	const cannot = (t) => {
		if (cannotRun(t))
			return true;
		if (!existsSync(TIOCSTI)) {
			skipOrFail(t, `${TIOCSTI} is not built`);
			return true;
		}
		return false;
	};

	/*
	 * Starts the server in a session of its own whose controlling
	 * terminal says what is pushed into it; returns it and the name of
	 * that terminal.
	 */
	async function startOnTerminal() {
		const srv = await startShell(await shellPolicy([`program ${helper}`, 'program echo']),
		    { wrap: [helper, '--ctty'] });
		const m = await until(() => /tiocsti: terminal (\/dev\/\S+)/.exec(srv.stderr()), 5000,
		    'the wrapper naming its terminal');
		return [srv, m[1]];
	}

	/* Checks the helper's report in |text|: nothing pushed. */
	function refused(text) {
		assert.match(text, /^pushed 0$/m, `something was pushed: ${text}`);
		const lines = text.split('\n').filter((l) => / TIOC/.test(l));
		assert.ok(lines.length >= 6, `the helper tried too little: ${text}`);
		for (const line of lines) {
			const [target, req, e, h] = line.split(' ');
			assert.notEqual(e, '0', `${req} on ${target} worked`);
			assert.notEqual(h, '0', `${req} with high bits on ${target} worked`);
		}
	}

	test('the control: outside the server, the helper pushes into its own terminal', async (t) => {
		if (cannot(t))
			return;
		const as = runAs();
		const argv = [helper, '--ctty', helper, '--self'];
		const cmd = as ? ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', ...argv] : argv;
		const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8' });
		if (/TIOCSTI [1-9]/.test(r.stdout))
			return skipOrFail(t, `this kernel refuses TIOCSTI to everyone (dev.tty.legacy_tiocsti=0): ${r.stdout}`);
		assert.match(r.stdout, /pushed 1/, r.stdout + r.stderr);
		assert.match(r.stderr, /the terminal received \d+ bytes/);
	});

	test('a program run by the server: on fds 0-2, /dev/tty and the server\'s terminal, refused', async (t) => {
		if (cannot(t))
			return;
		const [srv, tty] = await startOnTerminal();
		let text;
		try {
			const r = await run(srv, [helper, tty], { cwd: W });
			text = res(r).stdout;
			refused(text);
			await assertServes(srv, 'after TIOCSTI');
		} finally {
			await srv.close().catch(() => {});
		}
		// The wrapper says what reached its terminal once the server
		// has exited.
		assert.doesNotMatch(srv.stderr(), /the terminal received/, text);
	});

	test('a job on a pseudo-terminal of its own: refused there too', async (t) => {
		if (cannot(t))
			return;
		const [srv, tty] = await startOnTerminal();
		try {
			const start = (await srv.client.listTools()).tools.find((x) => x.name === 'start_command');
			const ptyArg = ['pty', 'tty', 'terminal'].find((k) => start?.inputSchema?.properties?.[k]);
			if (!ptyArg)
				return skipOrFail(t, 'start_command offers no pseudo-terminal');
			// Its own terminal on fds 0-2, /dev/tty, and the server's.
			const s = await call(srv, 'start_command', { argv: [helper, tty], cwd: W, [ptyArg]: true });
			assert.notEqual(s.isError, true, textOf(s));
			const job = s.structuredContent.job;
			let text = '';
			let next = 0;
			for (let i = 0; i < 50 && !/pushed \d+/.test(text); i++) {
				const o = await call(srv, 'read_output', { job, offset: next, wait_ms: 2000 });
				text += o.structuredContent.output;
				next = o.structuredContent.next_offset;
				if (o.structuredContent.state !== 'running')
					break;
			}
			refused(text.replaceAll('\r', ''));
			assert.match(text, new RegExp(`^${tty} open \\d+\r?$`, 'm'),
			    `the server's terminal opened: ${text}`);
		} finally {
			await srv.close().catch(() => {});
		}
		assert.doesNotMatch(srv.stderr(), /the terminal received/);
	});
});
