// sqlite-zygote.test.mjs: toolcell-sqlite's calls come from a zygote
// (common/sandbox/zygote.c), whose children inherit its connections and
// its memory: what one call does or draws must not carry into the next.
//
// With TOOLCELL_AS=nobody the server runs as nobody; the databases and
// their directories are then nobody's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { BUILD, call, makeScratch, serverIds, startServer, textOf, until } from './lib.mjs';

const SQLITE = path.join(BUILD, 'toolcell-sqlite');
const scratch = await makeScratch('sqlite-zygote');

after(() => scratch.cleanup());

const newDb = scratch.sqliteDb;

function start(dbs) {
	return scratch.policy(['[sqlite]', ...dbs]).then((p) =>
	    startServer(['--policy', p], { server: SQLITE }));
}

async function ok(srv, name, args) {
	const r = await call(srv, name, args);
	assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
	return r;
}

async function rows(srv, sql, db = 'main') {
	return (await ok(srv, 'query', { database: db, sql })).structuredContent.rows;
}

describe('calls forked from one zygote', () => {
	test('each call draws its own randomness', async () => {
		const file = await newDb();
		const srv = await start([`database main ${file} read-write`]);
		try {
			await ok(srv, 'execute', { database: 'main', sql: 'CREATE TABLE t(a)' });
			const seen = [];
			for (let i = 0; i < 4; i++)
				seen.push(JSON.stringify(await rows(srv, 'SELECT hex(randomblob(16)) AS r, random() AS n')));
			assert.equal(new Set(seen).size, seen.length, `the same randomness twice: ${seen.join(' ')}`);
		} finally {
			await srv.close();
		}
	});
});

/* The server's children, with their /proc status; [] where /proc is not
 * ours to read. */
function children(pid) {
	let kids = [];
	try {
		for (const t of fs.readdirSync(`/proc/${pid}/task`))
			kids.push(...fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean));
	} catch {
		return [];
	}
	return kids.map((k) => {
		try {
			return { pid: k, status: fs.readFileSync(`/proc/${k}/status`, 'utf8'),
			    io: fs.readFileSync(`/proc/${k}/io`, 'utf8') };
		} catch {
			return null;
		}
	}).filter(Boolean);
}

describe('a zygote', () => {
	test('reads no database\'s contents: only the calls\' children do', async (t) => {
		const file = await newDb();
		/* A schema of many pages, each a page the zygote's old warm-up
		 * read and parsed. */
		const tables = Array.from({ length: 200 }, (_, i) =>
		    `CREATE TABLE t${i}(id INTEGER PRIMARY KEY, name TEXT, v REAL, note TEXT DEFAULT 'padding padding padding');`);
		execFileSync('python3', ['-c', `import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.close()`,
		    file, tables.join('\n')]);
		const { uid, gid } = serverIds();
		await fsp.chown(file, uid, gid);
		const srv = await start([`database main ${file} read-write`]);
		try {
			assert.deepEqual(await rows(srv, 'SELECT count(*) FROM sqlite_schema'), [[200]]);
			let zygote;
			/* The zygote: the server's child with one filter (its
			 * children have two, the spawner none). */
			await until(() => (zygote = children(srv.pid).find((c) => /^Seccomp_filters:\s*1$/m.test(c.status))),
			    10_000, 'a zygote').catch(() => {});
			if (zygote === undefined) {
				t.skip('no zygote, or no /proc of it to read, here (Landlock and seccomp are both needed)');
				return;
			}
			const rchar = Number(/^rchar:\s*(\d+)/m.exec(zygote.io)[1]);
			assert.ok(rchar < 4096, `the zygote read ${rchar} bytes: more than the databases' headers`);
		} finally {
			await srv.close();
		}
	});
});

/* Runs |script| on database |file| with another program (Python's
 * sqlite3), as another writer of the same database would. */
function other(file, script) {
	execFileSync('python3', ['-c', 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.close()',
	    file, script]);
}

describe('what a call reads', () => {
	test('is the database as it is now: changed, its schema changed, or replaced by another file', async () => {
		const file = await newDb();
		other(file, 'CREATE TABLE t(a); INSERT INTO t VALUES (1);');
		const { uid, gid } = serverIds();
		await fsp.chown(file, uid, gid);
		const srv = await start([`database main ${file} read-write`]);
		try {
			assert.deepEqual(await rows(srv, 'SELECT a FROM t'), [[1]]);
			other(file, 'INSERT INTO t VALUES (2);');
			assert.deepEqual(await rows(srv, 'SELECT a FROM t ORDER BY a'), [[1], [2]]);
			other(file, 'ALTER TABLE t ADD COLUMN b DEFAULT 7; CREATE TABLE u(x);');
			assert.deepEqual(await rows(srv, 'SELECT a, b FROM t ORDER BY a'), [[1, 7], [2, 7]]);
			/* Another file renamed over it: a new inode. */
			const fresh = `${file}.new`;
			other(fresh, 'CREATE TABLE t(a); INSERT INTO t VALUES (42);');
			await fsp.chown(fresh, uid, gid);
			await fsp.rename(fresh, file);
			assert.deepEqual(await rows(srv, 'SELECT a FROM t'), [[42]]);
			await ok(srv, 'execute', { database: 'main', sql: 'INSERT INTO t VALUES (43)' });
			execFileSync('python3', ['-c', 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])', file]);
			assert.deepEqual(await rows(srv, 'SELECT a FROM t ORDER BY a'), [[42], [43]]);
			/* In WAL mode now, by the other program. */
			other(file, 'PRAGMA journal_mode=WAL; INSERT INTO t VALUES (44);');
			await ok(srv, 'execute', { database: 'main', sql: 'INSERT INTO t VALUES (45)' });
			assert.deepEqual(await rows(srv, 'SELECT a FROM t ORDER BY a'), [[42], [43], [44], [45]]);
			const check = execFileSync('python3', ['-c',
			    'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute("PRAGMA integrity_check").fetchone()[0], c.execute("SELECT count(*) FROM t").fetchone()[0])',
			    file]).toString().trim();
			assert.equal(check, 'ok 4');
		} finally {
			await srv.close();
		}
	});
});
