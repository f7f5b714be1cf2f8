// The XNNPACK delegate's node-kind table (backends/xnnpack/node_kinds.h):
// every XNodeUnion type code has exactly one descriptor that can parse the
// kind and run it somewhere, and a payload naming a kind the table does not
// know is refused at init with a message naming the delegate, node and kind.
#include "backends/xnnpack/node_kinds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "runtime/platform/error_capture.h"
#include "schema/xnnpack_graph_generated.h"
#include "test/support/in_process.h"
#include "test/xnnpack/payload_util.h"

namespace etr {
namespace testing {
namespace {

namespace fb = etr_xnn;
using xnnpack::NodeKind;
using xnnpack::NodeKindDesc;

TEST(NodeKindsTest, EveryNodeKindHasExactlyOneDescriptor) {
  const Span<const NodeKindDesc> table = xnnpack::node_kind_table();
  // The schema's last XNodeUnion member is XNNCos (47), NodeKind::Cos.
  ASSERT_EQ(static_cast<uint32_t>(fb::XNodeUnion::MAX), xnnpack::kMaxNodeKindCode);
  ASSERT_EQ(static_cast<uint32_t>(NodeKind::Cos), xnnpack::kMaxNodeKindCode);
  ASSERT_EQ(table.size(), size_t{xnnpack::kMaxNodeKindCode});
  for (uint32_t code = 1; code <= xnnpack::kMaxNodeKindCode; ++code) {
    SCOPED_TRACE(code);
    size_t entries = 0;
    for (const NodeKindDesc& d : table) entries += static_cast<uint32_t>(d.kind) == code ? 1 : 0;
    EXPECT_EQ(entries, 1u);
    const NodeKindDesc* d = xnnpack::find_node_kind(code);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(static_cast<uint32_t>(d->kind), code);
    ASSERT_NE(d->name, nullptr);
    EXPECT_STREQ(d->name, fb::EnumNameXNodeUnion(static_cast<fb::XNodeUnion>(code)) + 3);  // "XNN"
    EXPECT_STREQ(xnnpack::to_string(d->kind), d->name);
    EXPECT_NE(d->parse, nullptr);
    // Every kind runs somewhere: in XNNPACK (then with its shape rules) or natively.
    EXPECT_TRUE(d->define != nullptr || d->native != nullptr) << d->name;
    if (d->define != nullptr) {
      EXPECT_NE(d->check, nullptr) << d->name;
    }
    if (d->native != nullptr) {
      EXPECT_NE(d->native->runs_natively, nullptr) << d->name;
      EXPECT_NE(d->native->check, nullptr) << d->name;
      EXPECT_NE(d->native->run, nullptr) << d->name;
    }
  }
  EXPECT_EQ(xnnpack::find_node_kind(0u), nullptr);
  EXPECT_EQ(xnnpack::find_node_kind(xnnpack::kMaxNodeKindCode + 1), nullptr);
  EXPECT_EQ(xnnpack::find_node_kind(255u), nullptr);
}

const LoadedFile& mlp_file() {
  static const LoadedFile& file = load_fixture_once("xnnpack/mlp.pte");
  return file;
}

std::vector<uint8_t> mlp_payload() { return first_xnnpack_payload(mlp_file().bytes); }

Error init_with(const std::vector<uint8_t>& bytes, size_t delegate, std::string* message) {
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  std::vector<uint8_t> copy = bytes;
  FreeableBuffer processed(copy.data(), copy.size());
  std::vector<uint8_t> pool(size_t{1} << 20);
  MemoryAllocator alloc(pool.data(), pool.size());
  if (mlp_file().program == nullptr) return Error::InvalidProgram;
  BackendInitContext ctx{&alloc, &mlp_file().program->named_data(), "forward", delegate, nullptr,
                         {}};
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, &processed, {});
  *message = capture.message();
  if (h.ok()) {
    xnnpack_backend().destroy(*h);
    return Error::Ok;
  }
  return h.error();
}

// Where node `index`'s xnode_union_type byte lies inside `payload`.
size_t union_type_offset(const std::vector<uint8_t>& payload, uint32_t index) {
  uint32_t fb_off = 0;
  std::memcpy(&fb_off, &payload[10], 4);
  const fb::XNNGraph* g = fb::GetXNNGraph(payload.data() + fb_off);
  const fb::XNode* node = g->xnodes()->Get(index);
  const uint8_t* p = reinterpret_cast<const flatbuffers::Table*>(node)->GetAddressOf(
      fb::XNode::VT_XNODE_UNION_TYPE);
  return p == nullptr ? SIZE_MAX : static_cast<size_t>(p - payload.data());
}

TEST(NodeKindsTest, AnUnknownNodeKindFailsInitNamingDelegateNodeAndKind) {
  const std::vector<uint8_t> p = mlp_payload();
  ASSERT_FALSE(p.empty());
  std::string msg;
  ASSERT_EQ(init_with(p, 5, &msg), Error::Ok) << msg;  // the payload as exported runs
  uint32_t fb_off = 0;
  std::memcpy(&fb_off, &p[10], 4);
  const uint32_t nodes = fb::GetXNNGraph(p.data() + fb_off)->xnodes()->size();
  ASSERT_GE(nodes, 2u);
  const uint32_t index = nodes - 1;  // the last node: every node before it parses
  const size_t at = union_type_offset(p, index);
  ASSERT_NE(at, SIZE_MAX);
  for (uint8_t code : {uint8_t{xnnpack::kMaxNodeKindCode + 1}, uint8_t{200}}) {
    std::vector<uint8_t> q = p;
    q[at] = code;
    EXPECT_EQ(init_with(q, 5, &msg), Error::DelegateInvalidCompatibility) << int{code};
    const std::string want =
        "delegate 5: node " + std::to_string(index) + " has unknown kind " + std::to_string(code);
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
