// A converted file is verifiable: structural damage is rejected by the
// reader's checks (softalign_format.h: FlatBuffers Verifier + format rules),
// and no damaged buffer makes the reader crash or read out of bounds.
#include <random>

#include <doctest/doctest.h>

#include "checks.h"

using namespace test;
namespace fb = softalign::fb;

namespace {

// Reads every field of an accepted model, as a loader would (under a
// sanitizer build this proves the reads stay in bounds).
uint64_t walk(const fb::Model& m) {
  uint64_t sum = m.schema_version();
  const fb::Config& c = *m.config();
  sum += c.enc_layers() + c.dec_layers() + c.emb_size() + int(c.variant()) + c.decoding()->beam();
  for (const fb::Tensor* t : *m.tensors()) {
    sum += t->name()->size() + softalign::format::element_count(*t);
    for (uint8_t b : *t->data()) sum += b;
    if (t->scales())
      for (float s : *t->scales()) sum += s > 0;
    CHECK(softalign::format::find_tensor(m, t->name()->c_str()) == t);
  }
  for (uint8_t b : *m.src_spm()) sum += b;
  if (const auto* tgt = softalign::format::tgt_spm(m)) sum += tgt->size();
  if (const fb::Metadata* md = m.metadata()) {
    if (md->name()) sum += md->name()->size();
    if (md->extra())
      for (const fb::KeyValue* kv : *md->extra()) sum += kv->key()->size() + (kv->value() ? kv->value()->size() : 0);
    if (md->metrics())
      for (const fb::KeyValue* kv : *md->metrics()) sum += kv->key()->size();
  }
  return sum;
}

std::vector<uint8_t> converted(const TempDir& dir) {
  const TinyModel m = make_model(dir.path, small_config("luong", "concat", "local-p", true));
  REQUIRE(run_convert({"--int8", m.weights, "-o", dir.file("m.softalign")}).status == 0);
  return read_file(dir.file("m.softalign"));
}

bool accepted(const std::vector<uint8_t>& bytes, std::string* err = nullptr) {
  std::string e;
  const fb::Model* m = softalign::format::verify_model(bytes.data(), bytes.size(), &e);
  if (m) walk(*m);
  if (err) *err = e;
  return m != nullptr;
}

}  // namespace

TEST_CASE("random byte flips: rejected or still well-formed, never a crash") {
  TempDir dir;
  const std::vector<uint8_t> good = converted(dir);
  REQUIRE(accepted(good));
  std::mt19937 rng(12345);
  int rejected = 0, still_valid = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    std::vector<uint8_t> bad = good;
    const int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] ^= uint8_t(1 + rng() % 255);
    (accepted(bad) ? still_valid : rejected)++;
  }
  MESSAGE(rejected << " of " << trials << " damaged buffers rejected, " << still_valid
                   << " still well-formed (flips in weight data or padding)");
  CHECK(rejected > 0);
  CHECK(rejected + still_valid == trials);
}

TEST_CASE("flips in the structure (offsets, vtables, lengths) are rejected") {
  TempDir dir;
  const std::vector<uint8_t> good = converted(dir);
  // The root offset and the root table's vtable: every change of their high
  // bits points outside the buffer or to garbage.
  std::vector<uint8_t> bad = good;
  bad[3] ^= 0x80;  // root offset + 2^31
  CHECK_FALSE(accepted(bad));
  bad = good;
  bad[2] ^= 0x40;  // root offset + 2^22 (beyond this small file)
  CHECK_FALSE(accepted(bad));
  // Every tensor's data length grown: beyond its neighbours' ranges or the shape.
  const fb::Model* m = verified(good);
  for (const fb::Tensor* t : *m->tensors()) {
    const size_t len_at = size_t(t->data()->data() - good.data()) - 4;
    bad = good;
    bad[len_at] ^= 0x01;
    std::string err;
    CHECK_FALSE_MESSAGE(accepted(bad, &err), t->name()->str());
    bad = good;
    bad[len_at + 3] ^= 0x40;  // length + 2^30
    CHECK_FALSE_MESSAGE(accepted(bad, &err), t->name()->str());
  }
}

TEST_CASE("truncated files are rejected or well-formed; cut into the data they are rejected") {
  TempDir dir;
  const std::vector<uint8_t> good = converted(dir);
  const fb::Model* m = verified(good);
  // The highest byte any tensor's data reaches: below it, data is missing.
  size_t data_end = 0;
  for (const fb::Tensor* t : *m->tensors())
    data_end = std::max(data_end, size_t(t->data()->data() - good.data()) + t->data()->size());
  for (size_t len = 0; len < good.size(); len += 7) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + long(len));
    const bool ok = accepted(cut);
    if (len < data_end) CHECK_FALSE_MESSAGE(ok, len);
  }
}

TEST_CASE("wrong identifier and newer schema versions are refused with a clear reason") {
  TempDir dir;
  std::vector<uint8_t> bytes = converted(dir);
  std::string err;
  std::vector<uint8_t> bad = bytes;
  bad[4] = 'X';
  CHECK_FALSE(accepted(bad, &err));
  CHECK(err == "not a softalign model file (wrong file identifier)");

  // A Model with a schema version above this build's: "made by a newer converter".
  flatbuffers::FlatBufferBuilder b;
  auto decoding = fb::CreateDecoding(b, 1);
  fb::ConfigBuilder cb(b);
  cb.add_decoding(decoding);
  auto config = cb.Finish();
  auto tensors = b.CreateVector(std::vector<flatbuffers::Offset<fb::Tensor>>{});
  auto spm = b.CreateVector(std::vector<uint8_t>{1});
  fb::ModelBuilder mb(b);
  mb.add_schema_version(softalign::format::kSchemaVersion + 1);
  mb.add_config(config);
  mb.add_tensors(tensors);
  mb.add_src_spm(spm);
  fb::FinishModelBuffer(b, mb.Finish());
  std::vector<uint8_t> newer(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  CHECK_FALSE(accepted(newer, &err));
  CHECK(err.find("made by a newer converter") != std::string::npos);
  CHECK(err.find("schema version " + std::to_string(softalign::format::kSchemaVersion + 1)) != std::string::npos);

  CHECK_FALSE(accepted({}, &err));
  CHECK(err == "not a softalign model file (too short)");
}

TEST_CASE("unsorted tensors are refused (lookups need the order)") {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Tensor>> ts;
  for (const char* name : {"b", "a"}) {
    auto n = b.CreateString(name);
    auto shape = b.CreateVector(std::vector<uint32_t>{1});
    b.ForceVectorAlignment(4, 1, 32);
    auto data = b.CreateVector(std::vector<uint8_t>(4, 0));
    ts.push_back(fb::CreateTensor(b, n, shape, fb::DType::F32, 0, data));
  }
  auto tensors = b.CreateVector(ts);
  auto spm = b.CreateVector(std::vector<uint8_t>{1});
  auto config = fb::CreateConfig(b, fb::Variant::EncDec, fb::Score::None, fb::Scope::Global, 0, false, 1, 1, 1, 1, 1,
                                 0, 1, 4, 4, true, 0, 1, 2, 3, 8, fb::CreateDecoding(b, 1));
  fb::ModelBuilder mb(b);
  mb.add_schema_version(1);
  mb.add_config(config);
  mb.add_tensors(tensors);
  mb.add_src_spm(spm);
  fb::FinishModelBuffer(b, mb.Finish());
  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  std::string err;
  CHECK_FALSE(accepted(bytes, &err));
  CHECK(err.find("not sorted by name") != std::string::npos);
}
