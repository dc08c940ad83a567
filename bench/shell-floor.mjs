// shell-floor.mjs: the calibration server of bench/shell-vs-anchors.mjs.
// It runs nothing: its one tool, run_command {argv}, answers `echo WORD...`
// with the words and `cat FILE` with the file as read when the server
// started (FILE must be named on the command line), as one text block.
// What a call to it costs is what the client, node's pipes and the size
// of the answer cost: no shell server can answer faster through the same
// client.
//
//   node bench/shell-floor.mjs [FILE...]
//
// Newline-delimited JSON-RPC on stdin and stdout, no SDK.
import fs from 'node:fs';
import process from 'node:process';

const files = new Map(process.argv.slice(2).map((f) => [f, fs.readFileSync(f, 'utf8')]));

function reply(id, result) {
	process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

function run(argv) {
	const name = String(argv?.[0] ?? '').split('/').pop();
	if (name === 'echo')
		return `${argv.slice(1).join(' ')}\n`;
	if (name === 'cat' && argv.length === 2 && files.has(argv[1]))
		return files.get(argv[1]);
	return null;
}

function handle(msg) {
	const { id, method, params } = msg;
	if (id === undefined)
		return;		// a notification
	if (method === 'initialize') {
		reply(id, {
			protocolVersion: params?.protocolVersion ?? '2025-06-18',
			capabilities: { tools: {} },
			serverInfo: { name: 'toolcell-bench-floor', version: '0' },
		});
	} else if (method === 'tools/list') {
		reply(id, {
			tools: [{
				name: 'run_command',
				description: 'Answers echo and cat of the files it was started with, from memory.',
				inputSchema: { type: 'object', properties: { argv: { type: 'array', items: { type: 'string' } } }, required: ['argv'] },
			}],
		});
	} else if (method === 'tools/call') {
		const out = run(params?.arguments?.argv);
		reply(id, out === null
		    ? { content: [{ type: 'text', text: 'only echo and cat of a file it was started with' }], isError: true }
		    : { content: [{ type: 'text', text: out }] });
	} else if (method === 'ping') {
		reply(id, {});
	} else {
		process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'no such method' } })}\n`);
	}
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
	pending += d;
	let nl;
	while ((nl = pending.indexOf('\n')) >= 0) {
		const line = pending.slice(0, nl);
		pending = pending.slice(nl + 1);
		if (line.trim())
			handle(JSON.parse(line));
	}
});
