// SharedPacks (backends/xnnpack/shared_packs.h): packs found only for the
// same key, form and serving map's key storage; forgotten with their owner;
// KeyHomes finds the first map's copy of a key. The end-to-end check (two
// methods of one program reuse packed weights, outputs unchanged) is in
// xnnpack_backend_test.cpp.
#include "backends/xnnpack/shared_packs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/core/named_data_map.h"

namespace etr {
namespace testing {
namespace {

using xnnpack::PackForm;
using xnnpack::PackScope;
using xnnpack::SharedPack;
using xnnpack::SharedPacks;

// A named-data map with the given keys (no data).
class KeysOnly final : public NamedDataMap {
 public:
  explicit KeysOnly(std::vector<std::string> keys) : keys_(std::move(keys)) {}
  Result<FreeableBuffer> get_data(StringView) const override { return Error::NotFound; }
  Result<TensorLayout> get_layout(StringView) const override { return Error::NotFound; }
  size_t num_keys() const override { return keys_.size(); }
  Result<const char*> key_at(size_t i) const override {
    if (i >= keys_.size()) return Error::InvalidArgument;
    return keys_[i].c_str();
  }

 private:
  std::vector<std::string> keys_;
};

// Two maps seen as one, the first listing its keys first (as the method
// loader merges the program's named data and external data files; each
// delegate gets its own merged object).
class Both final : public NamedDataMap {
 public:
  Both(const NamedDataMap* a, const NamedDataMap* b) : a_(a), b_(b) {}
  Result<FreeableBuffer> get_data(StringView) const override { return Error::NotFound; }
  Result<TensorLayout> get_layout(StringView) const override { return Error::NotFound; }
  size_t num_keys() const override { return a_->num_keys() + b_->num_keys(); }
  Result<const char*> key_at(size_t i) const override {
    return i < a_->num_keys() ? a_->key_at(i) : b_->key_at(i - a_->num_keys());
  }

 private:
  const NamedDataMap* a_;
  const NamedDataMap* b_;
};

TEST(SharedPacksTest, KeyHomeIsTheFirstServingMapsCopy) {
  KeysOnly a({"w1", "w2"}), b({"w2", "w3"});
  const Both ab(&a, &b), ba(&b, &a);
  xnnpack::KeyHomes in_ab(&ab), in_ba(&ba);
  EXPECT_EQ(in_ab.find("w2"), static_cast<const void*>(*a.key_at(1)));
  EXPECT_EQ(in_ba.find("w2"), static_cast<const void*>(*b.key_at(0)));
  EXPECT_EQ(in_ab.find("w3"), static_cast<const void*>(*b.key_at(1)));
  // Two merged maps over the same maps agree (each delegate gets its own copy).
  const Both ab2(&a, &b);
  xnnpack::KeyHomes in_ab2(&ab2);
  EXPECT_EQ(in_ab2.find("w1"), in_ab.find("w1"));
  EXPECT_NE(in_ab.find("w1"), nullptr);
  EXPECT_EQ(in_ab.find("w4"), nullptr);
  EXPECT_EQ(in_ab.find(nullptr), nullptr);
  xnnpack::KeyHomes none(nullptr);
  EXPECT_EQ(none.find("w1"), nullptr);
}

TEST(SharedPacksTest, FoundOnlyForTheSameKeyAndFormAndForgottenWithTheirOwner) {
  SharedPacks packs;
  int owner_a = 0, owner_b = 0, blob1 = 0, blob2 = 0, sums = 0;
  const char home_x[] = "x";
  const char home_y[] = "x";  // the same string in another map
  PackForm f;
  f.kind = 1;
  f.rows = 16;
  f.cols = 64;
  f.source_bytes = 1024;
  f.key_home = home_x;
  const PackScope a{&packs, nullptr, &owner_a}, b{&packs, nullptr, &owner_b};
  SharedPack out;
  EXPECT_FALSE(packs.find("x", f, &out));
  packs.add(a, "x", f, SharedPack{&blob1, &sums});
  packs.add(b, "x", f, SharedPack{&blob2, nullptr});      // the first one recorded stays
  packs.add(a, nullptr, f, SharedPack{&blob2, nullptr});  // no key: nothing recorded
  EXPECT_EQ(packs.size(), 1u);
  ASSERT_TRUE(packs.find("x", f, &out));
  EXPECT_EQ(out.first, &blob1);
  EXPECT_EQ(out.second, &sums);
  EXPECT_EQ(packs.hits(), 1u);
  // Any difference in the key or the form misses.
  EXPECT_FALSE(packs.find("y", f, &out));
  EXPECT_FALSE(packs.find(nullptr, f, &out));
  for (int change = 0; change < 5; ++change) {
    PackForm g = f;
    if (change == 0) g.kind = 2;
    if (change == 1) g.rows = 17;
    if (change == 2) g.cols = 63;
    if (change == 3) g.source_bytes = 1023;
    if (change == 4) g.key_home = home_y;
    EXPECT_FALSE(packs.find("x", g, &out)) << change;
  }
  EXPECT_EQ(packs.hits(), 1u);
  // A pack of another owner survives forget(a); a's is gone.
  PackForm g = f;
  g.key_home = home_y;
  packs.add(b, "x", g, SharedPack{&blob2, nullptr});
  EXPECT_EQ(packs.size(), 2u);
  packs.forget(&owner_a);
  EXPECT_EQ(packs.size(), 1u);
  EXPECT_FALSE(packs.find("x", f, &out));
  ASSERT_TRUE(packs.find("x", g, &out));
  EXPECT_EQ(out.first, &blob2);
}

}  // namespace
}  // namespace testing
}  // namespace etr
