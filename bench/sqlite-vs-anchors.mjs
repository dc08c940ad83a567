// sqlite-vs-anchors.mjs: toolcell-sqlite beside the SQLite MCP servers
// people use (from npm), all driven by the official MCP client SDK over
// stdio, on one generated 100,000-row database, in one run.
//
//   node bench/sqlite-vs-anchors.mjs [BUILD]                  (from the repo root)
//   BENCH_QUICK=1 nice node bench/sqlite-vs-anchors.mjs build  (few iterations)
//
// The anchors are pinned by bench/sqlite-anchors/package.json and
// bench/sqlite-anchors/package-lock.json; this script runs `npm ci` there
// when they are not installed yet (make test never does).  Two of them
// need node's `sqlite3` and one `better-sqlite3`, native modules that npm
// compiles with node-gyp: python3, make and a C++ compiler must be there
// (`sh mk/deps.sh bench` installs them; make bench runs it).
//
//   mcp-sqlite     mcp-sqlite, `node mcp-sqlite-server.js DB`; tool query
//                  {sql, values}
//   sqlite-npx     mcp-server-sqlite-npx, `node dist/index.js DB`; tools
//                  read_query {query} and write_query {query} (no bound
//                  parameters: the values are written into the SQL)
//   dbhub          @bytebase/dbhub, `node dist/index.js --transport stdio
//                  --dsn sqlite://DB`; tool execute_sql {sql} (no bound
//                  parameters either)
//
// and toolcell-sqlite as `BUILD/toolcell-sqlite --policy P`, P naming the
// database read-write with a row cap above the scan's 10,000 rows; tools
// query {database, sql, params, max_rows} and execute {database, sql,
// params}.  Every anchor runs unconfined, as people run them;
// toolcell-sqlite runs every statement in a confined child.  When
// BUILD/toolcell-sqlite does not exist yet, the anchors are measured alone.
//
// The database: one table of 100,000 rows (an integer key, a text, an
// integer, a real and a text that is NULL on every tenth row), generated
// with SQL by better-sqlite3 (the anchors' own dependency), the same bytes
// every run; each server gets a copy of its own, since the insert changes
// it.  Scenarios: cold start (spawn to the initialize result, fresh
// processes, alternating between servers); then, through one long-lived
// process of each server, a point lookup by key with a pause of
// BENCH_GAP_MS (default 5 ms) before every call, the same back to back, a
// scan of 10,000 consecutive rows, a single-row insert; last, the peak
// RSS (VmHWM) of each server process, and the proportional set size of
// its whole process tree when idle and at the end.  Every answer is
// checked, warm-up included: a lookup must return its row and only it,
// with every value, a scan all 10,000 rows in order, an insert must say
// it changed one row where the server says so; after the inserts, every
// row inserted is read back through the same server and compared.  A
// server with a wrong answer has not passed, and its times are shown for
// reference only.  Each scenario runs in two rounds, every server in
// turn, so that all see the same load on a shared machine.
//
// Environment: BENCH_QUICK=1 (few iterations: a smoke run), BENCH_GAP_MS,
// BENCH_CAP_S (time cap per server and scenario, default 60, 20 when
// quick), BENCH_ONLY (scenario ids separated by commas: cold, point-gap,
// point-b2b, scan, insert, rss), BENCH_SERVERS (server ids separated by
// commas: toolcell, mcpsqlite, npx, dbhub).  Prints markdown on stdout;
// progress goes to stderr.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

import { esc, fmt, loadSdk, p50, passed, pct, pkgVersion, repo, rounds, sdkDir, treePss, vmHWM } from './lib.mjs';

const NAME = 'sqlite-vs-anchors';
const { Client, StdioClientTransport } = await loadSdk(NAME);

const buildArg = process.argv[2] ?? 'build';
const ours = path.join(path.resolve(repo, buildArg), 'toolcell-sqlite');

const quick = process.env.BENCH_QUICK === '1';
const gapMs = Number(process.env.BENCH_GAP_MS ?? 5);
const capMs = 1000 * Number(process.env.BENCH_CAP_S ?? (quick ? 20 : 60));
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const runs = (id) => only === null || only.has(id);
const CALL_TIMEOUT = 600_000;
const MiB = 1024 * 1024;

const log = (...a) => console.error(`${NAME}:`, ...a);

// ---------------------------------------------------------------- anchors

const anchorDir = path.join(repo, 'bench/sqlite-anchors');
const nm = path.join(anchorDir, 'node_modules');
const PKG = {
	mcpsqlite: 'mcp-sqlite',
	npx: 'mcp-server-sqlite-npx',
	dbhub: '@bytebase/dbhub',
};

/* Whether |cmd| is on the PATH. */
function have(cmd) {
	return process.env.PATH.split(':').some((d) => {
		try {
			fs.accessSync(path.join(d || '.', cmd), fs.constants.X_OK);
			return true;
		} catch {
			return false;
		}
	});
}

/* Installs the pinned anchors with npm ci, when missing or older than the
 * lockfile.  sqlite3 and better-sqlite3 are compiled by node-gyp (their
 * prebuilt binaries are downloaded from outside the registry, which may
 * not be reachable): without python3, make and a C++ compiler that fails
 * after minutes, so they are looked for first.  npm's output goes to
 * stderr: stdout is the report. */
function installAnchors() {
	const stamp = path.join(nm, '.package-lock.json');
	const lock = path.join(anchorDir, 'package-lock.json');
	if (fs.existsSync(stamp) && Object.values(PKG).every((p) => fs.existsSync(path.join(nm, p, 'package.json')))
	    && fs.statSync(stamp).mtimeMs >= fs.statSync(lock).mtimeMs)
		return;
	const missing = ['python3', 'make', 'g++'].filter((c) => !have(c));
	if (missing.length) {
		console.error(`${NAME}: the anchors' native modules are compiled by node-gyp, which needs ${missing.join(', ')}: run sh mk/deps.sh bench (or apt-get install python3 make g++)`);
		process.exit(1);
	}
	log('installing the anchors into bench/sqlite-anchors (npm ci; compiling sqlite3 and better-sqlite3 takes a few minutes)');
	execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: anchorDir, stdio: ['ignore', 2, 2],
	});
}

installAnchors();
const pinned = JSON.parse(fs.readFileSync(path.join(anchorDir, 'package.json'), 'utf8')).dependencies;
const versions = {};
for (const [id, p] of Object.entries(PKG)) {
	versions[id] = pkgVersion(path.join(nm, p));
	if (versions[id] !== pinned[p]) {
		console.error(`${NAME}: bench/sqlite-anchors has ${p} ${versions[id]}, not the pinned ${pinned[p]}`);
		process.exit(1);
	}
}
const libVersions = {
	sqlite3: pkgVersion(path.join(nm, 'sqlite3')),
	betterSqlite3: pkgVersion(path.join(nm, 'better-sqlite3')),
};
const clientSdkVersion = pkgVersion(sdkDir);
const Database = createRequire(path.join(nm, 'x.js'))('better-sqlite3');

// ---------------------------------------------------------------- the database

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-sqlvs-')));
let cleaned = false;
function cleanup() {
	if (!cleaned)
		fs.rmSync(root, { recursive: true, force: true });
	cleaned = true;
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'])
	process.on(sig, () => { cleanup(); process.exit(130); });

const ROWS = 100_000;
const SCAN = 10_000;
const COLS = ['id', 'name', 'qty', 'price', 'note'];

/* Row |i| of the generated table, as the SQL below makes it. */
function row(i) {
	return [
		i,
		`item-${String(i).padStart(6, '0')}`,
		(i * 7919) % 1000,
		(i % 10000) / 100,
		i % 10 === 0 ? null : ((i * 2654435761) % 4294967296).toString(16).padStart(8, '0'),
	];
}

/* The row the |i|th insert adds, its key above the generated ones. */
function newRow(i) {
	const id = ROWS + 1 + i;
	return [id, `new-${id}`, id % 1000, id / 4, i % 2 ? null : `n${id.toString(16)}`];
}

const genDb = path.join(root, 'gen.db');
const genStart = performance.now();
{
	const db = new Database(genDb);
	db.exec(`CREATE TABLE items (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		qty INTEGER NOT NULL,
		price REAL NOT NULL,
		note TEXT
	);
	WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
	INSERT INTO items
	SELECT i, printf('item-%06d', i), (i * 7919) % 1000, (i % 10000) / 100.0,
	       CASE WHEN i % 10 = 0 THEN NULL ELSE printf('%08x', (i * 2654435761) % 4294967296) END
	FROM n;`);
	// The generator and the checks agree, or nothing below means anything.
	const got = db.prepare('SELECT id, name, qty, price, note FROM items WHERE id IN (1, 10, 4242, 99999, 100000) ORDER BY id').raw().all();
	const want = [1, 10, 4242, 99999, 100000].map(row);
	if (JSON.stringify(got) !== JSON.stringify(want))
		throw new Error(`the generated rows are not the expected ones: ${JSON.stringify(got)}`);
	if (db.prepare('SELECT count(*) FROM items').pluck().get() !== ROWS)
		throw new Error('the generated table does not have its rows');
	db.close();
}
const genMs = performance.now() - genStart;
const dbBytes = fs.statSync(genDb).size;

/* A directory of its own and a fresh copy of the database for server
 * |id|. */
function dbFor(id) {
	const dir = path.join(root, id);
	fs.mkdirSync(dir, { mode: 0o700 });
	const db = path.join(dir, 'bench.db');
	fs.copyFileSync(genDb, db);
	return { dir, db };
}

// The anchors' environment: node's directory and the system's, and a HOME
// of their own; each runs in its own directory (dbhub reads a .env file
// from where it starts).
const anchorPath = `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
let homes = 0;
function freshHome() {
	const h = path.join(root, `home${homes++}`);
	fs.mkdirSync(h);
	return h;
}

// ---------------------------------------------------------------- checks

const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const SELECT = `SELECT ${COLS.join(', ')} FROM items`;
const POINT_SQL = `${SELECT} WHERE id = ?`;
const SCAN_SQL = `${SELECT} WHERE id BETWEEN ? AND ? ORDER BY id`;
const INSERT_SQL = `INSERT INTO items (${COLS.join(', ')}) VALUES (?, ?, ?, ?, ?)`;
const READBACK_SQL = `${SELECT} WHERE id > ? ORDER BY id`;

/* |sql| with each ? replaced by the SQL literal of the next of |params|,
 * for the servers that take no bound parameters. */
function literal(sql, params) {
	let i = 0;
	return sql.replace(/\?/g, () => {
		const v = params[i++];
		if (v === null)
			return 'NULL';
		if (typeof v === 'number')
			return String(v);
		return `'${String(v).replace(/'/g, "''")}'`;
	});
}

/* Rows given as JSON objects, one key per column, in the order of COLS;
 * a string saying what is wrong otherwise. */
function fromObjects(rows) {
	if (!Array.isArray(rows))
		return `no rows: ${JSON.stringify(rows)?.slice(0, 120)}`;
	const out = [];
	for (const o of rows) {
		if (o === null || typeof o !== 'object' || Object.keys(o).length !== COLS.length)
			return `a row is not ${COLS.length} named values: ${JSON.stringify(o)?.slice(0, 120)}`;
		out.push(COLS.map((c) => o[c]));
	}
	return out;
}

function parsed(t) {
	try {
		return JSON.parse(t);
	} catch {
		return undefined;
	}
}

/* toolcell-sqlite's rows: structuredContent {columns, rows, truncated},
 * columns as names or {name, ...}, rows as arrays (or objects). */
function tcRows(r) {
	const sc = r.structuredContent;
	if (r.isError)
		return `error: ${text(r).slice(0, 200)}`;
	if (!sc || !Array.isArray(sc.rows))
		return `no structuredContent rows: ${text(r).slice(0, 120)}`;
	if (sc.truncated === true)
		return `truncated at ${sc.rows.length} rows`;
	const names = (sc.columns ?? []).map((c) => (typeof c === 'string' ? c : c?.name));
	const at = COLS.map((c) => names.indexOf(c));
	if (sc.rows.length > 0 && !Array.isArray(sc.rows[0]))
		return fromObjects(sc.rows);
	if (at.some((x) => x < 0))
		return `columns ${JSON.stringify(names)}, not ${COLS.join(', ')}`;
	if (sc.rows.some((x) => !Array.isArray(x) || x.length !== names.length))
		return 'a row is not one value per column';
	return sc.rows.map((x) => at.map((j) => x[j]));
}

/* What differs between |got| (rows, or a string saying what is wrong)
 * and the |want|ed rows; undefined when nothing. */
function differ(got, want) {
	if (typeof got === 'string')
		return got;
	if (got.length !== want.length)
		return `${got.length} rows, not ${want.length}${got.length ? `; first ${JSON.stringify(got[0])}` : ''}`;
	for (let i = 0; i < want.length; i++) {
		if (JSON.stringify(got[i]) !== JSON.stringify(want[i]))
			return `row ${i + 1} of ${want.length} is ${JSON.stringify(got[i])}, not ${JSON.stringify(want[i])}`;
	}
	return undefined;
}

/*
 * The servers.  Each has: how it is started (spawn(dir, db)), and for each
 * operation the tools/call it sends (name and arguments) and how its
 * answer is read: rows() gives the rows (arrays in the order of COLS) or a
 * string saying what is wrong; inserted() what is wrong with an insert's
 * answer, if anything.
 */
const SERVERS = {
	toolcell: {
		label: 'toolcell-sqlite',
		spawn: ({ dir, db }) => {
			const policy = path.join(dir, 'sqlite.policy');
			fs.writeFileSync(policy, tcPolicy(db), { mode: 0o600 });
			return { command: ours, args: ['--policy', policy], env: { PATH: anchorPath, HOME: freshHome() } };
		},
		shown: () => `\`${path.isAbsolute(buildArg) ? 'BUILD' : buildArg}/toolcell-sqlite --policy P\`, P = \`${tcPolicy('DIR/bench.db').trim().replace(/\n+/g, '; ')}\``,
		read: (sql, params) => ({ name: 'query', arguments: { database: 'bench', sql, params, max_rows: SCAN } }),
		write: (sql, params) => ({ name: 'execute', arguments: { database: 'bench', sql, params } }),
		rows: tcRows,
		inserted(r) {
			if (r.isError)
				return `error: ${text(r).slice(0, 200)}`;
			// changes: one count per statement (or one number).
			const sc = r.structuredContent ?? {};
			const n = sc.total_changes ?? sc.changes;
			const one = Array.isArray(n) ? n.length === 1 && n[0] === 1 : n === 1;
			return one ? undefined : `changes ${JSON.stringify(n)}, not 1`;
		},
	},
	mcpsqlite: {
		label: `mcp-sqlite ${versions.mcpsqlite}`,
		spawn: ({ dir, db }) => ({
			command: process.execPath,
			args: [path.join(nm, PKG.mcpsqlite, 'mcp-sqlite-server.js'), db],
			env: { PATH: anchorPath, HOME: freshHome() },
			cwd: dir,
		}),
		shown: () => `\`node mcp-sqlite-server.js DIR/bench.db\` (node sqlite3 ${libVersions.sqlite3})`,
		read: (sql, params) => ({ name: 'query', arguments: { sql, values: params } }),
		write: (sql, params) => ({ name: 'query', arguments: { sql, values: params } }),
		rows: (r) => (r.isError ? `error: ${text(r).slice(0, 200)}` : fromObjects(parsed(text(r)))),
		inserted: (r) => (r.isError || /^Error/.test(text(r)) ? `error: ${text(r).slice(0, 200)}` : undefined),
	},
	npx: {
		label: `mcp-server-sqlite-npx ${versions.npx}`,
		spawn: ({ dir, db }) => ({
			command: process.execPath,
			args: [path.join(nm, PKG.npx, 'dist/index.js'), db],
			env: { PATH: anchorPath, HOME: freshHome() },
			cwd: dir,
		}),
		shown: () => `\`node dist/index.js DIR/bench.db\` (node sqlite3 ${libVersions.sqlite3})`,
		read: (sql, params) => ({ name: 'read_query', arguments: { query: literal(sql, params) } }),
		write: (sql, params) => ({ name: 'write_query', arguments: { query: literal(sql, params) } }),
		rows: (r) => (r.isError ? `error: ${text(r).slice(0, 200)}` : fromObjects(parsed(text(r)))),
		inserted: (r) => (r.isError ? `error: ${text(r).slice(0, 200)}` : undefined),
	},
	dbhub: {
		label: `@bytebase/dbhub ${versions.dbhub}`,
		spawn: ({ dir, db }) => ({
			command: process.execPath,
			args: [path.join(nm, PKG.dbhub, 'dist/index.js'), '--transport', 'stdio', '--dsn', `sqlite://${db}`],
			env: { PATH: anchorPath, HOME: freshHome() },
			cwd: dir,
		}),
		shown: () => `\`node dist/index.js --transport stdio --dsn sqlite://DIR/bench.db\` (better-sqlite3 ${libVersions.betterSqlite3})`,
		read: (sql, params) => ({ name: 'execute_sql', arguments: { sql: literal(sql, params) } }),
		write: (sql, params) => ({ name: 'execute_sql', arguments: { sql: literal(sql, params) } }),
		rows(r) {
			const o = parsed(text(r));
			if (r.isError || o?.success !== true)
				return `error: ${text(r).slice(0, 200)}`;
			return fromObjects(o.data?.rows);
		},
		inserted(r) {
			const o = parsed(text(r));
			if (r.isError || o?.success !== true)
				return `error: ${text(r).slice(0, 200)}`;
			return o.data?.count === 1 ? undefined : `count ${JSON.stringify(o.data?.count)}, not 1`;
		},
	},
};

/* toolcell-sqlite's policy: the database read-write, rows raised so that
 * the scan is whole. */
function tcPolicy(db) {
	return `[sqlite]\ndatabase bench ${db} read-write rows ${2 * SCAN}\n`;
}

async function call(c, req) {
	return c.callTool(req, undefined, { timeout: CALL_TIMEOUT, maxTotalTimeout: CALL_TIMEOUT });
}

const sides = Object.keys(SERVERS).filter((id) => {
	if (process.env.BENCH_SERVERS && !process.env.BENCH_SERVERS.split(',').includes(id))
		return false;
	if (id === 'toolcell' && !fs.existsSync(ours)) {
		log(`${ours} does not exist (toolcell-sqlite not built yet): measuring the anchors alone`);
		return false;
	}
	return true;
});
if (sides.length === 0) {
	console.error(`${NAME}: no server to measure (BENCH_SERVERS: toolcell, ${Object.keys(PKG).join(', ')})`);
	process.exit(2);
}
const where = Object.fromEntries(sides.map((id) => [id, dbFor(id)]));

// ---------------------------------------------------------------- processes

/* Spawns one server and connects the client; returns the time from the
 * spawn to the initialize result, in ms. */
async function start(id) {
	const s = SERVERS[id];
	const transport = new StdioClientTransport({ ...s.spawn(where[id]), stderr: 'pipe', maxBufferSize: 256 * MiB });
	let err = '';
	transport.stderr?.setEncoding('utf8');
	transport.stderr?.on('data', (d) => { if (err.length < 8192) err += d.slice(0, 8192 - err.length); });
	const client = new Client({ name: 'toolcell-bench-sqlite', version: '0' });
	const t0 = performance.now();
	try {
		await client.connect(transport, { timeout: 60_000 });
	} catch (e) {
		e.message += `\n${s.label} stderr:\n${err}`;
		throw e;
	}
	const ms = performance.now() - t0;
	const exit = { at: null };
	transport._process?.once('exit', (code, signal) => {
		Object.assign(exit, { at: performance.now(), code, signal });
	});
	return { client, transport, pid: transport.pid, ms, exit, stderr: () => err };
}

// ---------------------------------------------------------------- operations

/* Each operation: the |i|th of its kind on that server.  The call alone
 * is timed; its answer is checked after. */
const OPS = {
	point: {
		req: (s, i) => s.read(POINT_SQL, [1 + ((i * 7919) % ROWS)]),
		check: (s, r, i) => differ(s.rows(r), [row(1 + ((i * 7919) % ROWS))]),
	},
	scan: {
		lo: (i) => 1 + ((i * 10007) % (ROWS - SCAN + 1)),
		req(s, i) {
			return s.read(SCAN_SQL, [this.lo(i), this.lo(i) + SCAN - 1]);
		},
		check(s, r, i) {
			return differ(s.rows(r), Array.from({ length: SCAN }, (_, k) => row(this.lo(i) + k)));
		},
	},
	insert: {
		req: (s, i) => s.write(INSERT_SQL, newRow(i)),
		check: (s, r) => s.inserted(r),
	},
};

const SCENARIOS = [
	{ id: 'point-gap', title: 'point lookup by key, 5 ms apart', op: 'point', gap: gapMs, n: [1000, 50], warm: [20, 5] },
	{ id: 'point-b2b', title: 'point lookup by key, back to back', op: 'point', gap: 0, n: [1000, 50], warm: [20, 5] },
	{ id: 'scan', title: `scan of ${SCAN.toLocaleString('en-US')} rows`, op: 'scan', gap: gapMs, n: [50, 5], warm: [3, 1] },
	{ id: 'insert', title: 'single-row insert, back to back', op: 'insert', gap: 0, n: [1000, 50], warm: [20, 5] },
];
for (const id of only ?? []) {
	if (!['cold', 'rss', ...SCENARIOS.map((s) => s.id)].includes(id)) {
		console.error(`${NAME}: BENCH_ONLY: no scenario '${id}' (cold, ${SCENARIOS.map((s) => s.id).join(', ')}, rss)`);
		process.exit(2);
	}
}

/* Runs |n| operations of scenario |sc| on server |id|, adding to |r| (its
 * times only when |timed|); stops when r.spent passes the time cap. */
async function timeOps(srv, id, sc, n, r, timed) {
	const s = SERVERS[id];
	const op = OPS[sc.op];
	for (let k = 0; k < n; k++) {
		if (timed && r.spent > capMs) {
			r.capped = true;
			return;
		}
		if (sc.gap > 0)
			await sleep(sc.gap);
		const i = srv.next[sc.op]++;
		const req = op.req(s, i);
		const t = performance.now();
		const res = await call(srv.client, req);
		const ms = performance.now() - t;
		const wrong = op.check(s, res, i);
		r.ops++;
		r.bytes ??= JSON.stringify(res).length;	// the first answer's size
		if (wrong) {
			r.wrong = (r.wrong ?? 0) + 1;
			r.firstWrong ??= `${timed ? '' : '[warm-up] '}${wrong}`;
		}
		if (timed) {
			r.samples.push(ms);
			r.spent += ms + sc.gap;
		}
	}
}

/* After the inserts: every row server |id| was asked to insert, read back
 * through it; each one missing or not as inserted counts as a wrong
 * answer of the insert scenario. */
async function readBack(srv, id, r) {
	const s = SERVERS[id];
	const want = Array.from({ length: srv.next.insert }, (_, i) => newRow(i));
	const res = await call(srv.client, s.read(READBACK_SQL, [ROWS]));
	const got = s.rows(res);
	if (typeof got === 'string') {
		r.readBack = `reading them back: ${got}`;
		return;
	}
	const byId = new Map(got.map((x) => [x[0], x]));
	let bad = 0;
	let first;
	for (const w of want) {
		const g = byId.get(w[0]);
		if (JSON.stringify(g) !== JSON.stringify(w)) {
			bad++;
			first ??= `row ${w[0]} read back as ${JSON.stringify(g)}, not ${JSON.stringify(w)}`;
		}
	}
	if (got.length !== want.length) {
		bad += Math.max(0, got.length - want.length);
		first ??= `${got.length} rows read back, ${want.length} inserted`;
	}
	r.readBack = `${want.length - bad} of ${want.length} read back as inserted`;
	if (bad) {
		r.wrong = (r.wrong ?? 0) + bad;
		r.firstWrong ??= `[read back] ${first}`;
	}
}

const startedAt = new Date();
const loadBefore = os.loadavg();
const results = new Map();

if (runs('cold')) {
	const n = quick ? 3 : 20;
	const cold = Object.fromEntries(sides.map((id) => [id, { samples: [] }]));
	log(`cold start x${n}`);
	for (let i = 0; i < n + 1; i++) {
		for (const id of sides) {
			try {
				const s = await start(id);
				if (i > 0)	// the first spawn of each warms the page cache
					cold[id].samples.push(s.ms);
				await s.client.close();
			} catch (e) {
				cold[id].error ??= e.message;
			}
		}
	}
	results.set('cold', cold);
}

const srv = {};
for (const id of sides) {
	const s = await start(id);
	const listed = await s.client.listTools(undefined, { timeout: 60_000 });
	s.tools = new Map(listed.tools.map((t) => [t.name, t]));
	s.info = s.client.getServerVersion();
	s.next = { point: 0, scan: 0, insert: 0 };
	s.idleRss = vmHWM(s.pid);
	await sleep(200);	// a pool of ready children, where there is one
	s.idlePss = treePss(s.pid);
	srv[id] = s;
}

for (const sc of SCENARIOS.filter((c) => runs(c.id))) {
	const n = sc.n[quick ? 1 : 0];
	const warm = sc.warm[quick ? 1 : 0];
	const res = Object.fromEntries(sides.map((id) => [id, { samples: [], ops: 0, spent: 0, capped: false }]));
	log(`${sc.id}: ${warm} warm-up + ${n} each`);
	await rounds(sides, res, warm, n, (id, count, first, record) =>
	    timeOps(srv[id], id, sc, count, res[id], record));
	if (sc.op === 'insert') {
		for (const id of sides) {
			if (!res[id].error) {
				try {
					await readBack(srv[id], id, res[id]);
				} catch (e) {
					res[id].readBack = `reading them back failed: ${e.message}`;
					res[id].wrong = (res[id].wrong ?? 0) + 1;
					res[id].firstWrong ??= res[id].readBack;
				}
			}
		}
	}
	results.set(sc.id, res);
}

for (const id of sides) {
	const s = srv[id];
	if (s.exit.at !== null)
		s.exited = `${s.exit.code ?? s.exit.signal}; stderr: ${s.stderr().trim().slice(-300)}`;
	s.peakRss = vmHWM(s.pid);
	s.endPss = treePss(s.pid);
	await s.client.close();
}
const loadAfter = os.loadavg();
cleanup();

// ---------------------------------------------------------------- the report

const has = sides.includes('toolcell');
const anchors = sides.filter((id) => id !== 'toolcell');

/* The anchor with the lowest |value| among those that passed |r| (every
 * anchor, for rows without answers to check). */
function fastest(value, r) {
	let best;
	for (const a of anchors) {
		const v = value(a);
		if (Number.isFinite(v) && (r === undefined || passed(r[a])) && (best === undefined || v < best.v))
			best = { id: a, v };
	}
	return best;
}

const out = [];
const row2 = (...c) => out.push(`| ${c.join(' | ')} |`);

const envShown = Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v} `).join('');
const niceness = os.getPriority();
const cmd = `${envShown}${niceness ? `nice -n ${niceness} ` : ''}node bench/sqlite-vs-anchors.mjs ${buildArg}`;
const cpu = (os.cpus()[0]?.model ?? '?').trim().replace(/\s+/g, ' ');
const sqlShown = (req) => `\`${req.name} ${JSON.stringify(req.arguments)}\``;

out.push(`${quick ? 'Smoke run (BENCH_QUICK=1: few iterations; not a measurement)' : 'Full run'}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
out.push('');
out.push(`- command: \`${cmd}\` (from the repo root; \`make bench\` runs it last)`);
out.push(`- machine: ${os.availableParallelism()} CPUs (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, node ${process.version}, uid ${process.getuid()}`);
out.push(`- load average (1 min) before / after: ${loadBefore[0].toFixed(2)} / ${loadAfter[0].toFixed(2)}`);
out.push(`- client: @modelcontextprotocol/sdk ${clientSdkVersion} (tests/e2e/sdk), read buffer raised to 256 MiB`);
out.push(`- database: \`items (${COLS.join(', ')})\`, ${ROWS.toLocaleString('en-US')} rows (integer key, text, integer, real, text NULL on every tenth row), ${(dbBytes / MiB).toFixed(1)} MiB, rollback journal, generated in ${(genMs / 1000).toFixed(1)} s under ${os.tmpdir()} (removed after); a copy of its own per server`);
if (!has)
	out.push(`- toolcell-sqlite: not measured (${path.relative(repo, ours)} does not exist yet)`);
for (const id of sides) {
	const s = SERVERS[id];
	const info = srv[id]?.info;
	out.push(`- ${s.label}: serverInfo ${info?.name} ${info?.version}, ${s.shown()}; lookup as ${sqlShown(s.read(POINT_SQL, [4242]))}, insert as ${sqlShown(s.write(INSERT_SQL, newRow(0)))}`);
}
out.push(`- scan: \`${SCAN_SQL}\`, the range moving by 10,007 keys each call; ${gapMs} ms pause before every spaced lookup and every scan; time cap ${capMs / 1000} s per server and scenario (\`*\` after N: stopped by it)`);
out.push('');

const ratioHead = 'fastest anchor\'s p50 / its p50';
row2('scenario', 'server', 'N', 'p50 / p99 ms', 'answer bytes', 'wrong answers', ratioHead);
row2('---', '---', '---:', '---:', '---:', '---:', '---:');
const coldTitle = 'cold start (spawn to initialize result)';
for (const [id, title] of [['cold', coldTitle], ...SCENARIOS.map((s) => [s.id, s.title])]) {
	const r = results.get(id);
	if (!r)
		continue;
	const best = fastest((a) => p50(r[a]), id === 'cold' ? undefined : r);
	for (const side of sides) {
		const x = r[side];
		let lat;
		if (x.error)
			lat = `**failed**: ${esc(x.error).slice(0, 120)}`;
		else
			lat = `${fmt(pct(x.samples, 50))} / ${fmt(pct(x.samples, 99))}`;
		const wrong = x.error ? '—' : x.wrong ? `**${x.wrong} of ${x.ops}**` : id === 'cold' ? '' : `0 of ${x.ops}`;
		let ratio = '';
		if (best && Number.isFinite(p50(x)))
			ratio = `${fmt(best.v / p50(x))}×${x.wrong ? ' (wrong answers)' : ''}`;
		const bytes = x.bytes ? x.bytes.toLocaleString('en-US') : '';
		row2(title, SERVERS[side].label, x.samples ? `${x.samples.length}${x.capped ? '*' : ''}` : '—', lat, bytes, wrong, ratio);
	}
}
if (runs('rss')) {
	const mem = {
		idleRss: (s) => s.idleRss,
		idlePss: (s) => s.idlePss.mib,
		peakRss: (s) => s.peakRss,
		endPss: (s) => s.endPss.mib,
	};
	for (const [what, key] of [['RSS, idle (VmHWM after initialize, tools/list)', 'idleRss'],
	    ['PSS of the process tree, idle', 'idlePss'],
	    ['peak RSS (VmHWM after every scenario above)', 'peakRss'],
	    ['PSS of the process tree, after every scenario above', 'endPss']]) {
		const best = fastest((a) => mem[key](srv[a]));
		for (const side of sides) {
			const v = mem[key](srv[side]);
			const n = key.endsWith('Pss') ? srv[side][key].n : 0;
			const procs = n ? ` (${n} process${n > 1 ? 'es' : ''})` : '';
			row2(what, SERVERS[side].label, '1', `${fmt(v)} MiB${procs}`, '', '', best ? `${fmt(best.v / v)}×` : '');
		}
	}
}
out.push('');
out.push(`${ratioHead}: the p50 of the fastest anchor that answered every call right, over the server's p50 (memory: the smallest anchor's figure over the server's); above 1, the server is faster or smaller than every anchor. answer bytes: the size of the first answer's result as JSON (what the client parses). A wrong answer is a lookup that is not its row with every value, a scan that is not all ${SCAN.toLocaleString('en-US')} rows in order, an insert that failed or did not change one row (where the server says), and after the inserts each row not read back as inserted; counted over every timed and warm-up operation; the times of a server with wrong answers are for reference only. RSS is VmHWM of the process the client started (toolcell-sqlite: the server process only, not its spawner nor the children that run the statements); the PSS rows add every process of the tree (toolcell-sqlite: its spawner and the ready children too).`);

const notes = [];
for (const [id, r] of results) {
	for (const side of sides) {
		const x = r[side];
		if (x?.firstWrong)
			notes.push(`- ${id} / ${SERVERS[side].label}: ${x.wrong} of ${x.ops} wrong; first: ${esc(x.firstWrong).slice(0, 300)}`);
		if (x?.error && id === 'cold')
			notes.push(`- ${id} / ${SERVERS[side].label}: ${esc(x.error).slice(0, 300)}`);
	}
}
if (results.has('insert')) {
	const r = results.get('insert');
	const rb = sides.filter((s) => r[s].readBack).map((s) => `${SERVERS[s].label} ${r[s].readBack}`);
	if (rb.length)
		notes.push(`- inserts read back after the scenario: ${rb.join('; ')}`);
}
for (const side of sides) {
	if (srv[side].exited)
		notes.push(`- ${SERVERS[side].label}: the server exited during the run (${esc(srv[side].exited)})`);
}

// Targets.
if (has) {
	const tgt = [];
	for (const sc of SCENARIOS.filter((c) => results.has(c.id))) {
		const r = results.get(sc.id);
		const best = fastest((a) => p50(r[a]), r);
		const ratio = best ? best.v / p50(r.toolcell) : NaN;
		const need = sc.op === 'scan' ? 1.5 : 1;
		const verdict = passed(r.toolcell) && (need > 1 ? ratio >= need : ratio > 1) ? 'met' : '**not met**';
		tgt.push(`- ${sc.title}: ${need > 1 ? `at least ${need}×` : 'faster than'} the fastest anchor${best ? ` (${SERVERS[best.id].label})` : ''}: ${Number.isFinite(ratio) ? `${fmt(ratio)}×, ` : ''}${best ? verdict : anchors.length ? 'no anchor answered right' : 'no anchor measured'}${r.toolcell.wrong ? `; ${r.toolcell.wrong} wrong answers` : ''}`);
	}
	out.push('');
	out.push('Targets (issue 17):');
	out.push('');
	out.push(...tgt);
}
if (notes.length) {
	out.push('');
	out.push('Wrong answers, failures and notes:');
	out.push('');
	out.push(...notes);
}
console.log(out.join('\n'));
