// sqlite-attacks.test.mjs: the known ways around an SQLite server's
// read-only mode and confinement, each tried end to end with the official
// MCP client through toolcell-sqlite.  Each attack is a row of a table
// that says which line stops it:
//
//   kind    sq_kind_of(), in the server before any fork: the call is
//           refused with the word and why, and nothing runs;
//   guard   the child's connection (sqlite_conn.c): its authorizer,
//           limits, deadline, trusted_schema off, read-only open;
//   sqlite  SQLite itself, on a damaged or crafted file: a clear error,
//           and the server keeps serving.
//
// Every row then checks from outside that nothing happened: the tables
// keep their rows, no file appeared where an ATTACH or VACUUM INTO would
// have made one, and no response carries a secret that only a file
// outside the policy's databases holds (the child's Landlock rights reach
// only its databases' directories; SQL gets no nearer to them than the
// guard lets it), nor does a journal that is a link to such a file take a
// byte.  The hostile databases are made by the server itself,
// then crafted by changing bytes of their schema text in place (a view
// that calls "lxad_extension" becomes one that calls load_extension).
//
// With TOOLCELL_AS=nobody the server runs as nobody; the databases and
// their directories are then nobody's.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, call, makeScratch, secretToken, serverIds, startServer, textOf, transcript,
} from './lib.mjs';

const SQLITE = path.join(BUILD, 'toolcell-sqlite');

const scratch = await makeScratch('sqlite-attacks');
after(() => scratch.cleanup());

const SECRET = secretToken();
const files = {};

/* A new directory of the server's user; returns its path. */
async function ownedDir(stem) {
	const dir = scratch.unique(stem);
	await fsp.mkdir(dir);
	const { uid, gid } = serverIds();
	await fsp.chown(dir, uid, gid);
	return dir;
}

/* An empty file (an empty SQLite database) in |dir|, the server's user's. */
async function emptyDb(dir, name) {
	const file = path.join(dir, name);
	await fsp.writeFile(file, '');
	const { uid, gid } = serverIds();
	await fsp.chown(file, uid, gid);
	return file;
}

/* Copies |from| to |to|, the copy the server's user's. */
async function copyDb(from, to) {
	await fsp.copyFile(from, to);
	const { uid, gid } = serverIds();
	await fsp.chown(to, uid, gid);
	return to;
}

/* Replaces |from| by |to| (the same length) everywhere in |file|. */
async function patch(file, pairs) {
	const buf = await fsp.readFile(file);
	for (const [from, to] of pairs) {
		assert.equal(from.length, to.length);
		let at = buf.indexOf(from);
		assert.notEqual(at, -1, `${from} is not in ${file}`);
		for (; at !== -1; at = buf.indexOf(from, at + 1))
			buf.write(to, at);
	}
	await fsp.writeFile(file, buf);
}

function start(lines) {
	return scratch.policy(['[sqlite]', ...lines])
	    .then((p) => startServer(['--policy', p], { server: SQLITE }));
}

/* Runs a call; returns {error, text}, a protocol error counted as one. */
async function outcome(srv, tool, args) {
	try {
		const r = await call(srv, tool, args);
		return { error: r.isError === true, text: textOf(r), result: r };
	} catch (e) {
		return { error: true, text: String(e.message), thrown: true };
	}
}

async function count(srv, db, table) {
	const r = await call(srv, 'query', { database: db, sql: `SELECT count(*) AS n FROM ${table}` });
	assert.notEqual(r.isError, true, textOf(r));
	return Number(r.structuredContent.rows[0][0] ?? r.structuredContent.rows[0].n);
}

const MAIN_SCHEMA = `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE log (msg TEXT);
WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 1000)
  INSERT INTO t SELECT n, 'row ' || n FROM c;
CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('inserted ' || new.id); END;
CREATE VIEW tv AS SELECT * FROM t`;

/* Spelled so that sq_kind_of() lets the server make them; patch() then
 * gives each the name of a function that must never run. */
const HOSTILE_SCHEMA = `CREATE TABLE h (a); CREATE TABLE h2 (a);
CREATE VIEW lv AS SELECT lxad_extension('/nonexistent.so') AS x;
CREATE VIEW fv AS SELECT fts3_tokenizeq('simple') AS p;
CREATE TRIGGER h_t AFTER INSERT ON h BEGIN SELECT lxad_extension('/nonexistent.so'); END;
CREATE TRIGGER h2_t AFTER INSERT ON h2 BEGIN SELECT fts3_tokenizeq('simple', x'00'); END`;

let srv;

before(async () => {
	const dir = await ownedDir('db');
	const other = await ownedDir('db');
	const outside = await ownedDir('outside');
	files.dir = dir;
	files.outside = outside;
	files.main = await emptyDb(dir, 'main.db');
	files.hostile = await emptyDb(dir, 'hostile.db');
	files.bad = await emptyDb(other, 'badschema.db');
	// The outside directory: a database and a text file the policy does
	// not name, each with the secret, readable by the server's user.
	files.secretDb = await emptyDb(outside, 'secret.db');
	files.secretTxt = path.join(outside, 'secret.txt');
	await fsp.writeFile(files.secretTxt, `${SECRET}\n`);

	const maker = await start([
		`database main ${files.main} read-write`,
		`database hostile ${files.hostile} read-write`,
		`database bad ${files.bad} read-write`,
		`database secret ${files.secretDb} read-write`,
	]);
	try {
		for (const [db, sql] of [['main', MAIN_SCHEMA], ['hostile', HOSTILE_SCHEMA],
		    ['bad', 'CREATE TABLE ok (a); CREATE TABLE bad (a)'],
		    ['secret', `CREATE TABLE s (v); INSERT INTO s VALUES ('${SECRET}')`]]) {
			const r = await call(maker, 'execute', { database: db, sql });
			assert.notEqual(r.isError, true, `${db}: ${textOf(r)}`);
		}
	} finally {
		await maker.close();
	}
	await patch(files.hostile, [['lxad_extension', 'load_extension'],
	    ['fts3_tokenizeq', 'fts3_tokenizer']]);
	await patch(files.bad, [['CREATE TABLE bad', 'CREATE TABLX bad']]);
	files.ro = await copyDb(files.main, path.join(other, 'ro.db'));
	files.slow = await copyDb(files.main, path.join(other, 'slow.db'));
	files.corrupt = await copyDb(files.main, path.join(other, 'corrupt.db'));
	const fh = await fsp.open(files.corrupt, 'r+');
	await fh.write(Buffer.alloc(8192, 0x5a), 0, 8192, 4096);
	await fh.close();
	// A journal that is a link to the secret file outside.
	const jdir = await ownedDir('db');
	files.journal = await copyDb(files.main, path.join(jdir, 'j.db'));
	await fsp.symlink(files.secretTxt, path.join(jdir, 'j.db-journal'));
	// Empty at start, which refuses a file that is no database; filled
	// once the server runs.
	files.notadb = path.join(other, 'notadb');
	await fsp.writeFile(files.notadb, '');
	const { uid, gid } = serverIds();
	await fsp.chown(files.notadb, uid, gid);

	srv = await start([
		`database main ${files.main} read-write`,
		`database ro ${files.ro} read-only`,
		`database hostile ${files.hostile} read-write`,
		`database bad ${files.bad} read-only`,
		`database corrupt ${files.corrupt} read-only`,
		`database notadb ${files.notadb} read-only`,
		`database slow ${files.slow} read-only time 1s`,
		`database journal ${files.journal} read-write`,
	]);
	await fsp.writeFile(files.notadb, 'root:x:0:0:root:/root:/bin/sh\n');
});

after(async () => {
	await srv?.close();
});

const made = (name) => () => path.join(files.dir, name);
const outsideFile = (name) => () => path.join(files.outside, name);

/*
 * The attacks.  |sql| may be a function of the files; |absent| names
 * files that must not exist afterwards.
 */
const ATTACKS = [
	// ATTACH (ANCHORS-SANDBOX 34; the official server's prefix check)
	{ what: 'ATTACH a new file', line: 'kind', tool: 'execute', db: 'main',
	    sql: () => `ATTACH '${files.dir}/new.db' AS n`, expect: /ATTACH is never run here/,
	    absent: [made('new.db')] },
	{ what: 'ATTACH /etc/passwd', line: 'kind', tool: 'query', db: 'ro',
	    sql: "ATTACH '/etc/passwd' AS p", expect: /ATTACH is never run here/ },
	{ what: 'ATTACH a database outside the policy', line: 'kind', tool: 'execute', db: 'main',
	    sql: () => `ATTACH '${files.secretDb}' AS s; SELECT * FROM s.s`,
	    expect: /ATTACH is never run here/ },
	{ what: 'ATTACH a URI that would create', line: 'kind', tool: 'execute', db: 'main',
	    sql: () => `ATTACH 'file:${files.outside}/made.db?mode=rwc' AS m`,
	    expect: /ATTACH is never run here/, absent: [outsideFile('made.db')] },
	{ what: 'DETACH', line: 'kind', tool: 'execute', db: 'main', sql: 'DETACH main',
	    expect: /DETACH is never run here/ },
	// VACUUM INTO (35), from the read-only tool and from execute
	{ what: 'VACUUM INTO from query', line: 'kind', tool: 'query', db: 'ro',
	    sql: () => `VACUUM INTO '${files.outside}/copy.db'`, expect: /VACUUM is never run here/,
	    absent: [outsideFile('copy.db')] },
	{ what: 'VACUUM INTO from execute', line: 'kind', tool: 'execute', db: 'main',
	    sql: () => `VACUUM INTO '${files.dir}/copy.db'`, expect: /VACUUM is never run here/,
	    absent: [made('copy.db')] },
	// load_extension() (36) and DBHub #377's escape-hatch functions
	{ what: 'load_extension()', line: 'kind', tool: 'query', db: 'ro',
	    sql: "SELECT load_extension('/tmp/x.so')", expect: /load_extension\(\) is never run here/ },
	{ what: 'load_extension() by a quoted name', line: 'kind', tool: 'query', db: 'ro',
	    sql: "SELECT [load_extension]('/tmp/x.so', 'init')",
	    expect: /load_extension\(\) is never run here/ },
	{ what: 'fts3_tokenizer()', line: 'kind', tool: 'query', db: 'ro',
	    sql: "SELECT hex(fts3_tokenizer('simple'))", expect: /fts3_tokenizer\(\) is never run here/ },
	{ what: 'readfile() of a file outside', line: 'kind', tool: 'query', db: 'ro',
	    sql: () => `SELECT readfile('${files.secretTxt}')`, expect: /readfile\(\) is never run here/ },
	// PRAGMA tricks (37), alone and inside a batch
	{ what: 'PRAGMA writable_schema', line: 'kind', tool: 'execute', db: 'main',
	    sql: "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE t (x)' WHERE name = 't'",
	    expect: /PRAGMA writable_schema = \.\.\.' sets a value/ },
	{ what: 'PRAGMA journal_mode=OFF', line: 'kind', tool: 'execute', db: 'main',
	    sql: 'PRAGMA journal_mode=OFF; DELETE FROM t', expect: /sets a value/ },
	{ what: 'PRAGMA query_only=OFF inside a batch (DBHub)', line: 'kind', tool: 'execute',
	    db: 'main', sql: 'SELECT 1; PRAGMA query_only=OFF; DELETE FROM t',
	    expect: /statement 2: 'PRAGMA query_only = \.\.\.' sets a value/ },
	{ what: 'PRAGMA query_only=OFF from query', line: 'kind', tool: 'query', db: 'ro',
	    sql: 'PRAGMA query_only=OFF', expect: /sets a value/ },
	{ what: 'PRAGMA temp_store_directory', line: 'kind', tool: 'execute', db: 'main',
	    sql: () => `PRAGMA temp_store_directory = '${files.outside}'`, expect: /sets a value/ },
	{ what: 'PRAGMA mmap_size', line: 'kind', tool: 'query', db: 'ro', sql: 'PRAGMA mmap_size',
	    expect: /not one that runs here/ },
	// a read that is not one
	{ what: 'WITH x AS (...) DELETE from query (DBHub #271)', line: 'kind', tool: 'query',
	    db: 'main', sql: 'WITH x AS (SELECT 1) DELETE FROM t', expect: /would change data/ },
	{ what: 'INSERT ... RETURNING from query', line: 'kind', tool: 'query', db: 'main',
	    sql: "INSERT INTO t (name) VALUES ('x') RETURNING id", expect: /would change data/ },
	{ what: 'UPSERT from query', line: 'kind', tool: 'query', db: 'main',
	    sql: "INSERT INTO t VALUES (1, 'x') ON CONFLICT DO UPDATE SET name = 'y'",
	    expect: /would change data/ },
	{ what: 'a TCL variable hiding a DELETE from query', line: 'kind', tool: 'query', db: 'main',
	    sql: "SELECT $a('x) ; DELETE FROM t; --'", expect: /runs one statement|would change data/ },
	{ what: 'an empty statement (DBHub #283)', line: 'kind', tool: 'query', db: 'main',
	    sql: '/*!DELETE FROM t*/', expect: /no statement/ },
	{ what: 'a write to a read-only database', line: 'kind', tool: 'execute', db: 'ro',
	    sql: 'DELETE FROM t', expect: /read-only/ },
	// the file's own schema (37, 40): the guard in the child
	{ what: 'a view calling load_extension()', line: 'guard', tool: 'query', db: 'hostile',
	    sql: 'SELECT * FROM lv', expect: /unsafe use of load_extension\(\)/ },
	{ what: 'a view calling fts3_tokenizer()', line: 'guard', tool: 'query', db: 'hostile',
	    sql: 'SELECT * FROM fv', expect: /unsafe use of fts3_tokenizer\(\)|fts3_tokenizer\(\) is never run/ },
	{ what: 'a trigger calling load_extension(), fired by an allowed write', line: 'guard',
	    tool: 'execute', db: 'hostile', sql: 'INSERT INTO h VALUES (1)',
	    expect: /load_extension\(\) is never run here: .* \(in trigger h_t\)|unsafe use of load_extension\(\)/ },
	{ what: 'a trigger calling fts3_tokenizer(), fired by an allowed write', line: 'guard',
	    tool: 'execute', db: 'hostile', sql: 'INSERT INTO h2 VALUES (1)',
	    expect: /unsafe use of fts3_tokenizer\(\)|fts3_tokenizer\(\) is never run/ },
	{ what: 'a malformed sqlite_schema row', line: 'sqlite', tool: 'query', db: 'bad',
	    sql: 'SELECT * FROM ok', expect: /malformed database schema/ },
	{ what: 'a corrupt database file', line: 'sqlite', tool: 'query', db: 'corrupt',
	    sql: 'SELECT count(*), max(length(name)) FROM t', expect: /malformed|damaged|not a database/ },
	{ what: 'a journal that is a link to a file outside', line: 'sqlite', tool: 'execute',
	    db: 'journal', sql: "INSERT INTO t (name) VALUES ('x')", expect: /unable to open|I\/O/,
	    secretSame: true },
	{ what: 'a file that is no database', line: 'sqlite', tool: 'query', db: 'notadb',
	    sql: 'SELECT * FROM sqlite_schema', expect: /not a database/ },
	// blow-ups (39): the deadline and the limits, in the child
	{ what: 'a recursive CTE without LIMIT', line: 'guard', tool: 'query', db: 'slow',
	    sql: 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c',
	    expect: /time limit|interrupted|timed out/i },
	{ what: 'a huge cross join', line: 'guard', tool: 'query', db: 'slow',
	    sql: 'SELECT count(*) FROM t a, t b, t c, t d, t e', expect: /time limit|interrupted|timed out/i },
	{ what: 'zeroblob(1e9)', line: 'guard', tool: 'query', db: 'ro',
	    sql: 'SELECT zeroblob(1000000000)', expect: /too big|limited to/ },
	{ what: 'a string doubled without end', line: 'guard', tool: 'query', db: 'ro',
	    sql: "WITH RECURSIVE c(s) AS (SELECT 'xxxxxxxxxxxxxxxx' UNION ALL SELECT s || s FROM c) SELECT length(s) FROM c",
	    expect: /too big|limited to/ },
];

describe('known bypasses, end to end', () => {
	for (const a of ATTACKS) {
		test(`${a.what}: stopped by the ${a.line}`, async () => {
			const sql = typeof a.sql === 'function' ? a.sql() : a.sql;
			const r = await outcome(srv, a.tool, { database: a.db, sql });
			assert.equal(r.error, true, `not refused: ${r.text}`);
			assert.match(r.text, a.expect);
			assert.doesNotMatch(r.text, new RegExp(SECRET));
			if (a.secretSame)
				assert.equal(await fsp.readFile(files.secretTxt, 'utf8'), `${SECRET}\n`);
			for (const f of a.absent ?? [])
				assert.equal(existsSync(f()), false, `${f()} was made`);
			// Nothing changed, and the server still serves.
			assert.equal(await count(srv, 'main', 't'), 1000);
			assert.equal(await count(srv, 'main', 'log'), 0);
		});
	}

	test('what a kind allows still runs: a read reads, a write fires its trigger', async () => {
		for (const [tool, db, sql] of [['query', 'ro', 'SELECT count(*) FROM tv'],
		    ['query', 'ro', 'PRAGMA table_info(t)'],
		    ['query', 'ro', "SELECT * FROM pragma_table_info('t')"],
		    ['execute', 'hostile', 'CREATE TABLE ok (a); INSERT INTO ok VALUES (1)'],
		    ['execute', 'main', "INSERT INTO t (name) VALUES ('new') RETURNING id"]]) {
			const r = await outcome(srv, tool, { database: db, sql });
			assert.equal(r.error, false, `${sql}: ${r.text}`);
		}
		assert.equal(await count(srv, 'main', 't'), 1001);
		assert.equal(await count(srv, 'main', 'log'), 1);
	});

	test('no response carried a secret from outside the databases', () => {
		assert.doesNotMatch(transcript(srv), new RegExp(SECRET));
	});
});
