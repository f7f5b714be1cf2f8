// Method::set_observer: one begin/end pair per kernel call, with live
// arguments, and nothing when no observer is set.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/support/in_process.h"

namespace etr {
namespace {

struct Recorder final : ExecuteObserver {
  std::vector<std::string> begun;
  std::vector<std::string> ended;
  std::vector<std::vector<int32_t>> out_shapes;
  std::vector<Error> statuses;
  void on_begin(const InstructionEvent& e) override {
    EXPECT_EQ(e.kind, InstructionEvent::Kind::Kernel);
    EXPECT_STREQ(e.method, "forward");
    EXPECT_EQ(e.instruction, begun.size());
    begun.push_back(e.name);
  }
  void on_end(const InstructionEvent& e, Error status) override {
    ended.push_back(e.name);
    statuses.push_back(status);
    // The out argument (last before the return slot) with its run-time sizes.
    const EValue* out = e.args[e.args.size() - 2];
    std::vector<int32_t> shape;
    if (out->is_tensor()) {
      for (int32_t s : out->to_tensor().sizes()) shape.push_back(s);
    }
    out_shapes.push_back(shape);
  }
};

testing::FixtureCase find_case(const std::string& pte) {
  for (const testing::FixtureCase& c : testing::load_manifest()) {
    if (c.pte.size() >= pte.size() &&
        c.pte.compare(c.pte.size() - pte.size(), pte.size(), pte) == 0)
      return c;
  }
  ADD_FAILURE() << "no manifest case for " << pte;
  return {};
}

TEST(ObserverTest, SeesEveryKernelCallInOrderWithOutputShapes) {
  testing::register_all_kernels();
  const testing::FixtureCase c = find_case("add_mul.pte");
  testing::LoadedMethod lm;
  ASSERT_TRUE(testing::load_fixture_method(c, &lm)) << lm.error;
  ASSERT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
  Recorder rec;
  lm.method->set_observer(&rec);
  ASSERT_EQ(lm.method->execute(), Error::Ok);
  // export_models.py, case add_mul: a = add(x, y) * z; s = sub(x, y);
  // d = x / w, in that order, every result [2, 3, 4].
  EXPECT_EQ(rec.begun, (std::vector<std::string>{"aten::add.out", "aten::mul.out", "aten::sub.out",
                                                 "aten::div.out"}));
  EXPECT_EQ(rec.ended, rec.begun);
  EXPECT_EQ(rec.statuses, std::vector<Error>(4, Error::Ok));
  for (const auto& s : rec.out_shapes) EXPECT_EQ(s, (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(testing::compare_outputs(c, *lm.method), "");

  // Switched off: execute still runs, the recorder hears nothing more.
  lm.method->set_observer(nullptr);
  ASSERT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
  ASSERT_EQ(lm.method->execute(), Error::Ok);
  EXPECT_EQ(rec.begun.size(), 4u);
}

}  // namespace
}  // namespace etr
