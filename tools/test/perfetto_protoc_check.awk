# perfetto_protoc_check.awk: reads the text `protoc --decode` printed of a Perfetto protobuf export
# decoded against tests/data/perfetto_trace_subset.proto and checks what a decode alone cannot:
#   - no field shown as a bare number: a field the subset does not have, a wrong wire type or an
#     enum value it does not list (protoc keeps those as unknown fields and prints their numbers);
#   - at most one member of each of Perfetto's oneof groups per message (the subset declares them
#     as plain fields): a packet's payload, an event's name, an annotation's name and its value;
#   - every flow id in one flow_ids and one terminating_flow_ids, and no other ids; as many flows
#     as FLOWS when given (awk -v flows=N).
# Prints one line of counts; exits 1 naming the first faults, 0 when all hold.
function fault(text) {
  if (faults < 10) print "FAIL: " (ending ? "" : "line " NR ": ") text
  faults++
}
# seen: how many fields of GROUP the message open at DEPTH has.
function member(depth, field,    group) {
  group = oneof[kind[depth] " " field]
  if (group != "" && ++seen[depth, group] == 2) fault(kind[depth] " sets two fields of its oneof " group)
}
function open_message(depth, name,    group) {
  for (group in groups) delete seen[depth, group]
  kind[depth] = name
}
BEGIN {
  oneof["packet track_event"] = oneof["packet track_descriptor"] = oneof["packet clock_snapshot"] = "data"
  oneof["track_event name_iid"] = oneof["track_event name"] = "name_field"
  oneof["debug_annotations name_iid"] = oneof["debug_annotations name"] = "name_field"
  oneof["debug_annotations int_value"] = oneof["debug_annotations string_value"] = "value"
  oneof["debug_annotations string_value_iid"] = "value"
  groups["data"] = groups["name_field"] = groups["value"] = 1
  kind[0] = "trace"
}
{
  match($0, /^ */)
  depth = RLENGTH / 2
  line = substr($0, RLENGTH + 1)
}
line ~ /^[0-9]+(: | \{$)/ {
  split(line, number, /[: ]/)
  fault("field " number[1] " in " kind[depth] " is not in the subset schema with that wire type (or an enum value it does not list): " line)
  next
}
line ~ /^[a-z_0-9]+ \{$/ {
  name = substr(line, 1, length(line) - 2)
  member(depth, name)
  open_message(depth + 1, name)
  if (name == "packet") packets++
  if (name == "track_event") events++
  next
}
line == "}" { next }
line ~ /^[a-z_0-9]+: / {
  name = substr(line, 1, index(line, ":") - 1)
  member(depth, name)
  value = substr(line, length(name) + 3)
  if (name == "flow_ids") { begins[value]++; ids[value] = 1 }
  if (name == "terminating_flow_ids") { ends[value]++; ids[value] = 1 }
  next
}
{ fault("a line protoc's text format does not have: " $0) }
END {
  ending = 1
  for (id in ids) {
    count++
    if (begins[id] != 1 || ends[id] != 1) {
      fault("flow " id " is in " begins[id] + 0 " flow_ids and " ends[id] + 0 " terminating_flow_ids, not one of each")
    }
  }
  printf "protoc: %d packets, %d track events, %d flows, %d faults\n", packets, events, count, faults
  if (flows != "" && count != flows) fault(count " flows decoded, the export wrote " flows)
  exit (faults > 0)
}
