// Drives a real headless Chromium through its DevTools protocol, as a person on a phone would use
// a Courier share via link: opens the page (the PIN in its address, or typed into its form),
// waits for the list, clicks every file's link and waits for each download to finish.
//
//   node browser-download.mjs URL DOWNLOAD_FOLDER [PIN_TO_TYPE]
//   node browser-download.mjs --probe      (exit 0 when a WebSocket client is at hand, else 3)
//
// The WebSocket client is Node's own (Node 22 and later) or, before it (Debian 12's Node 18),
// Debian's ws package (node-ws), which offers the same interface.
//
// Prints one JSON object: the page's status line, the names listed (their text), and each
// download (the name the browser suggested, the file it wrote in DOWNLOAD_FOLDER, its state).
// Chromium runs as the test does (root: --no-sandbox), and accepts the share's self-signed
// certificate (--ignore-certificate-errors), as a person clicking through the warning does.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WebSocketClient = globalThis.WebSocket ?? (() => {
  const require = createRequire(import.meta.url);
  for (const name of ['ws', '/usr/share/nodejs/ws']) {
    try { return require(name); } catch {}
  }
  return undefined;
})();
if (process.argv[2] === '--probe') process.exit(WebSocketClient ? 0 : 3);
if (!WebSocketClient) {
  process.stdout.write(JSON.stringify({ error: 'no WebSocket client: Node 22 or later, or Debian\'s node-ws' }) + '\n');
  process.exit(3);
}

const [url, folder, typedPIN] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'courier-link-chromium-'));
const chromium = spawn('/usr/bin/chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--ignore-certificate-errors', '--no-first-run',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe'] });
const finish = (code, text) => {
  if (text) process.stdout.write(text + '\n');
  chromium.kill('SIGKILL');
  try { rmSync(profile, { recursive: true, force: true }); } catch {}
  process.exit(code);
};
setTimeout(() => finish(2, JSON.stringify({ error: 'timed out' })), 90_000).unref();

const endpoint = await new Promise((resolve, reject) => {
  let seen = '';
  chromium.stderr.on('data', (chunk) => {
    seen += chunk;
    const found = seen.match(/DevTools listening on (ws:\/\/\S+)/);
    if (found) resolve(found[1]);
  });
  chromium.on('exit', () => reject(new Error('chromium ended: ' + seen)));
});

const socket = new WebSocketClient(endpoint);
await new Promise((resolve) => socket.addEventListener('open', resolve));
let next = 0;
const pending = new Map();
const listeners = [];
socket.addEventListener('message', (event) => {
  const message = JSON.parse(event.data);
  if (message.id !== undefined && pending.has(message.id)) {
    const { resolve, reject } = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) reject(new Error(JSON.stringify(message.error))); else resolve(message.result);
  } else {
    for (const listener of listeners) listener(message);
  }
});
const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const id = ++next;
  pending.set(id, { resolve, reject });
  socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const downloads = new Map();
listeners.push((message) => {
  if (message.method === 'Browser.downloadWillBegin') {
    downloads.set(message.params.guid, { suggested: message.params.suggestedFilename, file: join(folder, message.params.guid), state: 'started' });
  } else if (message.method === 'Browser.downloadProgress' && downloads.has(message.params.guid)) {
    downloads.get(message.params.guid).state = message.params.state;
  }
});

await send('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: folder, eventsEnabled: true });
const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
const evaluate = async (expression) => (await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId)).result.value;
await send('Page.navigate', { url }, sessionId);

const status = () => evaluate("document.getElementById('status') ? document.getElementById('status').textContent : ''");
const listed = () => evaluate("Array.from(document.querySelectorAll('#files a')).map(function (a) { return a.textContent; })");
const settled = async () => {
  for (let i = 0; i < 300; i++) {
    const text = await status().catch(() => '');
    if (text && text !== 'Loading…') return text;
    await sleep(100);
  }
  return await status();
};
let text = await settled();
if (typedPIN !== undefined) {
  await evaluate(`document.getElementById('pin').value = ${JSON.stringify(typedPIN)}; document.getElementById('status').textContent = 'Loading…'; document.querySelector('#pin-form button').click(); true`);
  text = await settled();
}
const names = await listed();
const count = names.length;
for (let i = 0; i < count; i++) {
  await evaluate(`document.querySelectorAll('#files a')[${i}].click(); true`);
}
for (let i = 0; i < 600; i++) {
  const states = [...downloads.values()].map((d) => d.state);
  if (states.length >= count && states.every((s) => s === 'completed' || s === 'canceled')) break;
  await sleep(100);
}
finish(0, JSON.stringify({ status: text, names, downloads: [...downloads.values()] }));
