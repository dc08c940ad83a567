// shell-cli.test.mjs: what README.md says of toolcell-shell's command
// line.  `--check` shows what each program resolved to, what else the
// kernel will let it execute (an ELF's interpreter, a script's #!
// program and theirs), and says that a shell or interpreter runs whatever
// it is given, held only by the sandbox; `--print-config HOST --policy
// FILE` prints the host's entry as for toolcell-fs, with the binary's and
// the policy's absolute paths.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BUILD, makeScratch, makeTree, runServer, serverCommand } from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');
/* Where a program named by a bare name is looked for (shell.h). */
const SHELL_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

let tree;
const scratch = await makeScratch('shell-cli');

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n' });
});

after(async () => {
	await tree?.cleanup();
	await scratch.cleanup();
});

/* The canonical path of |name| as the server finds it, or null. */
function found(name) {
	for (const d of SHELL_PATH)
		if (existsSync(path.join(d, name)))
			return realpathSync(path.join(d, name));
	return null;
}

/*
 * The ELF interpreter (PT_INTERP) of the 64-bit little-endian ELF file
 * |file|, canonical; null for a static one or another format.
 */
function elfInterp(file) {
	const b = readFileSync(file);
	if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1)
		return null;
	const phoff = Number(b.readBigUInt64LE(0x20));
	const phentsize = b.readUInt16LE(0x36);
	const phnum = b.readUInt16LE(0x38);
	for (let i = 0; i < phnum; i++) {
		const ph = phoff + i * phentsize;
		if (b.readUInt32LE(ph) !== 3)
			continue;
		const off = Number(b.readBigUInt64LE(ph + 8));
		const size = Number(b.readBigUInt64LE(ph + 0x20));
		return realpathSync(b.subarray(off, off + size - 1).toString());
	}
	return null;
}

/* The lines --check prints for the program whose line starts "  |name|  ". */
function programBlock(stdout, name) {
	const lines = stdout.split('\n');
	const i = lines.findIndex((l) => l.startsWith(`  ${name}  `));
	assert.ok(i >= 0, `no program line for ${name}:\n${stdout}`);
	const out = [lines[i]];
	for (let k = i + 1; k < lines.length && lines[k].startsWith('    '); k++)
		out.push(lines[k]);
	return out;
}

describe('--check', () => {
	test('each program: its resolved path, what it also executes, and a shell said to be one', async (t) => {
		const ls = found('ls');
		const sh = found('sh');
		if (ls === null || sh === null) {
			t.skip('no ls or sh in /usr/local/bin, /usr/bin or /bin');
			return;
		}
		const script = tree.p('tool.sh');
		await fsp.writeFile(script, '#!/bin/sh\necho tool\n');
		await fsp.chmod(script, 0o755);
		const p = await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program ls read-only',
		    'program sh', `program ${script}`]);
		const r = await runServer(['--policy', p, '--check'], SHELL);
		assert.equal(r.status, 0, r.stderr);

		// By name: found in SHELL_PATH, canonical; an ELF's
		// interpreter is what it also executes.
		const lsBlock = programBlock(r.stdout, 'ls');
		assert.equal(lsBlock[0], `  ls  ${ls}  (line 3)  read-only`);
		const ld = elfInterp(ls);
		if (ld !== null)
			assert.ok(lsBlock.includes(`    also executes: ${ld}`), lsBlock.join('\n'));
		assert.ok(!lsBlock.some((l) => /shell or an interpreter/.test(l)), lsBlock.join('\n'));

		// A shell: --check says it runs whatever it is given.
		const shBlock = programBlock(r.stdout, 'sh');
		assert.equal(shBlock[0], `  sh  ${sh}  (line 4)`);
		assert.ok(shBlock.includes('    a shell or an interpreter: only the kernel sandbox limits '
		    + 'what it runs'), shBlock.join('\n'));

		// A script: its #! program (and that one's interpreter) is
		// also executed, and is a shell every program may start.
		const scBlock = programBlock(r.stdout, script);
		assert.equal(scBlock[0], `  ${script}  ${script}  (line 5)`);
		const also = scBlock.find((l) => l.startsWith('    also executes: '));
		assert.ok(also, scBlock.join('\n'));
		const files = also.slice('    also executes: '.length).split(' ');
		assert.equal(files[0], sh, also);
		if (elfInterp(sh) !== null)
			assert.ok(files.includes(elfInterp(sh)), also);
		assert.ok(scBlock.includes(`    ${sh} is a shell or an interpreter that every program here `
		    + 'may start: only the kernel sandbox limits what it runs'), scBlock.join('\n'));
		if (ld !== null)
			assert.match(r.stdout, /^ {2}note: an ELF interpreter \(ld\.so\) is executable as well/m);
	});
});

describe('deny patterns that let abbreviations through', () => {
	// getopt_long(3) takes "--upl" for "--upload-pack"; only a pattern
	// that starts with "--" refuses the abbreviations, so one that
	// matches long options otherwise is warned of, at --check and at
	// start.
	const WARNING = /warning: \S+:4: args git deny '\*upload-pack\*' matches long options but refuses none of their abbreviations.* such as '--upload-pack\*'/;

	test('*upload-pack* is warned of, with what to write instead; --upload-pack* and -c are not', async (t) => {
		if (found('git') === null) {
			t.skip('no git in /usr/local/bin, /usr/bin or /bin');
			return;
		}
		const warned = await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program git read-only',
		    'args git deny -c *upload-pack* --exec*']);
		const chk = await runServer(['--policy', warned, '--check'], SHELL);
		assert.equal(chk.status, 0, chk.stderr);
		assert.match(chk.stderr, WARNING, 'no warning from --check');
		assert.doesNotMatch(chk.stderr, /deny '(-c|--exec\*)'/);
		const start = await runServer(['--policy', warned], SHELL);
		assert.match(start.stderr, WARNING, 'no warning at start');

		const fine = await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program git read-only',
		    'args git deny -c --upload-pack* --exec*']);
		const ok = await runServer(['--policy', fine, '--check'], SHELL);
		assert.equal(ok.status, 0, ok.stderr);
		assert.doesNotMatch(ok.stderr, /refuses none of their abbreviations/);
	});
});

describe('--print-config', () => {
	test('cursor: the entry README shows, with absolute paths; what it serves on stderr', async () => {
		const p = await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program cat']);
		const cmd = await serverCommand([], SHELL);
		const bin = await fsp.realpath(cmd.command === 'setpriv' ? cmd.args.at(-1) : cmd.command);
		const r = await runServer(['--print-config', 'cursor', '--policy', p], SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.deepEqual(JSON.parse(r.stdout), {
			mcpServers: { 'toolcell-shell': { command: bin, args: ['--policy', p] } },
		});
		// The directories and programs, in the lines --check shows.
		const cat = found('cat');
		assert.match(r.stderr, new RegExp(`^toolcell-shell: the entry serves what ${p} names:\n`));
		assert.match(r.stderr, new RegExp(`^directories:\n  read-only   ${tree.root}  \\(line 1\\)$`, 'm'));
		assert.match(r.stderr, new RegExp(`^programs:\n  cat  ${cat}  \\(line 3\\)$`, 'm'));
	});

	test('no entry for a policy the server would refuse', async () => {
		const bad = await runServer(['--print-config', 'cursor', '--policy',
		    await scratch.policy(['[shell]', 'program no-such-program-here'])], SHELL);
		assert.equal(bad.status, 1, bad.stderr);
		assert.equal(bad.stdout, '');
		assert.match(bad.stderr, /no-such-program-here/);
		assert.match(bad.stderr, /1 error: no entry printed/);
		const none = await runServer(['--print-config', 'cursor', '--policy',
		    await scratch.policy(['[shell]'])], SHELL);
		assert.equal(none.status, 2, none.stderr);
		assert.equal(none.stdout, '');
		assert.match(none.stderr, /no programs to run/);
	});

	test('a relative policy is made absolute', async () => {
		const p = await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program cat']);
		const cmd = await serverCommand(['--print-config', 'claude-code', '--policy',
		    path.basename(p)], SHELL);
		const r = spawnSync(cmd.command, cmd.args, {
			input: '', encoding: 'utf8', timeout: 10_000, cwd: path.dirname(p),
		});
		assert.equal(r.status, 0, r.stderr);
		const entry = JSON.parse(r.stdout).mcpServers['toolcell-shell'];
		assert.deepEqual(entry.args, ['--policy', p]);
		assert.equal(entry.type, 'stdio');
	});
});
