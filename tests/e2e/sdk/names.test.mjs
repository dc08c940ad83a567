// names.test.mjs: what a model is told when it names a tool or an
// argument the server does not take.  A write tool on a server without a
// writable directory says why it is not offered, instead of "unknown
// tool"; an unknown tool's name close to one offered gets a "did you
// mean"; an unknown argument is refused (as ever) with the arguments the
// tool takes, and a "did you mean" when one is close; one that another
// tool takes (run_command's "tty", which is start_command's) names that
// tool, unless the policy leaves it out.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	BUILD, FS_WRITE_TOOL_NAMES, call, fileUri, logRecords, makeScratch, makeTree, startServer, textOf,
} from './lib.mjs';

let tree;
const base = await makeScratch('names');

before(async () => {
	tree = await makeTree({ 'ro/a.txt': 'alpha\n', 'rw/b.txt': 'bravo\n' });
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

/* Asserts that calling |name| is a JSON-RPC error -32602 whose message is
 * |want| (a string: exactly; a RegExp: matching). */
async function refused(srv, name, args, want) {
	await assert.rejects(call(srv, name, args), (e) => {
		assert.ok(e instanceof McpError, String(e));
		assert.equal(e.code, -32602);
		const msg = e.message.replace(/^MCP error -32602: /, '');
		if (typeof want === 'string')
			assert.equal(msg, want);
		else
			assert.match(msg, want);
		return true;
	});
}

/* Asserts that |r| is a tool error whose text is |want|; returns it. */
function toolError(r, want) {
	assert.equal(r.isError, true, JSON.stringify(r));
	assert.equal(textOf(r), want);
}

const NOT_WRITABLE = (name) => `tool '${name}' is not offered: no directory is writable `
    + "(start the server with --write DIR, or give its policy an 'allow write DIR' rule)";

describe('a write tool without a writable directory', () => {
	let srv;
	before(async () => {
		srv = await startServer([tree.p('ro')]);
	});
	after(async () => {
		await srv?.close();
	});

	test('says why it is not offered, for every write tool', async () => {
		const args = {
			write_file: { path: 'x.txt', content: 'y' },
			edit_file: { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] },
			create_directory: { path: 'd' },
			move_file: { source: 'a.txt', destination: 'c.txt' },
			delete_file: { path: 'a.txt' },
		};
		for (const name of FS_WRITE_TOOL_NAMES)
			await refused(srv, name, args[name], NOT_WRITABLE(name));
	});

	test('and the audit log records that reason', async () => {
		const d = await base.ownedDir();
		const log = `${d}/ro.jsonl`;
		const p = await base.policy([`allow read ${tree.p('ro')}`, `audit ${log}`]);
		const s = await startServer(['--policy', p]);
		try {
			await refused(s, 'write_file', { path: 'x.txt', content: 'y' }, NOT_WRITABLE('write_file'));
		} finally {
			await s.close();
		}
		const c = (await logRecords(log)).find((r) => r.event === 'call');
		assert.equal(c.tool, 'write_file');
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'validation');
		assert.equal(c.reason, NOT_WRITABLE('write_file'));
	});

	test('a write tool the policy switches off is still an unknown tool', async () => {
		const p = await base.policy([`allow write ${tree.p('rw')}`, 'tool write_file off']);
		const s = await startServer(['--policy', p]);
		try {
			await refused(s, 'write_file', { path: 'x.txt', content: 'y' }, "unknown tool 'write_file'");
		} finally {
			await s.close();
		}
	});

	test('when the client\'s roots leave only read-only directories, it says so', async () => {
		const p = await base.policy([`allow read ${tree.p('ro')}`, `allow write ${tree.p('rw')}`]);
		const s = await startServer(['--policy', p], {
			capabilities: { roots: {} }, listTools: false,
			handlers: [[ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(tree.p('ro')) }] })]],
		});
		try {
			// Once the roots are applied (this call waits for them).
			const r = await call(s, 'list_allowed_directories', {});
			assert.deepEqual(r.structuredContent.directories,
			    [{ path: tree.p('ro'), access: 'read-only' }]);
			await refused(s, 'write_file', { path: 'x.txt', content: 'y' },
			    "tool 'write_file' cannot run now: no directory is writable (the client's roots "
			    + 'leave only read-only directories of the policy)');
		} finally {
			await s.close();
		}
	});
});

describe('an unknown tool', () => {
	let srv;
	before(async () => {
		srv = await startServer([tree.p('ro')]);
	});
	after(async () => {
		await srv?.close();
	});

	test('close to a tool offered: did you mean', async () => {
		for (const [given, meant] of [['read_fiel', 'read_file'], ['search_file', 'search_files'],
		    ['Read_Text_File', 'read_text_file'], ['list-directory', 'list_directory'],
		    ['get_fileinfo', 'get_file_info'], ['directory_tre', 'directory_tree']])
			await refused(srv, given, {}, `unknown tool '${given}'; did you mean '${meant}'?`);
	});

	test('far from every tool: no guess', async () => {
		for (const given of ['xyz', 'list_dir', 'cat', 'write', 'execute_command', 'a'.repeat(200)])
			await refused(srv, given, {}, `unknown tool '${given.slice(0, 100)}${given.length > 100 ? '\u2026' : ''}'`);
	});

	test('a write tool is not guessed where none is offered', async () => {
		await refused(srv, 'write_fiel', {}, "unknown tool 'write_fiel'");
	});
});

describe('an unknown argument', () => {
	let srv;
	before(async () => {
		srv = await startServer(['--write', tree.p('rw')]);
	});
	after(async () => {
		await srv?.close();
	});

	test('names the arguments the tool takes, and the one meant', async () => {
		toolError(await call(srv, 'read_text_file', { path: 'b.txt', heda: 1 }),
		    "invalid arguments for 'read_text_file': unknown argument 'heda' (did you mean "
		    + "'head'?); the tool takes: path, head, tail, offset, limit, max_bytes");
		toolError(await call(srv, 'read_text_file', { path: 'b.txt', bogus: 1 }),
		    "invalid arguments for 'read_text_file': unknown argument 'bogus'; the tool "
		    + 'takes: path, head, tail, offset, limit, max_bytes');
	});

	test('the longest list of arguments is given whole', async () => {
		toolError(await call(srv, 'search_file_contents', { path: '.', pattern: 'x', max_results: 5 }),
		    "invalid arguments for 'search_file_contents': unknown argument 'max_results' (did "
		    + "you mean 'maxResults'?); the tool takes: path, pattern, regex, ignoreCase, include, "
		    + 'excludePatterns, contextLines, maxResults, offset, maxFileBytes, timeBudget, '
		    + 'maxDepth');
	});

	test('in an item of an array of objects', async () => {
		toolError(await call(srv, 'edit_file', { path: 'b.txt',
		    edits: [{ oldText: 'bravo', newText: 'b', replace_all: true }] }),
		    "invalid arguments for 'edit_file': argument 'edits'[0]: unknown argument "
		    + "'replace_all' (did you mean 'replaceAll'?); an item takes: oldText, newText, "
		    + 'replaceAll');
	});

	test('a tool that takes none says so', async () => {
		toolError(await call(srv, 'list_allowed_directories', { path: '.' }),
		    "invalid arguments for 'list_allowed_directories': unknown argument 'path'; the "
		    + 'tool takes no arguments');
	});
});

describe('an argument another tool takes', () => {
	const SHELL = path.join(BUILD, 'toolcell-shell');
	const RUN_TAKES = 'the tool takes: argv, cwd, stdin, env, timeout_ms, max_output_bytes, binary';

	async function shell(more = []) {
		const p = await base.policy([`allow read ${tree.p('ro')}`, ...more, '[shell]',
		    'program /bin/echo']);
		return startServer(['--policy', p], { server: SHELL });
	}

	test('tty on run_command: it has no terminal, start_command takes one', async () => {
		const srv = await shell();
		try {
			toolError(await call(srv, 'run_command', { argv: ['/bin/echo'], tty: true }),
			    "invalid arguments for 'run_command': unknown argument 'tty' (run_command has no "
			    + `terminal; start_command takes 'tty'); ${RUN_TAKES}`);
		} finally {
			await srv.close();
		}
	});

	test('not when the policy leaves start_command out', async () => {
		const srv = await shell(['tool start_command off']);
		try {
			toolError(await call(srv, 'run_command', { argv: ['/bin/echo'], tty: true }),
			    `invalid arguments for 'run_command': unknown argument 'tty'; ${RUN_TAKES}`);
		} finally {
			await srv.close();
		}
	});
});
