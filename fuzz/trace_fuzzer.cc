// Fuzz target: sim/trace.h ParseTrace (a scenario's `trace:` file: Alibaba's DLRM and openb
// formats, tidepool's generic CSV) and TracePod on every row it keeps; ParseTraceNodes.
// Input: any bytes, as a trace file; its first byte picks the format (told by the header,
// dlrm, openb or csv), the sampling (1, 0.5) and load factor (1, 2.5), or (bit 4) a node list
// for ParseTraceNodes and TraceNodeJson.
// Oracle: nothing crashes; an error is a Status.
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  tidepool::sim::TraceOptions o;
  o.file = "fuzz.csv";
  const uint8_t pick = data[0];
  static const char* const kFormats[] = {"", "dlrm", "openb", "csv"};
  o.format = kFormats[pick % 4];
  o.sample = (pick & 4) != 0 ? 0.5 : 1.0;
  o.load_factor = (pick & 8) != 0 ? 2.5 : 1.0;
  o.gpu_models = {{"T4", "nvidia-tesla-t4"}};
  if ((pick & 16) != 0) {  // a node list (the scenario's trace.nodes)
    o.nodes_file = "fuzz-nodes.csv";
    auto nodes =
        tidepool::sim::ParseTraceNodes(std::string(tidepool::fuzz::AsText(data + 1, size - 1)), o);
    if (nodes.ok()) {
      for (const tidepool::sim::TraceNode& n : *nodes) (void)tidepool::sim::TraceNodeJson(n);
    }
    return 0;
  }
  auto trace =
      tidepool::sim::ParseTrace(std::string(tidepool::fuzz::AsText(data + 1, size - 1)), o, pick);
  if (trace.ok()) {
    for (const tidepool::sim::TraceRow& row : trace->rows) (void)tidepool::sim::TracePod(row, o);
  }
  return 0;
}
