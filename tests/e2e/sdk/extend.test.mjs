// extend.test.mjs: a server extends toolcell through struct tc_server
// (common/serve/server.h) without editing common/.  The test-only
// toolcell-sample (tests/sample/sample.c) takes each extension point its
// own way: options of its own (-g, --greeting TEXT, which --print-config
// passes on; --loud, which it does not), no positional arguments, its own
// instructions, a tool offered only under a condition of its own, and
// resources that are not files.  Driven with the official MCP client, as
// toolcell-fs is.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { BUILD, call, makeScratch, runServer, startServer, textOf } from './lib.mjs';

const SAMPLE = path.join(BUILD, 'tests', 'toolcell-sample');
const HINT = "try 'toolcell-sample --help'";

const scratch = await makeScratch('extend');
after(() => scratch.cleanup());

const run = (args) => runServer(args, SAMPLE);
const serve = (args, opts = {}) => startServer(args, { ...opts, server: SAMPLE });
const lines = (s) => s.split('\n').filter((l) => l !== '');

describe('the command line: options of its own, no positional arguments', () => {
	test('--help lists its options with the common ones, and no operands', async () => {
		const r = await run(['--help']);
		assert.equal(r.status, 0, r.stderr);
		assert.equal(r.stdout, '');
		const [synopsis, rest] = r.stderr.split('\n\n', 2);
		assert.match(synopsis, /^usage: toolcell-sample /);
		assert.match(synopsis, /\[-g TEXT\]/);
		assert.match(synopsis, /\[--loud\]/);
		assert.doesNotMatch(synopsis, /\.\.\.\]/, 'no positional arguments in the usage');
		// --print-config's line names what it passes on: -g, not --loud.
		const pc = synopsis.split('\n').find((l) => l.includes('--print-config HOST'));
		assert.match(pc, /\[-p FILE\] \[-g TEXT\]$/);
		assert.match(rest, /^ {2}-g, --greeting TEXT {6}greet with TEXT, one word \(default hello\)$/m);
		assert.match(rest, /^ {6}--loud {15}offer the shout tool as well$/m);
		for (const common of ['--policy', '--check', '--print-config', '--timeout', '--run-as',
		    '--max-message-bytes', '--allow-degraded', '--verbose', '--quiet', '--version', '--help'])
			assert.ok(rest.includes(common), `--help does not explain ${common}`);
		// Its own options sit between what is served and the rest.
		assert.ok(rest.indexOf('--print-config') < rest.indexOf('--greeting'));
		assert.ok(rest.indexOf('--loud') < rest.indexOf('--timeout'));
		assert.doesNotMatch(rest, /DIR/);
	});

	test('a positional argument is a usage error that says what it takes instead', async () => {
		for (const args of [['bob'], ['-g', 'hi', 'bob'], ['bob', '--loud']]) {
			const r = await run(args);
			assert.equal(r.status, 2, r.stderr);
			assert.equal(r.stdout, '');
			assert.equal(lines(r.stderr).length, 1, r.stderr);
			assert.equal(r.stderr, "toolcell-sample: error: unexpected argument 'bob': "
			    + 'toolcell-sample takes options only; say whom to greet in the call, and how '
			    + `with --greeting TEXT; ${HINT}\n`);
		}
	});

	test("its option's setter refuses a bad value: a usage error naming the option", async () => {
		for (const [args, want] of [
			[['--greeting', 'two words'], "--greeting: 'two words' is not one word of letters"],
			[['-g', ''], '--greeting: a greeting is 1 to 64 letters'],
			[['--greeting'], "option '--greeting' needs a value"],
			[['--loud=yes'], "option '--loud' takes no value"],
			[['--loudly'], "unknown option '--loudly'"],
		]) {
			const r = await run(args);
			assert.equal(r.status, 2, r.stderr);
			assert.equal(r.stderr, `toolcell-sample: error: ${want}; ${HINT}\n`);
		}
	});

	test('its options are abbreviated as the common ones are', async () => {
		const r = await run(['--gree', 'hey', '--lou', '--check']);
		assert.equal(r.status, 0, r.stderr);
	});

	test('--print-config passes on its carried option, not the other', async () => {
		const r = await run(['--print-config', 'cursor', '--loud', '-g', 'hey', '-t', '5000']);
		assert.equal(r.status, 0, r.stderr);
		const entry = JSON.parse(r.stdout).mcpServers['toolcell-sample'];
		assert.deepEqual(entry.args, ['--timeout', '5000', '--greeting', 'hey']);
	});
});

describe('serving: its instructions, tools and resources', () => {
	test('its instructions, with how calls run added', async () => {
		const srv = await serve(['--greeting', 'hi']);
		try {
			assert.equal(srv.initResult.instructions, "toolcell-sample greets with 'hi'. "
			    + 'Every call runs in a confined, short-lived process.');
			assert.deepEqual(srv.initResult.capabilities.resources, { listChanged: true });
			const r = await call(srv, 'greet', { name: 'x' });
			assert.equal(textOf(r), 'hi, x!', 'the option reached the confined child');
		} finally {
			await srv.close();
		}
	});

	test('a tool the server does not offer is left out, and a call of it says why', async () => {
		let srv = await serve([]);
		try {
			const { tools } = await srv.client.listTools();
			assert.deepEqual(tools.map((t) => t.name), ['greet']);
			await assert.rejects(call(srv, 'shout'), (e) => e instanceof McpError
			    && e.code === -32602
			    && /tool 'shout' is not offered: start the server with --loud/.test(e.message));
		} finally {
			await srv.close();
		}
		srv = await serve(['--loud']);
		try {
			const { tools } = await srv.client.listTools();
			assert.deepEqual(tools.map((t) => t.name), ['greet', 'shout']);
			assert.equal(textOf(await call(srv, 'shout', { name: 'y' })), 'hello, y!!!');
		} finally {
			await srv.close();
		}
	});

	test('its resources: listed, templated, and read through its tool', async () => {
		const srv = await serve(['-g', 'hey']);
		try {
			const { resources } = await srv.client.listResources();
			assert.deepEqual(resources, [{ uri: 'sample://greeting', name: 'greeting',
			    mimeType: 'text/plain' }]);
			const { resourceTemplates } = await srv.client.listResourceTemplates();
			assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate),
			    ['sample://greeting/{name}']);
			let r = await srv.client.readResource({ uri: 'sample://greeting/bob' });
			assert.deepEqual(r.contents, [{ uri: 'sample://greeting/bob', mimeType: 'text/plain',
			    text: 'hey, bob!' }]);
			r = await srv.client.readResource({ uri: 'sample://greeting' });
			assert.equal(r.contents[0].text, 'hey, world!');
			await assert.rejects(srv.client.readResource({ uri: 'file:///etc/passwd' }),
			    (e) => e instanceof McpError && e.code === -32002
			    && /resource not found: only sample:\/\/greeting URIs are served/.test(e.message));
			// The provider's arguments are checked as the tool's are.
			await assert.rejects(srv.client.readResource({ uri: 'sample://greeting/' }),
			    (e) => e instanceof McpError && e.code === -32002
			    && /argument 'name'/.test(e.message));
		} finally {
			await srv.close();
		}
	});

	test('the policy switching its resource tool off takes the resources away', async () => {
		const pol = await scratch.policy([`allow read ${scratch.root}`, 'tool read_greeting off']);
		const srv = await serve(['--policy', pol]);
		try {
			assert.equal(srv.initResult.capabilities.resources, undefined);
			await assert.rejects(srv.client.listResources(),
			    (e) => e instanceof McpError && e.code === -32601);
		} finally {
			await srv.close();
		}
	});
});
