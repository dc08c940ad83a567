// demo.mjs: a short scripted session in which the official MCP client
// (@modelcontextprotocol/sdk) drives toolcell-fs over stdio, printed for a
// person to read.
//
//   node tests/e2e/demo.mjs BUILD      (make demo)
//
// It serves tests/fixtures/sample read-only, makes a few calls, then shows
// two requests the server refuses; then toolcell-shell runs one program
// there and refuses one the policy does not list; then toolcell-sqlite
// makes a table in a new database, queries it with a bound parameter and
// refuses an ATTACH.  Exits 0 when everything went as expected, 1 with a
// message otherwise.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SDK_DIR = path.join(REPO, 'tests/e2e/sdk');
const SAMPLE_REL = 'tests/fixtures/sample';
const SAMPLE = path.join(REPO, SAMPLE_REL);
const MAX_LINES = 15;
const TIMEOUT = 10_000;

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint('1');
const dim = paint('2');
const red = paint('31');
const green = paint('32');
const cyan = paint('36');

function fail(msg) {
	process.stderr.write(`demo: ${msg}\n`);
	process.exit(1);
}

const out = (s = '') => process.stdout.write(`${s}\n`);

/* Prints |text| indented, at most MAX_LINES lines. */
function block(text, color = (s) => s) {
	const lines = String(text).replace(/\n+$/, '').split('\n');
	for (const l of lines.slice(0, MAX_LINES))
		out(`    ${color(l)}`);
	if (lines.length > MAX_LINES)
		out(dim(`    ... (${lines.length - MAX_LINES} more lines)`));
}

/* Wraps |text| at |width| columns, on spaces. */
function wrap(text, width = 72) {
	const lines = [];
	for (const para of String(text).split('\n')) {
		let cur = '';
		for (const w of para.split(' ')) {
			if (cur && cur.length + 1 + w.length > width) {
				lines.push(cur);
				cur = w;
			} else {
				cur = cur ? `${cur} ${w}` : w;
			}
		}
		lines.push(cur);
	}
	return lines.join('\n');
}

function heading(s) {
	out();
	out(bold(cyan(`== ${s}`)));
}

/* The text of a tool result: all its text items. */
function resultText(r) {
	return (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

if (process.argv.length !== 3)
	fail('usage: node tests/e2e/demo.mjs BUILD');
const build = path.resolve(process.argv[2]);
const server = path.join(build, 'toolcell-fs');
if (!existsSync(server))
	fail(`${server} does not exist: run make first`);
if (!existsSync(path.join(SDK_DIR, 'node_modules/@modelcontextprotocol/sdk')))
	fail(`the MCP SDK is not installed: run 'cd ${path.relative(process.cwd(), SDK_DIR) || '.'} && npm ci' (make demo does)`);

const { Client, StdioClientTransport } = await import('./sdk/lib.mjs');
const sdkVersion = JSON.parse(readFileSync(
    path.join(SDK_DIR, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version;

const shown = path.relative(REPO, server).startsWith('..') ? server : path.relative(REPO, server);
const transport = new StdioClientTransport({
	command: server,
	args: [SAMPLE_REL],
	cwd: REPO,
	stderr: 'pipe',
});
let serverErr = '';
transport.stderr.setEncoding('utf8');
transport.stderr.on('data', (s) => { serverErr += s; });

// Tap the raw initialize result: the SDK keeps no copy of the version.
let negotiated = null;
const start = transport.start.bind(transport);
transport.start = async () => {
	const h = transport.onmessage;
	transport.onmessage = (m) => {
		if (negotiated === null && m?.result?.protocolVersion)
			negotiated = m.result.protocolVersion;
		h?.(m);
	};
	await start();
};

const client = new Client({ name: 'toolcell-demo', version: '1.0.0' }, { capabilities: {} });

async function callTool(name, args) {
	out();
	out(`${bold('tools/call')} ${name} ${dim(JSON.stringify(args))}`);
	return client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT });
}

function expectOk(r, what) {
	if (r.isError)
		throw new Error(`${what}: unexpected tool error: ${resultText(r)}`);
	block(resultText(r));
}

function expectRefused(r, what) {
	if (!r.isError)
		throw new Error(`${what}: the server did not refuse it: ${resultText(r)}`);
	if (/root:[^:\n]*:0:0:/.test(resultText(r)))
		throw new Error(`${what}: the refusal shows the file's contents`);
	out(`    ${red('isError: true')}`);
	block(resultText(r), red);
}

async function main() {
	out(bold(`toolcell demo: the official MCP client (@modelcontextprotocol/sdk ${sdkVersion})`));
	out(bold(`talks to: ${shown} ${SAMPLE_REL}`));

	heading('initialize');
	await client.connect(transport, { timeout: TIMEOUT });
	const info = client.getServerVersion();
	if (info?.name !== 'toolcell-fs')
		throw new Error(`unexpected server name '${info?.name}'`);
	if (!negotiated)
		throw new Error('no protocol version in the initialize result');
	out(`    server:       ${info.name} ${info.version}${info.title ? ` (${info.title})` : ''}`);
	out(`    protocol:     ${negotiated}`);
	out(`    capabilities: ${JSON.stringify(client.getServerCapabilities())}`);
	out('    instructions:');
	block(wrap(client.getInstructions() ?? '(none)').replace(/^/gm, '  '));

	heading('tools/list');
	const { tools } = await client.listTools(undefined, { timeout: TIMEOUT });
	const want = ['list_allowed_directories', 'read_text_file', 'list_directory', 'get_file_info'];
	for (const w of want)
		if (!tools.some((t) => t.name === w))
			throw new Error(`tools/list lacks ${w}`);
	const width = Math.max(...tools.map((t) => t.name.length));
	for (const t of tools) {
		let d = (t.description ?? '').split(/(?<=\.)\s/)[0];
		if (d.length > 72)
			d = `${d.slice(0, 69)}...`;
		const ro = t.annotations?.readOnlyHint ? dim(' [read-only]') : '';
		out(`    ${t.name.padEnd(width)}  ${d}${ro}`);
	}

	heading('calls');
	expectOk(await callTool('list_allowed_directories', {}), 'list_allowed_directories');
	const ls = await callTool('list_directory', { path: '.' });
	expectOk(ls, 'list_directory');
	// A regular file is its name alone; anything else {name, type}.
	const named = (e, n) => e === n || e?.name === n;
	if (!ls.structuredContent?.entries?.some((e) => named(e, 'README.md')))
		throw new Error('list_directory did not list README.md');

	const head = await callTool('read_text_file', { path: 'README.md', head: 5 });
	expectOk(head, 'read_text_file');
	const want5 = readFileSync(path.join(SAMPLE, 'README.md'), 'utf8').split('\n').slice(0, 5);
	const got = head.structuredContent?.content?.replace(/\n$/, '').split('\n');
	if (JSON.stringify(got) !== JSON.stringify(want5))
		throw new Error(`read_text_file head 5 gave ${JSON.stringify(got)}`);

	const infoR = await callTool('get_file_info', { path: 'src/greet.c' });
	expectOk(infoR, 'get_file_info');
	if (infoR.structuredContent?.type !== 'file')
		throw new Error('get_file_info: src/greet.c is not reported as a file');

	heading('refused: the server is confined to the sample directory');
	expectRefused(await callTool('read_text_file', { path: '/etc/passwd' }), 'outside path');
	expectRefused(await callTool('read_text_file', { path: '../../etc/passwd' }), 'traversal');

	heading('refused: secrets inside it are denied by the built-in rules');
	expectRefused(await callTool('read_text_file', { path: '.env' }), 'deny rule');
	const again = await callTool('list_directory', { path: '.' });
	if (again.structuredContent?.entries?.some((e) => named(e, '.env')))
		throw new Error('list_directory named .env, which a deny rule covers');
	out('    (and list_directory does not name it)');

	await client.close();
	await shell();
	await sqlite();
	out();
	out(green('demo finished: every answer was as expected'));
}

/* toolcell-shell on the same directory: one program run, one refused. */
async function shell() {
	const bin = path.join(build, 'toolcell-shell');
	if (!existsSync(bin))
		throw new Error(`${bin} does not exist: run make first`);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'toolcell-demo-'));
	const policy = path.join(dir, 'shell.policy');
	// Quoted: the tree's path may hold a blank.
	const quoted = `"${SAMPLE.replace(/[\\"]/g, '\\$&')}"`;
	writeFileSync(policy, `allow read ${quoted}\n[shell]\nprogram wc read-only\n`, { mode: 0o644 });
	const t = new StdioClientTransport({ command: bin, args: ['--policy', policy], stderr: 'pipe' });
	t.stderr.setEncoding('utf8');
	t.stderr.on('data', (s) => { serverErr += s; });
	const c = new Client({ name: 'toolcell-demo', version: '1.0.0' }, { capabilities: {} });
	try {
		heading(`toolcell-shell: ${shown.replace(/toolcell-fs$/, 'toolcell-shell')} --policy shell.policy`);
		block('allow read tests/fixtures/sample\n[shell]\nprogram wc read-only', dim);
		await c.connect(t, { timeout: TIMEOUT });
		const run = async (argv) => {
			out();
			out(`${bold('tools/call')} run_command ${dim(JSON.stringify({ argv }))}`);
			return c.callTool({ name: 'run_command', arguments: { argv } }, undefined,
			    { timeout: TIMEOUT });
		};
		const wc = await run(['wc', '-l', 'README.md']);
		expectOk(wc, 'run_command wc');
		const lines = readFileSync(path.join(SAMPLE, 'README.md'), 'utf8').split('\n').length - 1;
		if (wc.structuredContent?.stdout !== `${lines} README.md\n`)
			throw new Error(`wc -l README.md gave ${JSON.stringify(wc.structuredContent?.stdout)}`);
		expectRefused(await run(['rm', 'README.md']), 'a program the policy does not list');
	} finally {
		await c.close().catch(() => {});
		rmSync(dir, { recursive: true, force: true });
	}
}

/* toolcell-sqlite on a new database: a table made, a query with a
 * parameter, an ATTACH refused. */
async function sqlite() {
	const bin = path.join(build, 'toolcell-sqlite');
	if (!existsSync(bin))
		throw new Error(`${bin} does not exist: run make first`);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'toolcell-demo-'));
	const policy = path.join(dir, 'sqlite.policy');
	// An empty file is an empty database; the server makes none itself.
	writeFileSync(path.join(dir, 'demo.db'), '');
	const quoted = `"${path.join(dir, 'demo.db').replace(/[\\"]/g, '\\$&')}"`;
	writeFileSync(policy, `[sqlite]\ndatabase demo ${quoted} read-write\n`, { mode: 0o644 });
	const t = new StdioClientTransport({ command: bin, args: ['--policy', policy], stderr: 'pipe' });
	t.stderr.setEncoding('utf8');
	t.stderr.on('data', (s) => { serverErr += s; });
	const c = new Client({ name: 'toolcell-demo', version: '1.0.0' }, { capabilities: {} });
	try {
		heading(`toolcell-sqlite: ${shown.replace(/toolcell-fs$/, 'toolcell-sqlite')} --policy sqlite.policy`);
		block('[sqlite]\ndatabase demo /tmp/.../demo.db read-write', dim);
		await c.connect(t, { timeout: TIMEOUT });
		const sql = async (name, args) => {
			out();
			out(`${bold('tools/call')} ${name} ${dim(JSON.stringify(args))}`);
			const r = await c.callTool({ name, arguments: { database: 'demo', ...args } }, undefined,
			    { timeout: TIMEOUT });
			return r;
		};
		expectOk(await sql('execute', {
			sql: "CREATE TABLE fruit(name TEXT, kg REAL); INSERT INTO fruit VALUES ('apple', 1.5), ('pear', 2)",
		}), 'execute');
		const q = await sql('query', { sql: 'SELECT name, kg FROM fruit WHERE kg > ? ORDER BY name', params: [1] });
		expectOk(q, 'query');
		if (JSON.stringify(q.structuredContent?.rows) !== '[["apple",1.5],["pear",2]]')
			throw new Error(`query gave ${JSON.stringify(q.structuredContent?.rows)}`);
		expectRefused(await sql('query', { sql: "ATTACH '/etc/passwd' AS p" }), 'ATTACH');
	} finally {
		await c.close().catch(() => {});
		rmSync(dir, { recursive: true, force: true });
	}
}

try {
	await main();
} catch (e) {
	await client.close().catch(() => {});
	if (serverErr)
		process.stderr.write(`server stderr:\n${serverErr}`);
	fail(`FAILED: ${e?.message ?? e}`);
}
