// `--trace` files read as the Trace Event Format (the JSON Object Format of Chrome's trace_event docs, which
// ui.perfetto.dev and chrome://tracing load): the document's fields, and per event type (X complete, M metadata,
// C counter, s/f flow) the fields each requires, with their types. Then what the file holds for a reader: slices
// named by role with the op's facts in their args, the three counters, --trace-layers, and gzip for ".gz".
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "sim/reports/trace_output.hpp"

namespace {

using nlohmann::json;
using stasim::test::Output;
using testing::HasSubstr;

std::string tmp(const std::string& name) { return testing::TempDir() + "trace_format_" + name; }

using stasim::test::slurp;

std::string gunzip(const std::string& bytes) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);  // gzip framing only
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(status, Z_STREAM_END);
  return out;
}

bool is_int(const json& v) { return v.is_number_integer(); }
bool is_time(const json& v) { return v.is_number() && v.get<double>() >= 0; }

// Every problem of `doc` as the Trace Event Format, "" when none.
std::string format_problems(const json& doc) {
  std::ostringstream out;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return "the document is not an object with a traceEvents array";
  if (doc.contains("displayTimeUnit") && doc["displayTimeUnit"] != "ns" && doc["displayTimeUnit"] != "ms")
    out << "displayTimeUnit must be ms or ns\n";
  if (doc.contains("otherData") && !doc["otherData"].is_object()) out << "otherData must be an object\n";
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  std::map<std::uint64_t, double> flow_start;
  std::size_t i = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string at = "event " + std::to_string(i++) + " " + e.dump().substr(0, 160) + ": ";
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      out << at << "no ph\n";
      continue;
    }
    const std::string ph = e["ph"];
    if (!e.contains("name") || !e["name"].is_string()) out << at << "name must be a string\n";
    if (!e.contains("pid") || !is_int(e["pid"])) out << at << "pid must be an integer\n";
    if (e.contains("args") && !e["args"].is_object()) out << at << "args must be an object\n";
    if (ph == "X") {
      if (!e.contains("tid") || !is_int(e["tid"])) out << at << "X needs an integer tid\n";
      if (!e.contains("ts") || !is_time(e["ts"])) out << at << "X needs ts >= 0\n";
      if (!e.contains("dur") || !is_time(e["dur"])) out << at << "X needs dur >= 0\n";
      if (e.contains("cat") && !e["cat"].is_string()) out << at << "cat must be a string\n";
    } else if (ph == "M") {
      const std::string what = e.value("name", "");
      if (what == "process_name" || what == "thread_name") {
        if (!e["args"].contains("name") || !e["args"]["name"].is_string()) out << at << "args.name must be a string\n";
      } else if (what == "process_sort_index" || what == "thread_sort_index") {
        if (!e["args"].contains("sort_index") || !is_int(e["args"]["sort_index"])) out << at << "args.sort_index\n";
      } else {
        out << at << "unknown metadata event\n";
      }
      const bool thread = what.rfind("thread_", 0) == 0;
      if (thread && (!e.contains("tid") || !is_int(e["tid"]))) out << at << "thread metadata needs a tid\n";
      if (what == "thread_name") named_threads.emplace(e["pid"], e["tid"]);
      if (what == "process_name") named_processes.insert(e["pid"].get<int>());
    } else if (ph == "C") {
      if (!e.contains("ts") || !is_time(e["ts"])) out << at << "C needs ts >= 0\n";
      if (!e.contains("args") || e["args"].empty()) out << at << "C needs args with a series\n";
      for (const auto& [series, value] : e["args"].items())
        if (!value.is_number()) out << at << "counter series " << series << " must be a number\n";
    } else if (ph == "s" || ph == "f") {
      if (!e.contains("tid") || !is_int(e["tid"])) out << at << "flow needs an integer tid\n";
      if (!e.contains("ts") || !is_time(e["ts"])) out << at << "flow needs ts >= 0\n";
      if (!e.contains("id") || !e["id"].is_number_unsigned()) out << at << "flow needs an id\n";
      if (!e.contains("cat") || !e["cat"].is_string()) out << at << "flow needs a cat\n";
      if (ph == "s") {
        flow_start[e["id"]] = e["ts"];
      } else {
        if (e.value("bp", "") != "e") out << at << "a flow end binds to its enclosing slice (bp: e)\n";
        auto s = flow_start.find(e["id"]);
        if (s == flow_start.end()) out << at << "flow end without a start\n";
        else if (e["ts"].get<double>() < s->second) out << at << "flow ends before it starts\n";
      }
    } else {
      out << at << "phase " << ph << " is not one stasim writes\n";
    }
  }
  // Every slice sits on a named track of a named process.
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (!named_processes.count(e["pid"].get<int>())) out << "slice on an unnamed process " << e["pid"] << "\n";
    if (!named_threads.count({e["pid"], e["tid"]})) out << "slice on an unnamed track " << e["tid"] << "\n";
  }
  return out.str();
}

std::vector<json> slices(const json& doc) {
  std::vector<json> out;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["tid"] != 1000) out.push_back(e);
  return out;
}

TEST(TraceFormat, RunTraceIsValidAndGzipHoldsTheSameBytes) {
  Output o = stasim::test::run_stasim("run --layers 2 --quiet --json " + tmp("run.json") + " --trace " +
                                      tmp("t.json") + " --ops " + tmp("t.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string text = slurp(tmp("t.json"));
  const json doc = json::parse(text);
  EXPECT_EQ(format_problems(doc), "");
  // The same run traced to a .gz name: gzip of the very same bytes (the header has no name or time).
  o = stasim::test::run_stasim("run --layers 2 --quiet --trace " + tmp("t.json.gz"));
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string packed = slurp(tmp("t.json.gz"));
  ASSERT_GE(packed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
  EXPECT_LT(packed.size(), text.size() / 4);
  // The provenance records each command line (they differ in their outputs); the rest is the same run.
  json unpacked = json::parse(gunzip(packed));
  EXPECT_EQ(unpacked["otherData"]["provenance"]["options"]["trace"], tmp("t.json.gz"));
  json plain = doc;
  ASSERT_EQ(unpacked["otherData"].erase("provenance"), 1u);
  ASSERT_EQ(plain["otherData"].erase("provenance"), 1u);
  EXPECT_EQ(unpacked.dump(), plain.dump());
  // gzip_bytes itself: the same text gives the same bytes, which gunzip back to the text.
  EXPECT_EQ(stasim::gzip_bytes(text), stasim::gzip_bytes(text));
  EXPECT_EQ(gunzip(stasim::gzip_bytes(text)), text);

  // One slice per op, named by role; the op's label and facts in its args.
  const json run = json::parse(slurp(tmp("run.json")));
  const std::vector<json> ops = slices(doc);
  EXPECT_EQ(ops.size(), run["sim"]["ops"].get<std::size_t>());
  std::set<std::string> names, layers;
  std::size_t dma = 0, with_expert = 0;
  for (const json& s : ops) {
    names.insert(s["name"]);
    const json& a = s["args"];
    for (const char* key : {"name", "kind", "phase", "queue", "bound_by", "dtype", "shape", "start_ns", "end_ns"})
      ASSERT_TRUE(a.contains(key)) << key << " missing in " << s.dump();
    // The role: "kind [phase]" (or the kind alone when untagged), never the op's own label.
    const std::string role = a["phase"] == "untagged" ? a["kind"].get<std::string>()
                                                      : a["kind"].get<std::string>() + " [" + a["phase"].get<std::string>() + "]";
    EXPECT_EQ(s["name"], role);
    if (a.contains("layer")) layers.insert(std::to_string(a["layer"].get<int>()));
    with_expert += a.contains("expert");
    if (a["kind"] == "transfer") {
      ++dma;
      for (const char* key : {"bytes", "src", "dst", "dge", "bytes_per_partition", "achieved_gbps"})
        ASSERT_TRUE(a.contains(key)) << key << " missing in " << s.dump();
      // achieved GB/s = bytes / duration in ns (dur is in us).
      const double ns = s["dur"].get<double>() * 1000;
      if (ns > 0) {
        EXPECT_NEAR(a["achieved_gbps"].get<double>(), a["bytes"].get<double>() / ns, 1e-3 + 1e-6 * a["bytes"].get<double>() / ns);
      }
    }
  }
  EXPECT_EQ(layers, (std::set<std::string>{"0", "1"}));
  EXPECT_GT(with_expert, 0u);
  EXPECT_TRUE(names.count("matmul [lr]")) << "slice names: " << json(names).dump();
  EXPECT_TRUE(names.count("gather [gather]"));
  EXPECT_TRUE(names.count("transfer [attention]"));
  EXPECT_LT(names.size(), 60u);  // a role is shared by many ops: tens of names for thousands of slices
  EXPECT_EQ(dma, run["dma"]["transfers"].get<std::size_t>());
  // The three counters of each core.
  std::map<std::string, std::set<int>> counters;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "C") counters[e["name"]].insert(e["pid"].get<int>());
  EXPECT_EQ(counters["HBM bandwidth in use (GB/s)"], (std::set<int>{0, 1}));
  EXPECT_EQ(counters["SBUF in use (bytes per partition)"], (std::set<int>{0, 1}));
  EXPECT_EQ(counters["PSUM banks held"], (std::set<int>{0, 1}));
  double sbuf_peak = 0;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "SBUF in use (bytes per partition)")
      sbuf_peak = std::max(sbuf_peak, e["args"]["bytes"].get<double>());
  // The counter's highest value is the run's SBUF peak (both from buffer lifetimes).
  EXPECT_DOUBLE_EQ(sbuf_peak, run["sbuf"]["peak_bytes_per_partition"].get<double>());
}

TEST(TraceFormat, TraceLayersKeepsOneLayersOpsAndCountersOverItsSpan) {
  Output o = stasim::test::run_stasim("run --layers 3 --quiet --trace " + tmp("l1.json") + " --trace-layers 1:1");
  ASSERT_EQ(o.code, 0) << o.text;
  const json doc = json::parse(slurp(tmp("l1.json")));
  EXPECT_EQ(format_problems(doc), "");
  EXPECT_EQ(doc["otherData"]["layers"], "1:1");
  double first = 1e300, last = 0;
  for (const json& s : slices(doc)) {
    ASSERT_EQ(s["args"].value("layer", -1), 1) << s.dump();
    first = std::min(first, s["ts"].get<double>());
    last = std::max(last, s["ts"].get<double>() + s["dur"].get<double>());
  }
  ASSERT_FALSE(slices(doc).empty());
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "C") {
      EXPECT_GE(e["ts"].get<double>(), first) << e.dump();
      EXPECT_LE(e["ts"].get<double>(), last) << e.dump();
    }
}

}  // namespace
