import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const [bin, pol, ...cmds] = process.argv.slice(2);
const t = new StdioClientTransport({ command: bin, args: ['--policy', pol], stderr: 'inherit', env: { HOME: '/tmp/gt/n/home', PATH: '/usr/bin:/bin' } });
const c = new Client({ name: 't', version: '1' });
await c.connect(t);
for (const cmd of cmds) {
	const r = await c.callTool({ name: 'run_command', arguments: { argv: ['sh', '-c', cmd], cwd: '/tmp/gt/n' } });
	console.log(r.isError ? r.content[0].text : JSON.stringify({ out: r.structuredContent.stdout, err: r.structuredContent.stderr }));
}
await c.close();
