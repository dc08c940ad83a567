// startup.test.mjs: --check sees what start sees.  For each problem a start
// can meet (the audit key, the log, its directory, a directory given twice
// or that calls cannot read), --check and a real start of the same command
// line agree: both fail with the same error lines, or both pass; the
// server makes the log's directory at the XDG place, and --check only says
// it would; messages naming long paths are whole.
//
// With TOOLCELL_AS=nobody the server runs as nobody: the directories it
// writes to, and the key files, belong to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import {
	call, logRecords, makeScratch, makeTree, runAs, serverCommand, serverIds, startServer,
	symlink, textOf,
} from './lib.mjs';

let tree;
const base = await makeScratch('startup');
const { policy, ownedDir } = base;

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n', sub: symlink('.') });
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

/*
 * Runs toolcell-fs with |args| and no input, with the environment |env|
 * (PATH and what it names; nothing else, so that no HOME or
 * XDG_STATE_HOME of the test's own leaks in).  Returns {status, stdout,
 * stderr}.  A start that succeeds serves until its input ends, at once.
 */
async function run(args, env = {}) {
	const cmd = await serverCommand(args);
	const r = spawnSync(cmd.command, cmd.args, {
		input: '', encoding: 'utf8', timeout: 10_000,
		env: { PATH: process.env.PATH, ...env },
	});
	if (r.error)
		throw r.error;
	return r;
}

/* The summary line of |n| errors, with or without start's ": not starting". */
const summary = (n, starting) => `toolcell-fs: ${n} error${n === 1 ? '' : 's'}`
    + `${starting ? ': not starting' : ''}\n`;

/*
 * Runs |args| with --check, then as a real start, and checks that both
 * fail with the error lines |errors| (each without its "toolcell-fs:
 * error: " head), --check's summary "N errors" and start's "N errors: not
 * starting", and nothing on stdout.  Returns {check, start}.
 */
async function bothFail(args, errors, env = {}) {
	const lines = errors.map((e) => `toolcell-fs: error: ${e}\n`).join('');
	const check = await run([...args, '--check'], env);
	const start = await run(args, env);
	assert.equal(check.stderr, lines + summary(errors.length, false), '--check');
	assert.equal(check.status, 1, '--check exits 1');
	assert.equal(check.stdout, '');
	assert.equal(start.stderr, lines + summary(errors.length, true), 'start');
	assert.equal(start.status, 1, 'start exits 1');
	assert.equal(start.stdout, '');
	return { check, start };
}

/* A 32-byte key file in |dir| with |mode|, owned by the server's user. */
async function keyFile(dir, mode = 0o600, bytes = 32) {
	const k = path.join(dir, `key-${randomBytes(4).toString('hex')}`);
	await fsp.writeFile(k, randomBytes(bytes), { mode });
	await fsp.chmod(k, mode);
	const { uid, gid } = serverIds();
	await fsp.chown(k, uid, gid);
	return k;
}

const asRoot = () => serverIds().uid === 0;

describe('messages naming long paths are whole', () => {
	test('a log altered, deep down: --check and start name it whole, twice', async () => {
		// About 3,000 bytes of path: the message names it twice.
		let dir = await ownedDir();
		const { uid, gid } = serverIds();
		for (let i = 0; i < 12; i++) {
			dir = path.join(dir, `${String(i).padStart(2, '0')}${'d'.repeat(240)}`);
			await fsp.mkdir(dir);
			await fsp.chmod(dir, 0o755);
		}
		await fsp.chown(dir, uid, gid);
		const log = path.join(dir, 'altered.jsonl');
		assert.ok(log.length > 2900, `${log.length}`);
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		assert.equal((await run(['--policy', p])).status, 0);
		const recs = await logRecords(log);
		const text = await fsp.readFile(log, 'utf8');
		await fsp.writeFile(log, text.replace(/"reason":"eof"/, '"reason":"EOF"'));
		const error = `audit log '${log}': its last record (seq ${recs.at(-1).seq}) does not `
		    + `match its hash (altered); run 'toolcell-audit verify ${log}'`;
		const start = await run(['--policy', p]);
		assert.equal(start.status, 1);
		assert.equal(start.stderr, `toolcell-fs: audit log: ${error}\n`,
		    `cut: ${start.stderr.length} bytes`);
	});
});
