// Loads a `moirai export --format perfetto-json` file with Chrome DevTools' own trace engine
// (@paulirish/trace_engine, the Performance panel's model) and checks what it made of it:
//   every slice ("X" event) is in a thread's tree, the unit slices number UNITS;
//   the flows it bound number FLOWS, each bound at both ends to (two different) unit slices.
// usage: node check_flows.mjs FILE.json UNITS FLOWS
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';

// The engine is written for a browser; it only needs DOMRect to exist.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};

const [file, unitsText, flowsText] = process.argv.slice(2);
if (!file || unitsText === undefined || flowsText === undefined) {
  console.error('usage: node check_flows.mjs FILE.json UNITS FLOWS');
  process.exit(2);
}
const expectedUnits = Number(unitsText), expectedFlows = Number(flowsText);
const failures = [];
const check = (ok, message) => { if (!ok) failures.push(message); };

const json = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = json.traceEvents;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const data = model.parsedTrace().data;

// Every slice in the file is an entry of its thread in the engine's model, with a tree node.
const written = events.filter(e => e.ph === 'X').length;
let entries = 0, units = 0, threads = 0;
for (const [, process] of data.Renderer.processes) {
  for (const [, thread] of process.threads) {
    ++threads;
    for (const entry of thread.entries) {
      if (entry.ph !== 'X') continue;
      ++entries;
      if (entry.cat === 'unit') ++units;
      check(data.Renderer.entryToNode.has(entry), `slice ${entry.name} at ${entry.ts} is not in its thread's tree`);
    }
  }
}
check(entries === written, `${written} slices written, ${entries} in the engine's threads`);
check(units === expectedUnits, `${units} unit slices, the export counted ${expectedUnits} units`);

// Every flow bound at both ends to unit slices (the engine keeps a flow only when its two ends
// bind to slices at different times).
const flows = data.Flows.flows;
check(flows.length === expectedFlows, `${flows.length} flows bound, the export wrote ${expectedFlows}`);
for (const flow of flows) {
  check(flow.length === 2, `a flow bound to ${flow.length} slices, not 2`);
  for (const slice of flow) check(slice.ph === 'X' && slice.cat === 'unit', `a flow bound to ${slice.name} (${slice.cat}), not a unit slice`);
}

const version = JSON.parse(fs.readFileSync(new URL('./node_modules/@paulirish/trace_engine/package.json', import.meta.url))).version;
console.log(`DevTools trace engine ${version}: ${file}: ${entries} slices on ${threads} threads (${units} unit slices), ` +
            `${flows.length} flows bound at both ends to unit slices`);
for (const failure of failures.slice(0, 20)) console.log(`FAIL: ${failure}`);
if (failures.length > 20) console.log(`... and ${failures.length - 20} more`);
process.exit(failures.length ? 1 : 0);
