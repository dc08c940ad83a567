// sqlite.test.mjs: toolcell-sqlite end to end with the official MCP client:
// every tool (list_databases, list_tables, describe_table, query, execute,
// explain_query), what the model is told, the annotations, the [sqlite]
// section's checks at start, typed params, NULL against the text 'NULL',
// exact big integers, blobs, paging with a cursor bound to its query, the
// row and byte caps with an exact truncated flag, execute's transaction (a
// failing statement rolls back those before it), execute refused on a
// read-only database, a name in describe_table that is no injection, the
// call's time limit, the consent subjects and the audit log, the schema
// resource, and two servers writing one database.
// The bypass table (ATTACH, VACUUM INTO, load_extension, PRAGMAs ...) is
// sqlite-attacks.test.mjs's.
//
// With TOOLCELL_AS=nobody the server runs as nobody; the databases and
// their directories are then nobody's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	BUILD, CALL_TIMEOUT, call, logRecords, makeScratch, runServer, serverIds, startServer, textOf,
} from './lib.mjs';

const SQLITE = path.join(BUILD, 'toolcell-sqlite');
const TOOLS = ['list_databases', 'list_tables', 'describe_table', 'query', 'execute',
    'explain_query'];

const scratch = await makeScratch('sqlite');

after(() => scratch.cleanup());

const newDb = scratch.sqliteDb;

/* A policy with |more| lines first, then [sqlite] and |dbs| lines. */
function policy(dbs, more = []) {
	return scratch.policy([...more, '[sqlite]', ...dbs]);
}

function start(p, opts = {}) {
	return startServer(['--policy', p], { server: SQLITE, ...opts });
}

/* Calls |name| and returns the result, which must not be an error. */
async function ok(srv, name, args) {
	const r = await call(srv, name, args);
	assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
	return r;
}

/* Calls |name| and returns the error's text, which must match |re|. */
async function refused(srv, name, args, re) {
	const r = await call(srv, name, args);
	assert.equal(r.isError, true, `${name} was not refused: ${JSON.stringify(r)}`);
	if (re)
		assert.match(textOf(r), re);
	return textOf(r);
}

/* Rows of |sql| on database |db|. */
async function rows(srv, sql, params, db = 'main') {
	const r = await ok(srv, 'query', { database: db, sql, ...(params ? { params } : {}) });
	return r.structuredContent.rows;
}

const SCHEMA = `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', v REAL, b BLOB);
CREATE TABLE child(id INTEGER PRIMARY KEY, t_id INTEGER REFERENCES t(id) ON DELETE CASCADE);
CREATE INDEX child_t ON child(t_id);
CREATE UNIQUE INDEX t_name_v ON t(name, v);
CREATE VIEW named AS SELECT id, name FROM t WHERE name IS NOT NULL;
CREATE TRIGGER t_log AFTER DELETE ON t BEGIN DELETE FROM child WHERE t_id = old.id; END`;

describe('the server', () => {
	test('tools, annotations and instructions; execute only with a read-write database', async () => {
		const file = await newDb();
		const srv = await start(await policy([`database main ${file} read-write`]));
		try {
			const { tools } = await srv.client.listTools();
			assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
			for (const t of tools) {
				if (t.name === 'execute') {
					assert.equal(t.annotations.readOnlyHint, false, t.name);
					assert.equal(t.annotations.destructiveHint, true, t.name);
				} else
					assert.equal(t.annotations.readOnlyHint, true, t.name);
				assert.ok(t.outputSchema, `${t.name} has an output schema`);
			}
			const q = tools.find((t) => t.name === 'query');
			assert.equal(q.inputSchema.properties.params.type, 'array');
			assert.match(JSON.stringify(q.outputSchema), /beyond \+-2\^53/);
			assert.match(srv.initResult.instructions, /main \(read-write/);
		} finally {
			await srv.close();
		}
		const ro = await start(await policy([`database main ${file}`, `database other ${await newDb()} read-only`]));
		try {
			const { tools } = await ro.client.listTools();
			assert.ok(!tools.some((t) => t.name === 'execute'), 'execute offered with no read-write database');
			await assert.rejects(call(ro, 'execute', { database: 'main', sql: 'CREATE TABLE x(a)' }),
			    /not offered: every database is read-only/);
			assert.match(ro.initResult.instructions, /main \(read-only.*other \(read-only/);
		} finally {
			await ro.close();
		}
	});

	test('--check shows each database, its resolved path, mode and limits', async () => {
		const file = await newDb();
		const r = await runServer(['--policy', await policy([
			`database main ${path.dirname(file)}/../${path.basename(path.dirname(file))}/app.db read-write rows 50 bytes 64K time 2s`,
		]), '--check'], SQLITE);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, new RegExp(`main  ${file}  read-write  rows 50  bytes 64K  time 2s`));
	});

	test('--print-config: the entry on stdout, the databases it serves on stderr', async () => {
		const file = await newDb();
		const other = await newDb('other.db');
		const p = await policy([`database main ${file} read-write rows 50 bytes 64K time 2s`,
		    `database other ${other}`]);
		const r = await runServer(['--print-config', 'cursor', '--policy', p], SQLITE);
		assert.equal(r.status, 0, r.stderr);
		assert.deepEqual(JSON.parse(r.stdout).mcpServers['toolcell-sqlite'].args, ['--policy', p]);
		// The lines --check shows, under one that names the policy.
		assert.match(r.stderr, new RegExp(`^toolcell-sqlite: the entry serves what ${p} names:\n`));
		assert.match(r.stderr, new RegExp(`^  main  ${file}  read-write  rows 50  bytes 64K  time 2s  \\(line 2\\)$`, 'm'));
		assert.match(r.stderr, new RegExp(`^  other  ${other}  read-only  rows 1000  bytes 1M  time 10s  \\(line 3\\)$`, 'm'));
	});

	test('--print-config prints no entry for a policy the server would refuse', async () => {
		const file = await newDb();
		const bad = await runServer(['--print-config', 'cursor', '--policy',
		    await policy([`database main ${path.dirname(file)}/missing.db`])], SQLITE);
		assert.equal(bad.status, 1, bad.stderr);
		assert.equal(bad.stdout, '');
		assert.match(bad.stderr, /missing\.db: no such file/);
		assert.match(bad.stderr, /1 error: no entry printed/);
		for (const args of [['--policy', await policy([])], []]) {
			const none = await runServer(['--print-config', 'cursor', ...args], SQLITE);
			assert.equal(none.status, 2, none.stderr);
			assert.equal(none.stdout, '');
			assert.match(none.stderr, /no databases to serve/);
		}
	});

	test('a database line is checked at start: a name, an existing regular file, no symbolic link', async () => {
		const file = await newDb();
		const link = path.join(path.dirname(file), 'link.db');
		await fsp.symlink(file, link);
		const text = path.join(path.dirname(file), 'notes.txt');
		await fsp.writeFile(text, 'root:x:0:0:root:/root:/bin/sh\n');
		const cases = [
			[`database main ${text}`, new RegExp(`database main: ${text}: is not an SQLite database \\(it does not begin with "SQLite format 3"\\)`)],
			[`database main ${path.dirname(file)}/missing.db`, /no such file.*makes no database/],
			[`database main ${link}`, /symbolic link/],
			[`database main ${path.dirname(file)}`, /not a regular file/],
			[`database 1x ${file}`, /a name is a letter/],
			[`database main relative.db`, /absolute/],
			[`database main ${file} rows 0`, /rows/],
			[`database main ${file} sideways`, /unexpected 'sideways'/],
		];
		for (const [line, re] of cases) {
			const r = await runServer(['--policy', await policy([line]), '--check'], SQLITE);
			assert.notEqual(r.status, 0, line);
			assert.match(r.stderr, re, line);
		}
		const r = await runServer(['--policy', await policy([`database a ${file}`, `database b ${file}`]),
		    '--check'], SQLITE);
		assert.match(r.stderr, /already database 'a'/);
		const none = await runServer(['--policy', await policy([])], SQLITE);
		assert.equal(none.status, 2);
		assert.match(none.stderr, /no databases to serve/);
	});
});

describe('no directories', () => {
	// Claude Code declares roots and answers with its working directory:
	// the server serves files its section names, so it does not ask, and
	// neither waits for the answer nor warns that none of them is served.
	test('a client with roots is never asked for them, and nothing is said of them', async () => {
		const file = await newDb();
		let asked = 0;
		const srv = await start(await policy([`database main ${file}`]), {
			capabilities: { roots: { listChanged: true } },
			handlers: [[ListRootsRequestSchema, () => {
				asked++;
				return { roots: [{ uri: 'file:///nowhere' }] };
			}]],
		});
		try {
			await ok(srv, 'query', { database: 'main', sql: 'SELECT 1' });
			await srv.client.sendRootsListChanged();
			await ok(srv, 'query', { database: 'main', sql: 'SELECT 2' });
			assert.equal(asked, 0, 'roots/list was sent');
			assert.doesNotMatch(srv.stderr(), /roots|served/);
		} finally {
			await srv.close();
		}
	});

	test('--check shows no directories, deny rules, network or roots', async () => {
		const file = await newDb();
		const r = await runServer(['--policy', await policy([`database main ${file}`]), '--check'], SQLITE);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^databases:$/m);
		assert.match(r.stdout, /^limits per call:$/m);
		for (const gone of [/^directories:/m, /^deny/m, /\*\*\/\.ssh/, /^network:/m, /^roots-timeout:/m, /^roots:/m])
			assert.doesNotMatch(r.stdout, gone);
	});
});

describe('small things a new user met', () => {
	test('--help says --policy gives the databases', async () => {
		const r = await runServer(['--help'], SQLITE);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stderr, /-p, --policy FILE\s+the databases and limits of policy FILE;/);
	});

	test('a database gone since the start is named by its path', async () => {
		const file = await newDb();
		const srv = await start(await policy([`database gone ${file}`]));
		try {
			await fsp.rm(file);
			await refused(srv, 'query', { database: 'gone', sql: 'SELECT 1' },
			    new RegExp(`^database 'gone': ${file}: No such file or directory`));
		} finally {
			await srv.close();
		}
	});

	test('"no such table" names the tables and the tools that list them; "no such column" describe_table', async () => {
		const file = await newDb();
		const srv = await start(await policy([`database main ${file} read-write`]));
		try {
			await refused(srv, 'query', { database: 'main', sql: 'SELECT * FROM users' },
			    /^no such table: users; the database has no tables or views$/);
			await ok(srv, 'execute', { database: 'main',
			    sql: 'CREATE TABLE orders(id, total); CREATE TABLE "it\'s"(a); CREATE VIEW big AS SELECT * FROM orders' });
			const TOOLS = '(list_tables lists them, describe_table gives a table\'s columns)';
			for (const [tool, sql] of [['query', 'SELECT * FROM users'],
			    ['explain_query', 'SELECT * FROM main.users'], ['execute', 'SELECT * FROM users']])
				assert.equal(await refused(srv, tool, { database: 'main', sql }),
				    `no such table: ${/main\./.test(sql) ? 'main.' : ''}users; the tables and views are `
				    + `'big', 'it's', 'orders' ${TOOLS}`);
			// In execute's transaction, which the failure rolls back
			// with the tables made before it, no names: the tools.
			const t = await refused(srv, 'execute', { database: 'main',
			    sql: 'CREATE TABLE made(a); INSERT INTO users VALUES (1)' });
			assert.match(t, /^no such table: users; list_tables lists the tables and views, describe_table gives a table's columns \(statement 2 of the SQL; nothing was changed/);
			// At most 20 names, then "and more".
			await ok(srv, 'execute', { database: 'main',
			    sql: Array.from({ length: 25 }, (_, i) => `CREATE TABLE t${String(i).padStart(2, '0')}(a);`).join('') });
			assert.match(await refused(srv, 'query', { database: 'main', sql: 'SELECT * FROM users' }),
			    /^no such table: users; the tables and views are 'big', 'it's', 'orders', 't00', .*, 't16' and more \(list_tables/);
			// A column: describe_table, and what double quotes mean here.
			assert.equal(await refused(srv, 'query', { database: 'main', sql: 'SELECT nosuch FROM orders' }),
			    "no such column: nosuch; describe_table gives a table's columns, and \"text\" in double "
			    + 'quotes is a name: a string takes single quotes');
			// Other errors keep SQLite's words alone.
			assert.equal(await refused(srv, 'query', { database: 'main', sql: 'SELECT FROM' }),
			    'near "FROM": syntax error');
		} finally {
			await srv.close();
		}
	});

	test('explain_query takes a statement given with its own EXPLAIN [QUERY PLAN], still checked', async () => {
		const file = await newDb();
		const srv = await start(await policy([`database main ${file} read-write`]));
		try {
			await ok(srv, 'execute', { database: 'main', sql: 'CREATE TABLE t(id INTEGER PRIMARY KEY, a)' });
			const want = (await ok(srv, 'explain_query', { database: 'main', sql: 'SELECT a FROM t WHERE id = 1' }))
			    .structuredContent;
			for (const sql of ['EXPLAIN QUERY PLAN SELECT a FROM t WHERE id = 1',
			    'explain query plan SELECT a FROM t WHERE id = 1',
			    '  /* why */ Explain -- the plan\n Query\tPLAN SELECT a FROM t WHERE id = 1;',
			    'EXPLAIN SELECT a FROM t WHERE id = 1'])
				assert.deepEqual((await ok(srv, 'explain_query', { database: 'main', sql })).structuredContent,
				    want, sql);
			// One is taken off, no more; what is left is one statement.
			await refused(srv, 'explain_query', { database: 'main', sql: 'EXPLAIN EXPLAIN SELECT 1' },
			    /'EXPLAIN' does not begin an SQL statement/);
			await refused(srv, 'explain_query', { database: 'main', sql: 'EXPLAIN QUERY PLAN SELECT 1; SELECT 2' },
			    /one statement/);
			// A write is still only planned, never run.
			await ok(srv, 'explain_query', { database: 'main', sql: 'EXPLAIN QUERY PLAN DELETE FROM t' });
			await ok(srv, 'execute', { database: 'main', sql: 'INSERT INTO t VALUES (1, 2)' });
			await ok(srv, 'explain_query', { database: 'main', sql: 'EXPLAIN DELETE FROM t' });
			assert.deepEqual(await rows(srv, 'SELECT count(*) FROM t'), [[1]]);
		} finally {
			await srv.close();
		}
		// A read-only database: a write under EXPLAIN is refused before
		// any fork, as without it.
		const ro = await start(await policy([`database main ${file}`]));
		try {
			await refused(ro, 'explain_query', { database: 'main', sql: 'EXPLAIN QUERY PLAN DELETE FROM t' },
			    /read-only/);
		} finally {
			await ro.close();
		}
	});
});

describe('one policy file for the three servers', () => {
	// The README's layout: shared allow lines first, then each server's
	// section.  The allow lines are the others'; only a file of
	// toolcell-sqlite's own is warned that they give it nothing.
	test('allow lines warn in a file of its own, not in a file with other sections', async () => {
		const file = await newDb();
		const dir = path.dirname(file);
		const shared = await scratch.policy([`allow read ${dir}`, '[shell]', 'program true',
		    '[sqlite]', `database main ${file}`]);
		const r = await runServer(['--policy', shared, '--check'], SQLITE);
		assert.equal(r.status, 0, r.stderr);
		assert.doesNotMatch(r.stderr, /warning/);
		const own = await policy([`database main ${file}`], [`allow read ${dir}`]);
		const w = await runServer(['--policy', own, '--check'], SQLITE);
		assert.equal(w.status, 0, w.stderr);
		assert.match(w.stderr, new RegExp(`warning: ${own}:1: allow ${dir}: toolcell-sqlite reaches only the directories of its databases`));
	});
});

describe('a read-write database calls cannot write', () => {
	// Calls run without capabilities, so a directory or file without its
	// owner's write bit is one they cannot write, whether the server runs
	// as root, as nobody (TOOLCELL_AS) or as a normal user.
	test('--check and a start refuse it, naming the directory where the journal goes', async () => {
		const file = await newDb();
		const dir = path.dirname(file);
		const p = await policy([`database main ${file} read-write`]);
		await fsp.chmod(dir, 0o555);
		try {
			for (const args of [['--check'], []]) {
				const r = await runServer(['--policy', p, ...args], SQLITE);
				assert.equal(r.status, 1, r.stderr);
				assert.equal(r.stdout, '');
				assert.match(r.stderr, new RegExp(`${p}:2: database main: ${file}: read-write, but calls, which run as uid ${serverIds().uid} without privileges, cannot write in its directory ${dir} \\(Permission denied\\), where SQLite makes the database's journal and WAL files`));
			}
			// Read-only, the same database is served.
			const ro = await runServer(['--policy', await policy([`database main ${file}`]), '--check'], SQLITE);
			assert.equal(ro.status, 0, ro.stderr);
		} finally {
			await fsp.chmod(dir, 0o755);
		}
		await fsp.chmod(file, 0o444);
		try {
			const r = await runServer(['--policy', p, '--check'], SQLITE);
			assert.equal(r.status, 1, r.stderr);
			assert.match(r.stderr, /database main: .*: read-write, but calls, .* cannot write the file \(Permission denied\): make it writable/);
		} finally {
			await fsp.chmod(file, 0o644);
		}
	});

	test('a directory made read-only after the start: execute names it', async () => {
		const file = await newDb();
		const dir = path.dirname(file);
		const srv = await start(await policy([`database main ${file} read-write`]));
		try {
			await ok(srv, 'execute', { database: 'main', sql: 'CREATE TABLE t(a)' });
			await fsp.chmod(dir, 0o555);
			await refused(srv, 'execute', { database: 'main', sql: 'INSERT INTO t VALUES (1)' },
			    new RegExp(`attempt to write a readonly database: its directory '${dir}' cannot be written by the user calls run as, and SQLite makes the database's journal there`));
			await fsp.chmod(dir, 0o755);
			await ok(srv, 'execute', { database: 'main', sql: 'INSERT INTO t VALUES (1)' });
		} finally {
			await fsp.chmod(dir, 0o755);
			await srv.close();
		}
	});
});

describe('the tools', () => {
	let srv, file;

	test('execute builds a schema; list_tables, describe_table and the resource see it', async () => {
		file = await newDb();
		srv = await start(await policy([`database main ${file} read-write rows 5`]));
		const e = await ok(srv, 'execute', { database: 'main', sql: SCHEMA });
		assert.equal(e.structuredContent.statements, 6);
		await ok(srv, 'execute', {
			database: 'main',
			sql: 'INSERT INTO t(name, v) VALUES (?, ?), (?, ?); INSERT INTO child(t_id) VALUES (?)',
			params: ['a', 1.5, 'b', 2, 1],
		});

		const lt = await ok(srv, 'list_tables', { database: 'main' });
		assert.deepEqual(lt.structuredContent.tables.map((x) => [x.name, x.type, x.rows, x.rows_from]),
		    [['child', 'table', 1, 'count'], ['named', 'view', null, undefined], ['t', 'table', 2, 'count']]);
		// After ANALYZE, the estimate is sqlite_stat1's (which is not listed).
		await ok(srv, 'execute', { database: 'main', sql: 'ANALYZE' });
		const st = await ok(srv, 'list_tables', { database: 'main' });
		assert.deepEqual(st.structuredContent.tables.map((x) => [x.name, x.rows, x.rows_from]),
		    [['child', 1, 'sqlite_stat1'], ['named', null, undefined], ['t', 2, 'sqlite_stat1']]);
		assert.match(textOf(st), /^table t \(about 2 rows\)$/m);

		const d = (await ok(srv, 'describe_table', { database: 'main', table: 't' })).structuredContent;
		assert.deepEqual(d.columns.map((c) => [c.name, c.type, c.notnull, c.pk]),
		    [['id', 'INTEGER', 0, 1], ['name', 'TEXT', 1, 0], ['v', 'REAL', 0, 0], ['b', 'BLOB', 0, 0]]);
		assert.equal(d.columns[1].dflt_value, "'x'");
		assert.deepEqual(d.indexes.map((i) => [i.name, i.unique, i.columns]), [['t_name_v', 1, ['name', 'v']]]);
		assert.deepEqual(d.triggers.map((t) => t.name), ['t_log']);
		const c = (await ok(srv, 'describe_table', { database: 'main', table: 'child' })).structuredContent;
		assert.deepEqual(c.foreign_keys.map((f) => [f.table, f.from, f.to, f.on_delete]),
		    [['t', 't_id', 'id', 'CASCADE']]);
		assert.deepEqual(c.indexes.map((i) => i.columns), [['t_id']]);

		const res = await srv.client.listResources();
		assert.deepEqual(res.resources.map((r) => r.uri), ['sqlite://main/schema']);
		const body = await srv.client.readResource({ uri: 'sqlite://main/schema' });
		assert.equal(body.contents[0].mimeType, 'application/sql');
		assert.match(body.contents[0].text, /CREATE TABLE t\(id INTEGER PRIMARY KEY/);
		assert.match(body.contents[0].text, /CREATE TRIGGER t_log/);
		await assert.rejects(srv.client.readResource({ uri: 'sqlite://nosuch/schema' }), /not found/);
	});

	test('describe_table binds the name: an injection is only a name that is not there', async () => {
		for (const table of ["t); DROP TABLE t; --", "t' OR 1=1 --", '"t"', 'T ']) {
			await refused(srv, 'describe_table', { database: 'main', table }, /no table or view named/);
		}
		assert.deepEqual(await rows(srv, 'SELECT count(*) FROM t'), [[2]]);
	});

	test('typed params, NULL against the text NULL, REAL, big integers and blobs', async () => {
		await ok(srv, 'execute', {
			database: 'main',
			sql: `INSERT INTO t(id, name, v, b) VALUES (10, ?, ?, ?), (11, 'NULL', NULL, NULL),
			    (9007199254740993, 'big', -0.25, x'00ff10'), (-9007199254740993, 'neg', 3.0, zeroblob(3))`,
			params: ['seven', 7, null],
		});
		const r = await ok(srv, 'query', {
			database: 'main', sql: 'SELECT id, name, v, b, typeof(v) FROM t WHERE id >= ? OR id < ? ORDER BY id',
			params: [10, -1],
		});
		const sc = r.structuredContent;
		assert.deepEqual(sc.columns.map((c) => [c.name, c.type]),
		    [['id', 'INTEGER'], ['name', 'TEXT'], ['v', 'REAL'], ['b', 'BLOB'], ['typeof(v)', null]]);
		assert.deepEqual(sc.rows, [
			['-9007199254740993', 'neg', 3, { blob: 'AAAA', bytes: 3 }, 'real'],
			[10, 'seven', 7, null, 'real'],
			[11, 'NULL', null, null, 'null'],
			['9007199254740993', 'big', -0.25, { blob: 'AP8Q', bytes: 3 }, 'real'],
		]);
		assert.equal(sc.truncated, false);
		assert.equal(sc.next, null);
		// In the text, SQL NULL and the text 'NULL' are told apart too.
		assert.match(textOf(r), /^11 \| 'NULL' \| NULL \| NULL \| null$/m);
		assert.match(textOf(r), /<blob 3 bytes>/);
		assert.match(textOf(r), /\(4 rows\)$/);
		// A big integer given as a string finds its row exactly; a boolean is 1.
		assert.deepEqual(await rows(srv, 'SELECT name FROM t WHERE id = ?', ['9007199254740993']), [['big']]);
		assert.deepEqual(await rows(srv, 'SELECT ?, ?, ?, typeof(?)', [true, false, 'x', 2.5]),
		    [[1, 0, 'x', 'real']]);
		assert.deepEqual(await rows(srv, 'SELECT :a || :b', ['p', 'q']), [['pq']]);
		await refused(srv, 'query', { database: 'main', sql: 'SELECT ?, ?', params: [1] }, /2 parameters/);
		await refused(srv, 'query', { database: 'main', sql: 'SELECT ?', params: [1, 2] },
		    /params holds 2 values; the statement has 1 parameter$/);
		await refused(srv, 'query', { database: 'main', sql: 'SELECT 1', params: [1] },
		    /params holds 1 value; the statement has 0 parameters$/);
	});

	test('REALs read back exactly, each with a point in the text', async () => {
		// Random ones, each beside its 17 digits: the cell is the same
		// double (five rows a call: the database's rows limit).
		const all = [];
		for (const gen of ['random() / 1e9', 'random() / 7.0', '(random() % 100000) / 100.0',
			'(random() % 1000) / 8.0', 'random() * 1e-300'])
			for (let i = 0; i < 4; i++)
				all.push(...await rows(srv, `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1
				    FROM c LIMIT 5), v AS MATERIALIZED (SELECT ${gen} AS x FROM c)
				    SELECT x, printf('%!.17g', x) FROM v`));
		for (const set of ['0.1, -2.5, 1e300, 3.0', '5e-324, 123456789.123, -0.0001, 0.30000000000000004'])
			all.push(...await rows(srv, `SELECT value, printf('%!.17g', value) FROM json_each('[${set}]')`));
		assert.equal(all.length, 108);
		for (const [cell, exact] of all)
			assert.equal(cell, Number(exact), `${exact}`);
		const text = textOf(await ok(srv, 'query', { database: 'main', sql: 'SELECT 3.0, 0.1, -2.5, 1e300, 0.05' }));
		assert.match(text, /^3\.0 \| 0\.1 \| -2\.5 \| 1e\+300 \| 0\.05$/m);
	});

	test('paging: max_rows, an exact truncated flag, a cursor bound to the query and params', async () => {
		const sql = 'SELECT id FROM t WHERE id > ? ORDER BY id';
		const args = { database: 'main', sql, params: [-100], max_rows: 2 };
		const r1 = await ok(srv, 'query', args);
		const p1 = r1.structuredContent;
		assert.deepEqual(p1.rows, [[1], [2]]);
		assert.equal(p1.truncated, true);
		assert.equal(typeof p1.next, 'string');
		// The text holds the cursor itself, and says it is the argument
		// cursor: a host that shows its model only the text (Claude
		// Desktop) must still let it page.
		const said = textOf(r1).match(/more rows follow: call again with the same sql and params and cursor "([^"]+)" to read them\)$/);
		assert.ok(said, textOf(r1));
		assert.equal(said[1], p1.next);
		const t2 = await ok(srv, 'query', { ...args, cursor: said[1] });
		const p2 = t2.structuredContent;
		assert.deepEqual(p2.rows, [[10], [11]]);
		assert.match(textOf(t2), /^10$/m);
		assert.ok(textOf(t2).includes(`cursor "${p2.next}"`), textOf(t2));
		const p3 = (await ok(srv, 'query', { ...args, cursor: p2.next })).structuredContent;
		// Exactly the last row: not truncated, no next.
		assert.deepEqual(p3.rows, [['9007199254740993']]);
		assert.equal(p3.truncated, false);
		assert.equal(p3.next, null);
		assert.doesNotMatch(textOf(await ok(srv, 'query', { ...args, cursor: p2.next })), /cursor|follow/);
		// Exactly max_rows rows left: still not truncated.
		const exact = (await ok(srv, 'query', { ...args, params: [10], max_rows: 2 })).structuredContent;
		assert.deepEqual(exact.rows, [[11], ['9007199254740993']]);
		assert.equal(exact.truncated, false);
		// Another query's or other params' cursor is refused, as is a forged one.
		await refused(srv, 'query', { ...args, params: [0], cursor: p1.next }, /not one of this query's/);
		await refused(srv, 'query', { ...args, sql: `${sql} `, cursor: p1.next }, /not one of this query's/);
		await refused(srv, 'query', { ...args, cursor: '5.00' }, /not one of this query's/);
		// The database's rows limit caps max_rows (rows 5).
		const capped = (await ok(srv, 'query', { database: 'main', sql: 'SELECT id FROM t', max_rows: 100 }))
		    .structuredContent;
		assert.equal(capped.rows.length, 5);
		assert.equal(capped.truncated, true);
	});

	test('query runs one statement that reads; explain_query shows the plan as a tree', async () => {
		await refused(srv, 'query', { database: 'main', sql: 'DELETE FROM t' }, /only statements that read/);
		await refused(srv, 'query', { database: 'main', sql: 'SELECT 1; SELECT 2' }, /one statement/);
		await refused(srv, 'query', { database: 'nosuch', sql: 'SELECT 1' }, /no database named 'nosuch'/);
		const r = await ok(srv, 'explain_query', {
			database: 'main', sql: 'SELECT id FROM t WHERE id = ? UNION ALL SELECT id FROM t WHERE id = 2',
			params: [1],
		});
		const plan = r.structuredContent.plan;
		assert.equal(plan.length, 1, JSON.stringify(plan));
		assert.equal(plan[0].detail, 'COMPOUND QUERY');
		assert.deepEqual(plan[0].children.map((n) => n.detail), ['LEFT-MOST SUBQUERY', 'UNION ALL']);
		for (const n of plan[0].children)
			assert.match(n.children[0].detail, /^SEARCH t USING INTEGER PRIMARY KEY/);
		assert.match(textOf(r), /^QUERY PLAN\n  COMPOUND QUERY\n    LEFT-MOST SUBQUERY\n      SEARCH t/);
		// The plan only: nothing is run.
		await ok(srv, 'explain_query', { database: 'main', sql: 'DELETE FROM t' });
		assert.equal((await rows(srv, 'SELECT count(*) FROM t'))[0][0], 6);
	});

	test('execute: one transaction, rolled back whole when a statement fails', async () => {
		const before = await rows(srv, 'SELECT count(*) FROM t');
		const t = await refused(srv, 'execute', {
			database: 'main',
			sql: "INSERT INTO t(name) VALUES ('first'); INSERT INTO nosuch VALUES (1)",
		}, /no such table: nosuch/);
		assert.match(t, /statement 2.*rolled back/);
		await refused(srv, 'execute', {
			database: 'main',
			sql: "INSERT INTO t(name) VALUES ('first'); INSERT INTO t(id) VALUES (1)",
		}, /UNIQUE|constraint/i);
		await refused(srv, 'execute', { database: 'main', sql: "INSERT INTO t(name) VALUES ('x'); COMMIT" },
		    /one transaction of its own/);
		assert.deepEqual(await rows(srv, 'SELECT count(*) FROM t'), before);
		assert.deepEqual(await rows(srv, "SELECT count(*) FROM t WHERE name = 'first'"), [[0]]);
		const e = (await ok(srv, 'execute', {
			database: 'main', sql: "UPDATE t SET v = 0 WHERE id BETWEEN 1 AND 2; INSERT INTO t(name) VALUES ('z')",
		})).structuredContent;
		assert.deepEqual(e.changes, [2, 1]);
		assert.equal(e.total_changes, 3);
		assert.equal(typeof e.last_insert_rowid, 'string', 'past 2^53, the row id is a string');
		assert.equal(e.rows, undefined, 'no statement returned rows');
		// RETURNING: the rows of the last statement that returns any,
		// capped by the database's rows (5) with the rest still run.
		const ret = await ok(srv, 'execute', {
			database: 'main',
			sql: `INSERT INTO t(id, name) VALUES (100, 'r1'), (101, 'r2') RETURNING id, name;
			    UPDATE t SET v = 1 WHERE id BETWEEN 100 AND 101 RETURNING id`,
		});
		assert.deepEqual(ret.structuredContent.columns.map((c) => c.name), ['id']);
		assert.deepEqual(ret.structuredContent.rows, [[100], [101]]);
		assert.equal(ret.structuredContent.truncated, false);
		assert.match(textOf(ret), /^2 statements run in one transaction.*\nid\n100\n101\n\(2 rows\)$/s);
		const many = (await ok(srv, 'execute', {
			database: 'main', sql: 'UPDATE t SET v = 2 RETURNING id',
		})).structuredContent;
		assert.equal(many.rows.length, 5);
		assert.equal(many.truncated, true);
		assert.equal(many.total_changes, (await rows(srv, 'SELECT count(*) FROM t'))[0][0]);
		assert.deepEqual(await rows(srv, 'SELECT count(*) FROM t WHERE v = 2'), await rows(srv, 'SELECT count(*) FROM t'));
		await ok(srv, 'execute', { database: 'main', sql: 'DELETE FROM t WHERE id BETWEEN 100 AND 101' });
	});

	test('the byte cap: rows stop before it, truncated; a row alone too big has its cells cut', async () => {
		await srv.close();
		srv = await start(await policy([`database main ${file} read-write rows 1000 bytes 1K`]));
		const many = (await ok(srv, 'query', {
			database: 'main',
			sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500) SELECT x FROM c',
		})).structuredContent;
		assert.equal(many.truncated, true);
		assert.ok(many.rows.length > 10 && many.rows.length < 500, `${many.rows.length} rows`);
		assert.ok(JSON.stringify(many.rows).length <= 1024);
		const big = (await ok(srv, 'query', {
			database: 'main', sql: "SELECT 'a' || printf('%.*c', 5000, 'b'), zeroblob(5000)",
		})).structuredContent;
		assert.equal(big.rows.length, 1);
		assert.equal(big.rows[0][0].cut, true);
		assert.equal(big.rows[0][0].bytes, 5001);
		assert.ok(big.rows[0][0].text.startsWith('ab'));
		assert.equal(big.rows[0][1].cut, true);
		assert.equal(big.rows[0][1].bytes, 5000);
	});

	test('a long query says how many rows it has read, to a client that asks', async () => {
		await srv.close();
		srv = await start(await policy([`database main ${file} rows 200000 bytes 16M`]));
		const seen = [];
		const r = await srv.client.callTool({
			name: 'query', arguments: {
				database: 'main', max_rows: 140000,
				sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 140000) SELECT x FROM c',
			},
		}, undefined, { timeout: CALL_TIMEOUT, onprogress: (p) => { seen.push([p.progress, p.message]); } });
		assert.notEqual(r.isError, true, textOf(r));
		assert.equal(r.structuredContent.rows.length, 140000);
		// The last may be held back: a notification the server finds
		// beside the answer is not sent (job.c, pass_progress(): the
		// official client rejects one that follows the answer in the
		// same read), which a loaded machine makes likely.
		const all = [[65536, '65536 rows read'], [131072, '131072 rows read']];
		assert.ok(seen.length >= 1, 'no progress at all');
		assert.deepEqual(seen, all.slice(0, seen.length));
	});

	test('the time limit stops a query without an end', async () => {
		await srv.close();
		srv = await start(await policy([`database main ${file} time 200ms`]));
		await refused(srv, 'query', {
			database: 'main',
			sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
		}, /interrupt|time limit/i);
		// And the server serves on.
		assert.deepEqual(await rows(srv, 'SELECT 1'), [[1]]);
		await srv.close();
	});
});

describe('read-only databases', () => {
	test('execute is refused on a read-only database, before any fork; query still reads it', async () => {
		const rw = await newDb();
		const ro = await newDb();
		// Made by a server that may write it, then served read-only.
		const maker = await start(await policy([`database main ${ro} read-write`]));
		try {
			await ok(maker, 'execute', { database: 'main', sql: 'CREATE TABLE k(a); INSERT INTO k VALUES (1)' });
		} finally {
			await maker.close();
		}
		const log = path.join(await scratch.ownedDir(), 'audit.jsonl');
		const srv = await start(await policy([`database main ${rw} read-write`, `database ro ${ro}`],
		    [`audit ${log}`]));
		try {
			await refused(srv, 'execute', { database: 'ro', sql: 'INSERT INTO k VALUES (2)' }, /read-only/);
			await refused(srv, 'explain_query', { database: 'ro', sql: 'DELETE FROM k' }, /read-only/);
			assert.deepEqual(await rows(srv, 'SELECT a FROM k', null, 'ro'), [[1]]);
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.deepEqual(calls.slice(0, 2).map((c) => [c.tool, c.decision, c.by]),
		    [['execute', 'denied', 'policy'], ['explain_query', 'denied', 'policy']]);
		assert.equal((await logRecords(log)).filter((r) => r.event === 'result').length, 1);
	});
});

describe('WAL mode', () => {
	test('a read-only database in WAL mode is read (its readers make its -shm), never changed', async () => {
		const file = await newDb();
		const maker = await start(await policy([`database main ${file} read-write`]));
		try {
			await ok(maker, 'execute', { database: 'main', sql: 'CREATE TABLE k(a); INSERT INTO k VALUES (1)' });
		} finally {
			await maker.close();
		}
		// What PRAGMA journal_mode=WAL writes, with no WAL yet: the
		// header's write and read versions 2.
		const fh = await fsp.open(file, 'r+');
		await fh.write(Buffer.from([2, 2]), 0, 2, 18);
		await fh.close();
		const p = await policy([`database ro ${file}`]);
		const check = await runServer(['--policy', p, '--check'], SQLITE);
		assert.match(check.stdout, /read-only \(WAL\)/);
		assert.match(check.stderr, /WAL mode.*only its connection, opened read-only/);
		const srv = await start(p);
		try {
			assert.deepEqual(await rows(srv, 'SELECT a FROM k', null, 'ro'), [[1]]);
			assert.deepEqual((await ok(srv, 'list_tables', { database: 'ro' })).structuredContent.tables
			    .map((t) => t.name), ['k']);
			await assert.rejects(call(srv, 'execute', { database: 'ro', sql: 'INSERT INTO k VALUES (2)' }),
			    /not offered/);
		} finally {
			await srv.close();
		}
		// In a directory calls cannot write, with no -shm to use, every
		// read would fail ("attempt to write a readonly database"): the
		// start says so instead, and what to do.
		const dir = path.dirname(file);
		// The reads above left a -shm (a read-only connection removes
		// nothing): gone, as after a checkpoint by a writer.
		await fsp.rm(`${file}-shm`, { force: true });
		await fsp.rm(`${file}-wal`, { force: true });
		await fsp.chmod(dir, 0o555);
		try {
			const r = await runServer(['--policy', p, '--check'], SQLITE);
			assert.equal(r.status, 1, r.stderr);
			assert.match(r.stderr, new RegExp(`${p}:2: database ro: ${file}: in WAL mode, whose readers make its -wal and -shm files beside it where they are not there, but calls, which run as uid ${serverIds().uid} without privileges, can write neither its directory ${dir} \\(Permission denied\\) nor read both files there: make the directory writable for that user, or take the database out of WAL mode`));
			// Both files there are enough; one is not.
			const made = async (ext) => {
				await fsp.chmod(dir, 0o755);
				await fsp.writeFile(`${file}${ext}`, '');
				await fsp.chmod(`${file}${ext}`, 0o666);
				await fsp.chmod(dir, 0o555);
			};
			await made('-shm');
			assert.equal((await runServer(['--policy', p, '--check'], SQLITE)).status, 1);
			await made('-wal');
			const ok2 = await runServer(['--policy', p, '--check'], SQLITE);
			assert.equal(ok2.status, 0, ok2.stderr);
			const srv2 = await start(p);
			try {
				assert.deepEqual(await rows(srv2, 'SELECT a FROM k', null, 'ro'), [[1]]);
			} finally {
				await srv2.close();
			}
		} finally {
			await fsp.chmod(dir, 0o755);
			await fsp.rm(`${file}-shm`, { force: true });
			await fsp.rm(`${file}-wal`, { force: true });
		}
	});
});

describe('consent and the audit log', () => {
	test('consent execute database main statement schema asks about schema changes only', async () => {
		const file = await newDb();
		const log = path.join(await scratch.ownedDir(), 'audit.jsonl');
		// No client that can be asked: a call that needs consent is refused.
		const srv = await start(await policy([`database main ${file} read-write`],
		    ['consent execute database main statement schema', `audit ${log}`]));
		try {
			await refused(srv, 'execute', { database: 'main', sql: 'CREATE TABLE a(x)' }, /consent/);
			await refused(srv, 'execute', { database: 'main', sql: 'INSERT INTO a VALUES (1); DROP TABLE a' },
			    /consent/);
			const r = await call(srv, 'execute', { database: 'main', sql: 'SELECT 1' });
			assert.notEqual(r.isError, true, textOf(r));
			await ok(srv, 'query', { database: 'main', sql: 'SELECT 1' });
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		const subj = calls.map((c) => [c.tool, c.subjects.map((s) => `${s.kind}:${s.value}:${s.access ?? ''}`)]);
		assert.deepEqual(subj, [
			['execute', ['database:main:write', 'statement:schema:']],
			['execute', ['database:main:write', 'statement:schema:']],
			['execute', ['database:main:read', 'statement:read:']],
			['query', ['database:main:read', 'statement:read:']],
		]);
	});

	test('a consent rule naming a kind no tool has is refused at start', async () => {
		const file = await newDb();
		const r = await runServer(['--policy', await policy([`database main ${file}`],
		    ['consent query program /bin/sh']), '--check'], SQLITE);
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, /program/);
	});
});

describe('two servers, one database', () => {
	test('both write at once; busy_timeout lets every insert through', async () => {
		const file = await newDb();
		const p = await policy([`database main ${file} read-write`]);
		const a = await start(p);
		const b = await start(p);
		try {
			await ok(a, 'execute', { database: 'main', sql: 'CREATE TABLE n(who TEXT, i INTEGER)' });
			const writes = [];
			for (let i = 0; i < 12; i++)
				for (const [srv, who] of [[a, 'a'], [b, 'b']])
					writes.push(ok(srv, 'execute', {
						database: 'main', sql: 'INSERT INTO n VALUES (?, ?)', params: [who, i],
					}));
			await Promise.all(writes);
			assert.deepEqual(await rows(b, 'SELECT who, count(*) FROM n GROUP BY who ORDER BY who'),
			    [['a', 12], ['b', 12]]);
		} finally {
			await a.close();
			await b.close();
		}
	});
});

describe('the review findings', () => {
	let srv, file;

	after(() => srv?.close());

	test('a row that passes the byte cap by more than its slack ends the page, with next at that row', async () => {
		file = await newDb();
		srv = await start(await policy([`database main ${file} read-write bytes 64K time 2s`]));
		await ok(srv, 'execute', {
			database: 'main',
			sql: `CREATE TABLE big(id INTEGER PRIMARY KEY); CREATE TABLE u(a);
			    INSERT INTO big(id) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000) SELECT x FROM c`,
		});
		for (const cell of ["printf('%.1000c', 'a')", 'zeroblob(3000)', "printf('%.60c', char(34))",
		    "printf('%.60c', '|')", "printf('%.400c', char(1))"]) {
			const args = { database: 'main', sql: `SELECT id, ${cell} FROM big ORDER BY id` };
			const p1 = (await ok(srv, 'query', args)).structuredContent;
			assert.equal(p1.truncated, true, cell);
			assert.ok(p1.rows.length > 0 && p1.rows.length < 3000, `${cell}: ${p1.rows.length} rows`);
			assert.deepEqual(p1.rows.map((r) => r[0]), p1.rows.map((_, i) => i + 1), cell);
			assert.ok(JSON.stringify(p1.rows).length <= 65536 + 2, cell);
			const p2 = (await ok(srv, 'query', { ...args, cursor: p1.next })).structuredContent;
			assert.equal(p2.rows[0][0], p1.rows.length + 1, `${cell}: next resumes at the first row not given`);
		}
		const e = (await ok(srv, 'execute', {
			database: 'main', sql: 'INSERT INTO u VALUES (5); SELECT id, zeroblob(3000) FROM big',
		})).structuredContent;
		assert.equal(e.truncated, true);
		assert.ok(e.rows.length > 0 && e.rows.length < 3000, `${e.rows.length} rows`);
		assert.deepEqual(await rows(srv, 'SELECT a FROM u'), [[5]]);
	});

	test('a first row alone that escapes to many times its bytes is cut until it fits', async () => {
		const r = await ok(srv, 'query', {
			database: 'main',
			sql: "SELECT replace(hex(zeroblob(4917)), '0', char(1)) || char(1) || " +
			    "replace(hex(zeroblob(3274)), '0', 'a') || 'a' AS c",
		});
		const sc = r.structuredContent;
		assert.equal(sc.rows.length, 1);
		assert.equal(sc.truncated, false);
		assert.equal(sc.rows[0][0].cut, true);
		assert.equal(sc.rows[0][0].bytes, 2 * 4917 + 1 + 2 * 3274 + 1);
		assert.ok(JSON.stringify(sc.rows).length <= 65536 + 2);
	});

	test('the text table counts against the byte cap: a first row too wide for it is named, not failed', async () => {
		const s1 = await start(await policy([`database main ${file} bytes 1K`]));
		try {
			const bars = "printf('%.60c', '|')";
			const r = await ok(s1, 'query', {
				database: 'main', sql: `SELECT ${Array(12).fill(bars).join(', ')} FROM big ORDER BY id`,
			});
			assert.equal(r.structuredContent.rows.length, 1);
			assert.equal(r.structuredContent.truncated, true);
			assert.equal(r.structuredContent.rows[0][0], '|'.repeat(60));
			assert.match(textOf(r), /a row too wide for this table/);
		} finally {
			await s1.close();
		}
	});

	test('ROLLBACK TO and RELEASE a savepoint run inside execute; ROLLBACK, COMMIT and END do not', async () => {
		await ok(srv, 'execute', {
			database: 'main',
			sql: `DELETE FROM u; INSERT INTO u VALUES (1); SAVEPOINT a; INSERT INTO u VALUES (2);
			    ROLLBACK TO a; /* x */ ROLLBACK TRANSACTION TO SAVEPOINT a; RELEASE a; INSERT INTO u VALUES (3)`,
		});
		assert.deepEqual(await rows(srv, 'SELECT a FROM u ORDER BY a'), [[1], [3]]);
		for (const end of ['ROLLBACK', 'rollback transaction', '/* to */ ROLLBACK -- to\n', 'COMMIT', 'END'])
			await refused(srv, 'execute', { database: 'main', sql: `INSERT INTO u VALUES (4); ${end}` },
			    /one transaction of its own.*ROLLBACK TO may be used/);
		assert.deepEqual(await rows(srv, 'SELECT a FROM u ORDER BY a'), [[1], [3]]);
	});

	test('a single SQL function that runs past the database time is stopped near it', async () => {
		const t = await refused(srv, 'query', {
			database: 'main',
			sql: "SELECT instr(replace(hex(zeroblob(2000000)), '0', 'a'), replace(hex(zeroblob(100000)), '0', 'a') || 'b')",
		});
		assert.match(t, /database 'main'.*time limit of 2000 ms/);
		assert.deepEqual(await rows(srv, 'SELECT 1'), [[1]], 'the server still serves');
	});

	test('names that are not UTF-8 come out repaired in list_tables and describe_table', async (t) => {
		const bad = await newDb();
		try {
			execFileSync('sh', ['-c', 'sqlite3 "$1" "$(printf \'create table "bad\\377\\376name"(c\\377 integer); create table ok(c\\377 integer)\')"',
			    'sh', bad]);
		} catch {
			t.skip('no sqlite3 command');
			return;
		}
		const { uid, gid } = serverIds();
		await fsp.chown(bad, uid, gid);
		const s = await start(await policy([`database main ${bad}`]));
		try {
			const l = await ok(s, 'list_tables', { database: 'main' });
			assert.deepEqual(l.structuredContent.tables.map((x) => x.name).sort(), ['bad\ufffd\ufffdname', 'ok']);
			const d = await ok(s, 'describe_table', { database: 'main', table: 'ok' });
			assert.equal(d.structuredContent.columns[0].name, 'c\ufffd');
		} finally {
			await s.close();
		}
	});

	test('a database file swapped for a FIFO is refused, not waited on', async () => {
		const f = await newDb();
		const s = await start(await policy([`database main ${f}`]));
		try {
			await fsp.rm(f);
			execFileSync('mkfifo', [f]);
			const { uid, gid } = serverIds();
			await fsp.chown(f, uid, gid);
			// The child ready at the swap, and the ones made after it.
			for (let i = 0; i < 6; i++)
				await refused(s, 'query', { database: 'main', sql: 'SELECT 1' }, /not a regular file/);
		} finally {
			await s.close();
		}
	});
});
