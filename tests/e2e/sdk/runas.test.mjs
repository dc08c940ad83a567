// runas.test.mjs: --run-as switches each call to an unprivileged user, and
// the server keeps nothing of the environment it was started with.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { call, runAs, serverCommand, startServer, textOf } from './lib.mjs';

/* Skips, or fails when TOOLCELL_MUST_WORK=1 asks for every case. */
function skipOrFail(t, why) {
	if (process.env.TOOLCELL_MUST_WORK === '1')
		assert.fail(`cannot run here: ${why}`);
	t.skip(why);
}

const serverIsRoot = () => process.getuid?.() === 0 && !runAs();

describe('--run-as', () => {
	let dir;

	before(async () => {
		dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-runas-'));
		await fsp.chmod(dir, 0o755);
		await fsp.writeFile(path.join(dir, 'open.txt'), 'for everyone\n');
		await fsp.chmod(path.join(dir, 'open.txt'), 0o644);
		await fsp.writeFile(path.join(dir, 'owner-only.txt'), 'not for nobody\n');
		await fsp.chmod(path.join(dir, 'owner-only.txt'), 0o600);
	});
	after(async () => {
		await fsp.rm(dir, { recursive: true, force: true });
	});

	// Each case belongs to one pass of the suite: as root, or as nobody.
	if (serverIsRoot()) test('as root: each call runs as the user named, not as root', async () => {
		const srv = await startServer(['--run-as', 'nobody', dir]);
		try {
			assert.match(srv.initResult.instructions, /Calls run as uid \d+, gid \d+/);
			const open = await call(srv, 'read_text_file', { path: path.join(dir, 'open.txt') });
			assert.ok(!open.isError, textOf(open));
			assert.equal(open.structuredContent.content, 'for everyone\n');
			// Root could read it; the user the call runs as cannot.
			const closed = await call(srv, 'read_text_file', { path: path.join(dir, 'owner-only.txt') });
			assert.equal(closed.isError, true);
			assert.match(textOf(closed), /permission denied/i);
			assert.ok(!textOf(closed).includes('not for nobody'));
		} finally {
			await srv.close();
		}
	});

	if (!serverIsRoot()) test('refused, with the reason, by a server that is not root', async () => {
		const cmd = await serverCommand(['--run-as', 'nobody', dir]);
		const r = spawnSync(cmd.command, cmd.args, { input: '', encoding: 'utf8', timeout: 10_000 });
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, /only a server started as root/);
		assert.equal(r.stdout, '', 'nothing but MCP on stdout');
	});

	if (serverIsRoot()) test('refuses a user that does not exist, and root itself', async () => {
		for (const [arg, want] of [['no-such-user-xyz', /no user 'no-such-user-xyz'/],
		    ['root', /already run as root/], ['nobody:no-such-group-xyz', /no group/]]) {
			const cmd = await serverCommand(['--run-as', arg, dir]);
			const r = spawnSync(cmd.command, cmd.args, { input: '', encoding: 'utf8', timeout: 10_000 });
			assert.notEqual(r.status, 0, arg);
			assert.match(r.stderr, want, arg);
		}
	});
});

describe('the server environment', () => {
	test('a secret it was started with is gone from /proc/PID/environ', async (t) => {
		const secret = `toolcell-env-canary-${process.pid}-${Date.now()}`;
		const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-env-'));
		const srv = await startServer([dir], { env: { ...process.env, TOOLCELL_TEST_SECRET: secret } });
		try {
			// The process the SDK started may be setpriv, which execs the
			// server: same pid.  The server is not dumpable, so only root
			// may read its environ.
			let environ;
			try {
				environ = await fsp.readFile(`/proc/${srv.pid}/environ`, 'latin1');
			} catch (e) {
				return skipOrFail(t, `cannot read the server's environ: ${e.code}`);
			}
			assert.ok(!environ.includes(secret), 'the secret is still in the server\'s environ');
			assert.ok(!environ.includes('TOOLCELL_TEST_SECRET'), 'the name is still there');
			// And it still serves.
			const r = await call(srv, 'list_allowed_directories');
			assert.ok(!r.isError);
		} finally {
			await srv.close();
			await fsp.rm(dir, { recursive: true, force: true });
		}
	});
});

describe('--allow-degraded', () => {
	test('names the layers it knows when given another', async () => {
		const cmd = await serverCommand(['--allow-degraded', 'namespaces', os.tmpdir()]);
		const r = spawnSync(cmd.command, cmd.args, { input: '', encoding: 'utf8', timeout: 10_000 });
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, /unknown layer 'namespaces' \(known: landlock, seccomp\)/);
		assert.equal(r.stdout, '');
	});

	test('accepting a weaker mode changes nothing where the layer is there', async () => {
		const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-degraded-'));
		const srv = await startServer(['--allow-degraded', 'seccomp', '--allow-degraded', 'landlock', dir]);
		try {
			assert.doesNotMatch(srv.initResult.instructions, /Degraded/);
			assert.doesNotMatch(srv.stderr(), /running without/);
			const r = await call(srv, 'list_allowed_directories');
			assert.ok(!r.isError);
		} finally {
			await srv.close();
			await fsp.rm(dir, { recursive: true, force: true });
		}
	});
});
