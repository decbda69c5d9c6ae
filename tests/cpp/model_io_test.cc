// Saving and loading tiny models: round trip, and every way a model file
// can be wrong is a clear error (the container's own errors are covered by
// safetensors_test.cc).
#include "model/model_io.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "model/rng.h"
#include "model/safetensors.h"

namespace posenc {
namespace {

Model Tiny(Encoding e, bool causal) {
  ModelConfig c;
  c.vocab = 9;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 1;
  c.d_ff = 12;
  c.encoding = e;
  c.causal = causal;
  c.num_classes = causal ? 0 : 3;
  c.max_len = 16;
  c.task = "language";
  Model m;
  EXPECT_TRUE(NewModel(c, 4, &m).ok());
  return m;
}

Status Load(const std::string& bytes, Model* m) {
  return LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                   m);
}

void ExpectError(const std::string& bytes, const std::string& part) {
  Model m;
  const Status st = Load(bytes, &m);
  ASSERT_FALSE(st.ok()) << "expected an error containing: " << part;
  EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
}

TEST(ModelIo, RoundTripIsBitExactForEveryEncoding) {
  for (int e = 0; e < kNumEncodings; ++e) {
    for (bool causal : {true, false}) {
      const Model m = Tiny(static_cast<Encoding>(e), causal);
      Model back;
      const Status st = Load(SaveModel(m), &back);
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(ConfigToMetadata(back.config), ConfigToMetadata(m.config));
      ASSERT_EQ(back.w.size(), m.w.size());
      EXPECT_EQ(std::memcmp(back.w.data(), m.w.data(), m.w.size() * 4), 0);
      EXPECT_EQ(SaveModel(back), SaveModel(m));  // deterministic bytes
    }
  }
}

// Edits the parsed file and writes it again (a well-formed container with
// wrong model contents).
template <class Edit>
std::string Edited(const Model& m, Edit edit) {
  const std::string bytes = SaveModel(m);
  StFile f;
  EXPECT_TRUE(ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()),
                               bytes.size(), &f)
                  .ok());
  edit(&f);
  return WriteSafetensors(f);
}

TEST(ModelIo, WrongContentsAreErrors) {
  const Model m = Tiny(Encoding::kRope, true);
  ExpectError(Edited(m, [](StFile* f) { f->metadata.clear(); }),
              "lacks the key \"format\"");
  ExpectError(Edited(m, [](StFile* f) { f->metadata["vocab"] = "-3"; }),
              "vocab must be an integer in [3, 65536], got -3");
  ExpectError(Edited(m, [](StFile* f) { f->metadata["causal"] = "maybe"; }),
              "\"causal\" must be \"true\" or \"false\", got \"maybe\"");
  ExpectError(Edited(m, [](StFile* f) { f->metadata["rope_base"] = "nan"; }),
              "\"rope_base\" must be a finite number");
}

TEST(ModelIo, TensorSetMustMatchTheConfig) {
  const Model m = Tiny(Encoding::kT5, true);
  // A T5 model without its bias table.
  ExpectError(Edited(m,
                     [](StFile* f) {
                       for (size_t i = 0; i < f->tensors.size(); ++i) {
                         if (f->tensors[i].name == "t5.bias") {
                           f->tensors.erase(f->tensors.begin() + i);
                           break;
                         }
                       }
                     }),
              "t5.bias");
  // The same file declared as RoPE: t5.bias is now unexpected.
  ExpectError(Edited(m, [](StFile* f) { f->metadata["encoding"] = "rope"; }),
              "t5.bias");
  // A wider model's metadata over these tensors: shapes disagree.
  ExpectError(Edited(m, [](StFile* f) { f->metadata["d_ff"] = "13"; }),
              "mlp.w1");
}

TEST(ModelIo, CorruptBytesAreErrors) {
  const std::string good = SaveModel(Tiny(Encoding::kAlibi, false));
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); n += 7) {
    Model m;
    EXPECT_FALSE(Load(good.substr(0, n), &m).ok()) << n;
  }
  // Random byte flips: an error or a valid model, never a crash.
  SplitMix64 rng(5);
  size_t errors = 0;
  for (int i = 0; i < 500; ++i) {
    std::string bad = good;
    bad[rng.Below(static_cast<uint32_t>(bad.size()))] ^=
        static_cast<char>(1 + rng.Below(255));
    Model m;
    errors += Load(bad, &m).ok() ? 0 : 1;
  }
  EXPECT_GT(errors, 0u);
}

}  // namespace
}  // namespace posenc
