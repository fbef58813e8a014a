// A small DOM for running the Fleet tab's script in node: enough for what the script calls. Reads the view JSON
// from the file named on the command line, runs the script from stdin, prints the tables it drew as JSON.
'use strict';
const fs = require('fs');
class Node {
  constructor(tag) { this.tag = tag; this.children = []; this.attrs = {}; this.text = ''; this.id = ''; }
  appendChild(child) { this.children.push(child); return child; }
  replaceChildren(...kids) { this.children = kids; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  removeAttribute(k) { delete this.attrs[k]; }
  cloneNode() { const copy = new Node(this.tag); copy.attrs = {...this.attrs}; return copy; }
  set textContent(v) { this.text = String(v); this.children = []; }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(''); }
  set innerHTML(v) { this.html = v; }
  createTHead() { return this.appendChild(new Node('thead')); }
  createTBody() { return this.appendChild(new Node('tbody')); }
  insertRow() { return this.appendChild(new Node('tr')); }
  insertCell() { return this.appendChild(new Node('td')); }
}
const byId = {
  fleet: Object.assign(new Node('main'), {attrs: {'data-api': '/api', 'data-refresh': '5'}}),
  view: new Node('div'), status: new Node('p'), legend: new Node('p'),
};
global.Node = Node;
global.document = {
  createElement: (tag) => new Node(tag),
  createDocumentFragment: () => new Node('#fragment'),
  createTextNode: (text) => Object.assign(new Node('#text'), {text: String(text)}),
  getElementById: (id) => byId[id] || null,
  documentElement: new Node('html'),
};
global.setTimeout = () => {};
const body = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
global.fetch = () => Promise.resolve({ok: true, status: 200, json: () => Promise.resolve(body)});
function find(node, id) {
  if (node.id === id) { return node; }
  for (const child of node.children) { const hit = find(child, id); if (hit) { return hit; } }
  return null;
}
function rows(table) {
  return table.children.map((part) => part.children.map((row) => row.children.map((c) => c.textContent)));
}
eval(fs.readFileSync(0, 'utf8'));
setImmediate(() => setImmediate(() => {
  const jobs = find(byId.view, 'jobs');
  const summary = find(byId.view, 'metric-summary');
  const models = find(byId.view, 'models');
  const counts = find(byId.view, 'model-counts');
  process.stdout.write(JSON.stringify({
    jobs: jobs ? rows(jobs) : null,
    summary: summary ? summary.children.map((li) => li.textContent) : null,
    models: models ? rows(models) : null,
    model_counts: counts ? counts.textContent : null,
    status: byId.status.textContent,
  }));
}));
