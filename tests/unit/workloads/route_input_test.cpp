#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/input_error.hpp"
#include "workloads/routing.hpp"

namespace stasim {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("stasim_route_input_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RouteInput, ReadsTheSameRoutingFromYamlJsonAndCsv) {
  const std::string yaml = write_temp("a.yaml", "ids:\n  - [3, 1]\n  - [0, 3]\nweights:\n  - [0.75, 0.25]\n  - [0.5, 0.5]\n");
  const std::string json = write_temp("a.json", R"({"ids": [[3, 1], [0, 3]], "weights": [[0.75, 0.25], [0.5, 0.5]]})");
  const std::string csv = write_temp("a.csv", "# ids then weights\n3,1,0.75,0.25\n0,3,0.5,0.5\n");
  for (const std::string& path : {yaml, json, csv}) {
    const RoutingTrace t = read_routing_file(path, 4);
    EXPECT_EQ(t.tokens, 2) << path;
    EXPECT_EQ(t.top_k, 2);
    EXPECT_EQ(t.expert_ids, (std::vector<std::int32_t>{3, 1, 0, 3}));
    EXPECT_EQ(t.weights, (std::vector<float>{0.75f, 0.25f, 0.5f, 0.5f}));
  }
  // Without weights every slot gets 1/k = 0.5.
  const RoutingTrace ids_only = read_routing_file(write_temp("b.csv", "3,1\n0,3\n"), 4);
  EXPECT_EQ(ids_only.weights, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(RouteInput, RaggedRowsNameTheRow) {
  std::string m = error_of([] { read_routing_file(write_temp("r.csv", "3,1\n0,3,2\n"), 4); });
  EXPECT_TRUE(contains(m, "r.csv:2")) << m;
  EXPECT_TRUE(contains(m, "ragged")) << m;
  m = error_of([] { read_routing_file(write_temp("r.yaml", "ids:\n  - [3, 1]\n  - [0]\n"), 4); });
  EXPECT_TRUE(contains(m, "row 1 has 1 expert ids")) << m;
  m = error_of([] { read_routing_file(write_temp("r.json", R"({"ids": [[3, 1], [0, 2, 1]]})"), 4); });
  EXPECT_TRUE(contains(m, "ragged")) << m;
}

TEST(RouteInput, ExpertIdsOutsideTheRangeAreErrors) {
  std::string m = error_of([] { read_routing_file(write_temp("o.csv", "3,1\n0,128\n"), 128); });
  EXPECT_TRUE(contains(m, "expert id 128 is outside [0, 128)")) << m;
  m = error_of([] { read_routing_file(write_temp("o.yaml", "ids:\n  - [-1, 1]\n"), 128); });
  EXPECT_TRUE(contains(m, "expert id -1")) << m;
  m = error_of([] { routing_from_rows({{2, 2}}, {}, 4, "dup"); });
  EXPECT_TRUE(contains(m, "expert 2 appears twice")) << m;
}

TEST(RouteInput, NonFiniteWeightsAreErrors) {
  std::string m = error_of([] { read_routing_file(write_temp("w.csv", "3,1,nan,0.5\n"), 4); });
  EXPECT_TRUE(contains(m, "not finite")) << m;
  m = error_of([] { read_routing_file(write_temp("w.yaml", "ids: [[3, 1]]\nweights: [[inf, 0.5]]\n"), 4); });
  EXPECT_TRUE(contains(m, "not finite")) << m;
  m = error_of([] { read_routing_file(write_temp("w2.csv", "3,1,1e999,0.5\n"), 4); });
  EXPECT_TRUE(contains(m, "not finite")) << m;
}

TEST(RouteInput, UnknownKeysAndTypesAreErrors) {
  std::string m = error_of([] { read_routing_file(write_temp("k.yaml", "ids: [[3, 1]]\nweigths: [[0.5, 0.5]]\n"), 4); });
  EXPECT_TRUE(contains(m, "k.yaml:2:1")) << m;
  EXPECT_TRUE(contains(m, "did you mean 'weights'")) << m;
  m = error_of([] { read_routing_file(write_temp("k.yaml2.yaml", "ids: [[3, x]]\n"), 4); });
  EXPECT_TRUE(contains(m, "not a number: 'x'")) << m;
  m = error_of([] { read_routing_file(write_temp("k.txt", "3,1\n"), 4); });
  EXPECT_TRUE(contains(m, "unknown routes file type")) << m;
  m = error_of([] { read_routing_file("/nonexistent/routes.csv", 4); });
  EXPECT_TRUE(contains(m, "cannot open")) << m;
}

TEST(RouteInput, GeneratorIsSeededWithDistinctExpertsAndNormalisedWeights) {
  RoutingGeneratorConfig g;
  g.tokens = 21;
  g.seed = 9;
  const RoutingTrace a = generate_routing(g);
  const RoutingTrace b = generate_routing(g);
  EXPECT_EQ(a.expert_ids, b.expert_ids);
  EXPECT_EQ(a.weights, b.weights);
  g.seed = 10;
  EXPECT_NE(generate_routing(g).expert_ids, a.expert_ids);
  EXPECT_TRUE(routing_problems(a, "gen").empty());  // distinct per token, in range, finite
  for (std::int64_t t = 0; t < a.tokens; ++t) {
    float sum = 0;
    for (std::int64_t s = 0; s < a.top_k; ++s) sum += a.weights[static_cast<size_t>(t * a.top_k + s)];
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
}

TEST(RouteInput, ZipfConcentratesRoutesOnFewExperts) {
  // 512 tokens x 2 slots over 64 experts. Uniform: the busiest expert gets about 1024/64 = 16 routes;
  // Zipf with s = 1.5: the top-ranked expert holds 1 / H(64, 1.5) ~ 40% of the draw weight.
  RoutingGeneratorConfig g;
  g.tokens = 512;
  g.top_k = 2;
  g.experts = 64;
  auto busiest = [](const RoutingTrace& t) {
    std::vector<int> count(static_cast<size_t>(t.experts));
    for (auto e : t.expert_ids) ++count[static_cast<size_t>(e)];
    return *std::max_element(count.begin(), count.end());
  };
  const int uniform = busiest(generate_routing(g));
  g.distribution = "zipf";
  g.zipf_exponent = 1.5;
  const int zipf = busiest(generate_routing(g));
  EXPECT_LT(uniform, 40);
  EXPECT_GT(zipf, 200);
  g.distribution = "pareto";
  EXPECT_TRUE(contains(error_of([&] { generate_routing(g); }), "'pareto'"));
}

}  // namespace
}  // namespace stasim
