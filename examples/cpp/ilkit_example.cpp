// A C++ host of ilkit's C ABI: RAII handles over every entry point, answers checked.
//
// Usage: ilkit_example REPO_ROOT
//
// The same checks and summary lines as examples/c/ilkit_example.c, written the way a C++
// host would wrap the library: owning handles (std::unique_ptr with the free
// functions), std::span-like views of the result arrays, exceptions carrying the
// library's error message. capi/run-examples.sh compares the output with the Rust API's.
#include "ilkit.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

int failures = 0;

void check(bool cond, const char *what, int line) {
  if (!cond) {
    std::fprintf(stderr, "ilkit_example.cpp:%d: check failed: %s\n", line, what);
    failures++;
  }
}
#define CHECK(...) check((__VA_ARGS__), #__VA_ARGS__, __LINE__)

// Throws on a failed call, with the library's status name and message.
void ok(IlkitStatus st, const char *what) {
  if (st != ILKIT_STATUS_OK)
    throw std::runtime_error(std::string(what) + ": " + ilkit_status_name(st) + ": " +
                             ilkit_last_error_message());
}
#define OK(call) ok((call), #call)

template <typename T, IlkitStatus (*Free)(T *)>
struct Deleter {
  void operator()(T *p) const { Free(p); }
};
using Result = std::unique_ptr<IlkitResult, Deleter<IlkitResult, ilkit_result_free>>;
using Module = std::unique_ptr<IlkitModule, Deleter<IlkitModule, ilkit_module_free>>;
using Cfgs = std::unique_ptr<IlkitCfgs, Deleter<IlkitCfgs, ilkit_cfgs_free>>;
using Il = std::unique_ptr<IlkitIl, Deleter<IlkitIl, ilkit_il_free>>;

// A read-only view of one result array.
struct View {
  const uint32_t *data = nullptr;
  size_t len = 0;
  uint32_t operator[](size_t i) const { return data[i]; }
  size_t size() const { return len; }
  bool operator==(const std::vector<uint32_t> &v) const {
    return len == v.size() && std::equal(v.begin(), v.end(), data);
  }
};

View array(const Result &r, IlkitArray kind) {
  View v;
  OK(ilkit_result_array(r.get(), static_cast<uint32_t>(kind), &v.data, &v.len));
  return v;
}

std::string_view name(const Result &r, size_t i) {
  const char *p = nullptr;
  size_t len = 0;
  OK(ilkit_result_name(r.get(), i, &p, &len));
  return {p, len};
}

size_t num_names(const Result &r) {
  size_t n = 0;
  OK(ilkit_result_num_names(r.get(), &n));
  return n;
}

// A graph as CSR arrays, built from an edge list (edges in order per source).
struct Graph {
  std::vector<uint32_t> indptr, indices;
  Graph(size_t n, std::vector<std::pair<uint32_t, uint32_t>> edges) : indptr(n + 1, 0) {
    for (auto [s, t] : edges) indptr[s + 1]++;
    for (size_t i = 0; i < n; i++) indptr[i + 1] += indptr[i];
    std::vector<uint32_t> fill(indptr.begin(), indptr.end() - 1);
    indices.resize(edges.size());
    for (auto [s, t] : edges) indices[fill[s]++] = t;
  }
  size_t nodes() const { return indptr.size() - 1; }
};

Result scc(const Graph &g) {
  IlkitResult *r = nullptr;
  OK(ilkit_graph_scc(g.indptr.data(), g.nodes(), g.indices.data(), g.indices.size(), &r));
  return Result(r);
}

template <typename F>
Result rooted(F f, const Graph &g, uint32_t root) {
  IlkitResult *r = nullptr;
  OK(f(g.indptr.data(), g.nodes(), g.indices.data(), g.indices.size(), root, &r));
  return Result(r);
}

struct Fnv {
  uint64_t h = 0xcbf29ce484222325ULL;
  void bytes(const void *data, size_t len) {
    auto p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < len; i++) {
      h ^= p[i];
      h *= 0x100000001b3ULL;
    }
  }
  void u32(uint32_t v) {
    unsigned char b[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                          static_cast<unsigned char>(v >> 16),
                          static_cast<unsigned char>(v >> 24)};
    bytes(b, 4);
  }
  void array(View a) {
    u32(static_cast<uint32_t>(a.size()));
    for (size_t i = 0; i < a.size(); i++) u32(a[i]);
  }
  void name(std::string_view s) {
    bytes(s.data(), s.size());
    bytes("", 1);
  }
};

constexpr uint32_t NONE = ILKIT_NONE;

void known_graphs() {
  Graph sccs(6, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 3}});
  Result r = scc(sccs);
  View label = array(r, ILKIT_ARRAY_SCC_LABEL);
  CHECK(array(r, ILKIT_ARRAY_SCC_STARTS).size() == 4);
  CHECK(array(r, ILKIT_ARRAY_SCC_NODES).size() == 6);
  CHECK(label[0] == label[1] && label[1] == label[2] && label[3] == label[4]);
  CHECK(label[3] < label[0]);

  Graph diamond(5, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {4, 3}});
  r = rooted(ilkit_graph_dominators, diamond, 0);
  CHECK(array(r, ILKIT_ARRAY_IDOM) == std::vector<uint32_t>{0, 0, 0, 0, NONE});
  CHECK(array(r, ILKIT_ARRAY_DOM_LEVEL) == std::vector<uint32_t>{0, 1, 1, 1, NONE});
  r = rooted(ilkit_graph_dominance_frontiers, diamond, 0);
  CHECK(array(r, ILKIT_ARRAY_FRONTIER_STARTS) == std::vector<uint32_t>{0, 0, 1, 2, 2, 2});
  CHECK(array(r, ILKIT_ARRAY_FRONTIER_NODES) == std::vector<uint32_t>{3, 3});
  IlkitResult *raw = nullptr;
  OK(ilkit_graph_post_dominators(diamond.indptr.data(), diamond.nodes(),
                                 diamond.indices.data(), diamond.indices.size(), &raw));
  r = Result(raw);
  CHECK(array(r, ILKIT_ARRAY_IPDOM) ==
        std::vector<uint32_t>{3, 3, 3, ILKIT_VIRTUAL_EXIT, 3});
  CHECK(array(r, ILKIT_ARRAY_PDOM_ROOTS) == std::vector<uint32_t>{3});
  CHECK(array(r, ILKIT_ARRAY_PDOM_LEVEL).size() == 5);

  Graph looped(4, {{0, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}});
  r = rooted(ilkit_graph_loops, looped, 0);
  CHECK(array(r, ILKIT_ARRAY_LOOP_HEADER) == std::vector<uint32_t>{1, 2});
  CHECK(array(r, ILKIT_ARRAY_LOOP_PARENT) == std::vector<uint32_t>{NONE, 0});
  CHECK(array(r, ILKIT_ARRAY_LOOP_DEPTH) == std::vector<uint32_t>{1, 2});
  CHECK(array(r, ILKIT_ARRAY_LOOP_BLOCK_STARTS) == std::vector<uint32_t>{0, 2, 3});
  CHECK(array(r, ILKIT_ARRAY_LOOP_BLOCKS) == std::vector<uint32_t>{1, 2, 2});
  CHECK(array(r, ILKIT_ARRAY_BLOCK_LOOP) == std::vector<uint32_t>{NONE, 0, 1, NONE});
  CHECK(array(r, ILKIT_ARRAY_BLOCK_LOOP_DEPTH) == std::vector<uint32_t>{0, 1, 2, 0});
  CHECK(array(r, ILKIT_ARRAY_BLOCK_LOOP_HEADER) == std::vector<uint32_t>{NONE, 1, 2, NONE});

  // a root that is not a node is an error code with a message, and an exception here
  bool threw = false;
  try {
    rooted(ilkit_graph_dominators, diamond, 9);
  } catch (const std::runtime_error &e) {
    threw = std::strstr(e.what(), "ILKIT_STATUS_INVALID_GRAPH") != nullptr;
  }
  CHECK(threw);
  std::printf("graphs: ok\n");
}

void call_graph(const std::string &root, const std::string &rel) {
  std::string path = root + "/" + rel;
  IlkitModule *m = nullptr;
  OK(ilkit_module_from_ll(path.c_str(), &m));
  Module module(m);
  IlkitResult *raw = nullptr;
  OK(ilkit_module_call_graph(module.get(), &raw));
  Result cg(raw);
  View defined = array(cg, ILKIT_ARRAY_DEFINED);
  View label = array(cg, ILKIT_ARRAY_SCC_LABEL);
  View scc_starts = array(cg, ILKIT_ARRAY_SCC_STARTS);
  View scc_nodes = array(cg, ILKIT_ARRAY_SCC_NODES);
  View rc_starts = array(cg, ILKIT_ARRAY_REFSCC_STARTS);
  size_t n = num_names(cg), num_defined = 0;
  for (size_t i = 0; i < defined.size(); i++) num_defined += defined[i];
  Fnv h;
  for (size_t rc = 0; rc + 1 < rc_starts.size(); rc++) {
    for (uint32_t s = rc_starts[rc]; s < rc_starts[rc + 1]; s++) {
      for (uint32_t k = scc_starts[s]; k < scc_starts[s + 1]; k++) {
        CHECK(label[scc_nodes[k]] == s);
        h.name(name(cg, scc_nodes[k]));
      }
      h.bytes("\xff", 1);
    }
    h.bytes("\xfe", 1);
  }
  std::printf("callgraph %s: nodes %zu defined %zu sccs %zu refsccs %zu hash %016" PRIx64 "\n",
              rel.c_str(), n, num_defined, scc_starts.size() - 1, rc_starts.size() - 1, h.h);
  IlkitCfgs *c = nullptr;
  OK(ilkit_module_cfgs(module.get(), &c));
  Cfgs cfgs(c);
  size_t count = 0;
  OK(ilkit_cfgs_count(cfgs.get(), &count));
  CHECK(count == num_defined);
}

void cfgs(const std::string &root, const std::string &kind, const std::string &rel) {
  std::string path = root + "/" + rel;
  IlkitCfgs *c = nullptr;
  OK(kind == "ptx" ? ilkit_cfgs_from_ptx(path.c_str(), &c)
                   : ilkit_cfgs_from_ll(path.c_str(), &c));
  Cfgs all(c);
  size_t n = 0, blocks = 0, loops = 0;
  OK(ilkit_cfgs_count(all.get(), &n));
  Fnv h;
  const IlkitArray hashed[] = {
      ILKIT_ARRAY_SUCC_STARTS,       ILKIT_ARRAY_SUCC_NODES,     ILKIT_ARRAY_RPO,
      ILKIT_ARRAY_IDOM,              ILKIT_ARRAY_DOM_LEVEL,      ILKIT_ARRAY_FRONTIER_STARTS,
      ILKIT_ARRAY_FRONTIER_NODES,    ILKIT_ARRAY_IPDOM,          ILKIT_ARRAY_PDOM_ROOTS,
      ILKIT_ARRAY_LOOP_HEADER,       ILKIT_ARRAY_LOOP_PARENT,    ILKIT_ARRAY_LOOP_DEPTH,
      ILKIT_ARRAY_LOOP_BLOCK_STARTS, ILKIT_ARRAY_LOOP_BLOCKS,    ILKIT_ARRAY_BLOCK_LOOP,
  };
  for (size_t i = 0; i < n; i++) {
    const char *fname = nullptr;
    size_t len = 0;
    OK(ilkit_cfgs_name(all.get(), i, &fname, &len));
    h.bytes(fname, len);
    IlkitResult *raw = nullptr;
    OK(ilkit_cfgs_analyze(all.get(), i, &raw));
    Result r(raw);
    size_t nb = num_names(r);
    blocks += nb;
    loops += array(r, ILKIT_ARRAY_LOOP_HEADER).size();
    for (IlkitArray k : hashed) h.array(array(r, k));
    for (size_t b = 0; b < nb; b++) h.name(name(r, b));
  }
  std::printf("cfgs %s: functions %zu blocks %zu loops %zu hash %016" PRIx64 "\n", rel.c_str(),
              n, blocks, loops, h.h);
}

void device_il(const std::string &root, const std::string &rel) {
  std::string path = root + "/" + rel;
  IlkitIl *raw_il = nullptr;
  OK(ilkit_il_from_clang_json(path.c_str(), &raw_il));
  Il il(raw_il);
  IlkitResult *raw = nullptr;
  OK(ilkit_il_keep_device(il.get(), &raw));
  Result r(raw);
  View counts = array(r, ILKIT_ARRAY_KEEP_COUNTS);
  size_t routines = num_names(r);
  Fnv h;
  for (size_t i = 0; i < routines; i++) h.name(name(r, i));
  const uint8_t *bytes = nullptr;
  size_t num_bytes = 0;
  OK(ilkit_result_bytes(r.get(), &bytes, &num_bytes));
  h.bytes(bytes, num_bytes);
  std::printf("il %s: kept %" PRIu32 " live %" PRIu32 " routines %zu bytes %zu hash %016" PRIx64
              "\n",
              rel.c_str(), counts[0], counts[1], routines, num_bytes, h.h);
}

void errors(const std::string &root) {
  std::string json = root + "/tests/fixtures/clang/kernels.json.gz";
  IlkitModule *m = nullptr;
  CHECK(ilkit_module_from_ll(json.c_str(), &m) == ILKIT_STATUS_PARSE);
  const char *file = nullptr;
  uint32_t line = 0, column = 0;
  OK(ilkit_last_error_location(&file, &line, &column, nullptr));
  CHECK(std::string_view(file).find("kernels.json.gz") != std::string_view::npos);
  CHECK(line >= 1 && column >= 1);
  IlkitIl *il = nullptr;
  CHECK(ilkit_il_from_clang_json("/nonexistent/none.json", &il) == ILKIT_STATUS_IO);
  CHECK(ilkit_il_free(reinterpret_cast<IlkitIl *>(&failures)) == ILKIT_STATUS_BAD_HANDLE);
  std::printf("errors: ok\n");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
    return 2;
  }
  std::string root = argv[1];
  try {
    CHECK(std::strlen(ilkit_version()) > 0);
    known_graphs();
    call_graph(root, "tests/corpus/llvm/zlib/zlib.O2.ll.gz");
    cfgs(root, "ll", "tests/corpus/llvm/zlib/zlib.O2.ll.gz");
    cfgs(root, "ptx", "tests/corpus/llvm/zlib/nvptx/deflate.ptx.gz");
    device_il(root, "tests/fixtures/clang/kernels.json.gz");
    errors(root);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  if (failures) {
    std::fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  return 0;
}
