/* A C host of ilkit's C ABI: every entry point, with answers checked.
 *
 * Usage: ilkit_example REPO_ROOT
 *
 * Graph analyses on small known graphs are checked against hand-worked answers; the
 * call graph, CFGs and device IL of files from the repository's corpus are printed as
 * one summary line each (counts and an FNV-1a hash of every array), which
 * capi/run-examples.sh compares with the same lines computed by the Rust API
 * (capi/examples/summary.rs) and by the C++ example. Exits non-zero on any mismatch.
 */
#include "ilkit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
      failures++;                                                                     \
    }                                                                                 \
  } while (0)

/* Calls an ilkit function; on failure prints the status and message and exits. */
#define OK(call)                                                                      \
  do {                                                                                \
    IlkitStatus st_ = (call);                                                         \
    if (st_ != ILKIT_STATUS_OK) {                                                     \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,               \
              ilkit_status_name((uint32_t)st_), ilkit_last_error_message());          \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

/* ---- FNV-1a 64 ---- */
static uint64_t fnv_bytes(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static uint64_t fnv_u32(uint64_t h, uint32_t v) {
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  return fnv_bytes(h, b, 4);
}

#define FNV_START 0xcbf29ce484222325ULL

typedef struct {
  const uint32_t *data;
  size_t len;
} Array;

static Array array(const IlkitResult *r, IlkitArray kind) {
  Array a;
  OK(ilkit_result_array(r, (uint32_t)kind, &a.data, &a.len));
  return a;
}

static uint64_t hash_array(uint64_t h, Array a) {
  h = fnv_u32(h, (uint32_t)a.len);
  for (size_t i = 0; i < a.len; i++) h = fnv_u32(h, a.data[i]);
  return h;
}

static int array_is(Array a, const uint32_t *want, size_t n) {
  if (a.len != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (a.data[i] != want[i]) return 0;
  return 1;
}

/* ---- known graphs ---- */
static void known_graphs(void) {
  /* {0,1,2} -> {3,4}; 5 alone */
  const uint32_t scc_ptr[] = {0, 1, 2, 4, 5, 6, 6};
  const uint32_t scc_idx[] = {1, 2, 0, 3, 4, 3};
  IlkitResult *r = NULL;
  OK(ilkit_graph_scc(scc_ptr, 6, scc_idx, 6, &r));
  Array label = array(r, ILKIT_ARRAY_SCC_LABEL);
  Array starts = array(r, ILKIT_ARRAY_SCC_STARTS);
  Array nodes = array(r, ILKIT_ARRAY_SCC_NODES);
  CHECK(starts.len == 4); /* 3 components */
  CHECK(nodes.len == 6);
  CHECK(label.data[0] == label.data[1] && label.data[1] == label.data[2]);
  CHECK(label.data[3] == label.data[4]);
  CHECK(label.data[3] < label.data[0]); /* post-order: sinks first */
  OK(ilkit_result_free(r));

  /* diamond 0 -> {1, 2} -> 3, and 4 -> 3 unreachable */
  const uint32_t d_ptr[] = {0, 2, 3, 4, 4, 5};
  const uint32_t d_idx[] = {1, 2, 3, 3, 3};
  OK(ilkit_graph_dominators(d_ptr, 5, d_idx, 5, 0, &r));
  const uint32_t idom[] = {0, 0, 0, 0, ILKIT_NONE};
  const uint32_t level[] = {0, 1, 1, 1, ILKIT_NONE};
  CHECK(array_is(array(r, ILKIT_ARRAY_IDOM), idom, 5));
  CHECK(array_is(array(r, ILKIT_ARRAY_DOM_LEVEL), level, 5));
  OK(ilkit_result_free(r));

  OK(ilkit_graph_dominance_frontiers(d_ptr, 5, d_idx, 5, 0, &r));
  const uint32_t df_starts[] = {0, 0, 1, 2, 2, 2};
  const uint32_t df_nodes[] = {3, 3};
  CHECK(array_is(array(r, ILKIT_ARRAY_FRONTIER_STARTS), df_starts, 6));
  CHECK(array_is(array(r, ILKIT_ARRAY_FRONTIER_NODES), df_nodes, 2));
  OK(ilkit_result_free(r));

  OK(ilkit_graph_post_dominators(d_ptr, 5, d_idx, 5, &r));
  const uint32_t ipdom[] = {3, 3, 3, ILKIT_VIRTUAL_EXIT, 3};
  const uint32_t roots[] = {3};
  CHECK(array_is(array(r, ILKIT_ARRAY_IPDOM), ipdom, 5));
  CHECK(array_is(array(r, ILKIT_ARRAY_PDOM_ROOTS), roots, 1));
  CHECK(array(r, ILKIT_ARRAY_PDOM_LEVEL).len == 5);
  OK(ilkit_result_free(r));

  /* 0 -> 1 <-> 2 -> 3, 2 -> 2 */
  const uint32_t l_ptr[] = {0, 1, 2, 5, 5};
  const uint32_t l_idx[] = {1, 2, 1, 2, 3};
  OK(ilkit_graph_loops(l_ptr, 4, l_idx, 5, 0, &r));
  const uint32_t header[] = {1, 2}, parent[] = {ILKIT_NONE, 0}, depth[] = {1, 2};
  const uint32_t lb_starts[] = {0, 2, 3}, lb[] = {1, 2, 2};
  const uint32_t block_loop[] = {ILKIT_NONE, 0, 1, ILKIT_NONE};
  const uint32_t block_depth[] = {0, 1, 2, 0};
  const uint32_t block_header[] = {ILKIT_NONE, 1, 2, ILKIT_NONE};
  CHECK(array_is(array(r, ILKIT_ARRAY_LOOP_HEADER), header, 2));
  CHECK(array_is(array(r, ILKIT_ARRAY_LOOP_PARENT), parent, 2));
  CHECK(array_is(array(r, ILKIT_ARRAY_LOOP_DEPTH), depth, 2));
  CHECK(array_is(array(r, ILKIT_ARRAY_LOOP_BLOCK_STARTS), lb_starts, 3));
  CHECK(array_is(array(r, ILKIT_ARRAY_LOOP_BLOCKS), lb, 3));
  CHECK(array_is(array(r, ILKIT_ARRAY_BLOCK_LOOP), block_loop, 4));
  CHECK(array_is(array(r, ILKIT_ARRAY_BLOCK_LOOP_DEPTH), block_depth, 4));
  CHECK(array_is(array(r, ILKIT_ARRAY_BLOCK_LOOP_HEADER), block_header, 4));
  OK(ilkit_result_free(r));

  /* errors are codes with messages, and the result stays NULL */
  const uint32_t bad_idx[] = {1, 2, 9, 3, 3};
  r = (IlkitResult *)1;
  CHECK(ilkit_graph_dominators(d_ptr, 5, bad_idx, 5, 0, &r) == ILKIT_STATUS_INVALID_GRAPH);
  CHECK(r == NULL);
  CHECK(strlen(ilkit_last_error_message()) > 0);
  CHECK(ilkit_graph_dominators(d_ptr, 5, d_idx, 5, 7, &r) == ILKIT_STATUS_INVALID_GRAPH);
  CHECK(ilkit_graph_scc(NULL, 5, d_idx, 5, &r) == ILKIT_STATUS_NULL_POINTER);
  CHECK(ilkit_result_free(NULL) == ILKIT_STATUS_OK);
  printf("graphs: ok\n");
}

/* ---- files ---- */
static void call_graph(const char *root, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  IlkitModule *m = NULL;
  OK(ilkit_module_from_ll(path, &m));
  IlkitResult *cg = NULL;
  OK(ilkit_module_call_graph(m, &cg));
  size_t num_names = 0;
  OK(ilkit_result_num_names(cg, &num_names));
  Array defined = array(cg, ILKIT_ARRAY_DEFINED);
  Array label = array(cg, ILKIT_ARRAY_SCC_LABEL);
  Array scc_starts = array(cg, ILKIT_ARRAY_SCC_STARTS);
  Array scc_nodes = array(cg, ILKIT_ARRAY_SCC_NODES);
  Array rc_starts = array(cg, ILKIT_ARRAY_REFSCC_STARTS);
  CHECK(defined.len == num_names && label.len == num_names);
  size_t num_defined = 0;
  for (size_t i = 0; i < defined.len; i++) num_defined += defined.data[i];
  uint64_t h = FNV_START;
  for (size_t rc = 0; rc + 1 < rc_starts.len; rc++) {
    for (uint32_t s = rc_starts.data[rc]; s < rc_starts.data[rc + 1]; s++) {
      for (uint32_t k = scc_starts.data[s]; k < scc_starts.data[s + 1]; k++) {
        const char *name = NULL;
        size_t len = 0;
        OK(ilkit_result_name(cg, scc_nodes.data[k], &name, &len));
        CHECK(label.data[scc_nodes.data[k]] == s);
        h = fnv_bytes(h, name, len);
        h = fnv_bytes(h, "", 1);
      }
      h = fnv_bytes(h, "\xff", 1);
    }
    h = fnv_bytes(h, "\xfe", 1);
  }
  printf("callgraph %s: nodes %zu defined %zu sccs %zu refsccs %zu hash %016" PRIx64 "\n",
         rel, num_names, num_defined, scc_starts.len - 1, rc_starts.len - 1, h);
  OK(ilkit_result_free(cg));

  /* the module's CFGs: the same as reading the file's CFGs directly */
  IlkitCfgs *from_module = NULL;
  OK(ilkit_module_cfgs(m, &from_module));
  size_t n1 = 0;
  OK(ilkit_cfgs_count(from_module, &n1));
  OK(ilkit_cfgs_free(from_module));
  IlkitCfgs *from_file = NULL;
  OK(ilkit_cfgs_from_ll(path, &from_file));
  size_t n2 = 0;
  OK(ilkit_cfgs_count(from_file, &n2));
  CHECK(n1 == n2);
  OK(ilkit_cfgs_free(from_file));
  OK(ilkit_module_free(m));
}

static void cfgs(const char *root, const char *kind, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  IlkitCfgs *c = NULL;
  if (strcmp(kind, "ptx") == 0)
    OK(ilkit_cfgs_from_ptx(path, &c));
  else
    OK(ilkit_cfgs_from_ll(path, &c));
  size_t n = 0;
  OK(ilkit_cfgs_count(c, &n));
  size_t blocks = 0, loops = 0;
  uint64_t h = FNV_START;
  for (size_t i = 0; i < n; i++) {
    const char *name = NULL;
    size_t len = 0;
    OK(ilkit_cfgs_name(c, i, &name, &len));
    CHECK(strlen(name) == len);
    h = fnv_bytes(h, name, len);
    IlkitResult *r = NULL;
    OK(ilkit_cfgs_analyze(c, i, &r));
    size_t num_blocks = 0;
    OK(ilkit_result_num_names(r, &num_blocks));
    blocks += num_blocks;
    Array idom = array(r, ILKIT_ARRAY_IDOM);
    CHECK(idom.len == num_blocks);
    Array entry = array(r, ILKIT_ARRAY_ENTRY);
    if (num_blocks > 0) CHECK(idom.data[entry.data[0]] == entry.data[0]);
    loops += array(r, ILKIT_ARRAY_LOOP_HEADER).len;
    static const IlkitArray hashed[] = {
        ILKIT_ARRAY_SUCC_STARTS,     ILKIT_ARRAY_SUCC_NODES,     ILKIT_ARRAY_RPO,
        ILKIT_ARRAY_IDOM,            ILKIT_ARRAY_DOM_LEVEL,      ILKIT_ARRAY_FRONTIER_STARTS,
        ILKIT_ARRAY_FRONTIER_NODES,  ILKIT_ARRAY_IPDOM,          ILKIT_ARRAY_PDOM_ROOTS,
        ILKIT_ARRAY_LOOP_HEADER,     ILKIT_ARRAY_LOOP_PARENT,    ILKIT_ARRAY_LOOP_DEPTH,
        ILKIT_ARRAY_LOOP_BLOCK_STARTS, ILKIT_ARRAY_LOOP_BLOCKS,  ILKIT_ARRAY_BLOCK_LOOP,
    };
    for (size_t k = 0; k < sizeof hashed / sizeof hashed[0]; k++)
      h = hash_array(h, array(r, hashed[k]));
    for (size_t b = 0; b < num_blocks; b++) {
      OK(ilkit_result_name(r, b, &name, &len));
      h = fnv_bytes(h, name, len);
      h = fnv_bytes(h, "", 1);
    }
    OK(ilkit_result_free(r));
  }
  printf("cfgs %s: functions %zu blocks %zu loops %zu hash %016" PRIx64 "\n", rel, n, blocks,
         loops, h);
  OK(ilkit_cfgs_free(c));
}

static void device_il(const char *root, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  IlkitIl *il = NULL;
  OK(ilkit_il_from_clang_json(path, &il));
  IlkitResult *r = NULL;
  OK(ilkit_il_keep_device(il, &r));
  Array counts = array(r, ILKIT_ARRAY_KEEP_COUNTS);
  CHECK(counts.len == 2);
  size_t routines = 0;
  OK(ilkit_result_num_names(r, &routines));
  uint64_t h = FNV_START;
  for (size_t i = 0; i < routines; i++) {
    const char *name = NULL;
    size_t len = 0;
    OK(ilkit_result_name(r, i, &name, &len));
    h = fnv_bytes(h, name, len);
    h = fnv_bytes(h, "", 1);
  }
  const uint8_t *bytes = NULL;
  size_t num_bytes = 0;
  OK(ilkit_result_bytes(r, &bytes, &num_bytes));
  CHECK(num_bytes > 0);
  h = fnv_bytes(h, bytes, num_bytes);
  printf("il %s: kept %" PRIu32 " live %" PRIu32 " routines %zu bytes %zu hash %016" PRIx64 "\n",
         rel, counts.data[0], counts.data[1], routines, num_bytes, h);
  OK(ilkit_result_free(r));
  OK(ilkit_il_free(il));
}

static void errors(const char *root) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, "tests/fixtures/clang/kernels.json.gz");
  /* a JSON AST is no LLVM IR: a parse error with file, line and column */
  IlkitModule *m = NULL;
  CHECK(ilkit_module_from_ll(path, &m) == ILKIT_STATUS_PARSE);
  CHECK(m == NULL);
  const char *file = NULL;
  uint32_t line = 0, column = 0;
  uint64_t offset = 0;
  OK(ilkit_last_error_location(&file, &line, &column, &offset));
  CHECK(strstr(file, "kernels.json.gz") != NULL);
  CHECK(line >= 1 && column >= 1);
  /* a missing file is an I/O error */
  IlkitCfgs *c = NULL;
  CHECK(ilkit_cfgs_from_ptx("/nonexistent/none.ptx", &c) == ILKIT_STATUS_IO);
  /* a freed handle is a bad handle, not a crash */
  IlkitResult *r = NULL;
  const uint32_t ptr[] = {0, 0};
  OK(ilkit_graph_scc(ptr, 1, NULL, 0, &r));
  OK(ilkit_result_free(r));
  CHECK(ilkit_result_free(r) == ILKIT_STATUS_BAD_HANDLE);
  printf("errors: ok\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
    return 2;
  }
  const char *root = argv[1];
  CHECK(strlen(ilkit_version()) > 0);
  known_graphs();
  call_graph(root, "tests/corpus/llvm/zlib/zlib.O2.ll.gz");
  cfgs(root, "ll", "tests/corpus/llvm/zlib/zlib.O2.ll.gz");
  cfgs(root, "ptx", "tests/corpus/llvm/zlib/nvptx/deflate.ptx.gz");
  device_il(root, "tests/fixtures/clang/kernels.json.gz");
  errors(root);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  return 0;
}
