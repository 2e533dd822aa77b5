// Model loading: map or copy the bytes, verify (FlatBuffers Verifier, schema
// version, the format's own rules), check the config and every tensor's shape,
// view the weights in place, load the embedded SentencePiece models.
#include "softalign/model.hpp"

#include <fcntl.h>
#include <sentencepiece_processor.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <system_error>
#include <thread>

#include "core/guard.hpp"
#include "model/embedded_spm.hpp"
#include "model/model_impl.hpp"
#include "model/step_plan.hpp"
#include "softalign_format.h"
#include "softalign_names.h"
#include "softalign_tensors.h"

namespace softalign {

namespace internal {

Storage::~Storage() {
  if (map != nullptr) munmap(map, size);
  std::free(owned);
}

ModelImpl::~ModelImpl() = default;

namespace {

Status invalid(const std::string& msg) { return Status(StatusCode::kInvalidModel, msg); }

// A std::thread that is joined when it goes out of scope, however that happens.
struct JoiningThread {
  std::thread thread;
  JoiningThread() = default;
  JoiningThread(const JoiningThread&) = delete;
  JoiningThread& operator=(const JoiningThread&) = delete;
  ~JoiningThread() {
    if (thread.joinable()) thread.join();
  }
};

std::string shape_string(const std::vector<uint32_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Binds named tensors to the weights, each with the shape the tensor contract
// gives it (softalign_tensors.h), and counts them, so that a tensor the file
// lacks, one of another shape and one the contract does not list are errors.
class Binder {
 public:
  Binder(const fb::Model& m, ModelImpl* impl) : m_(m), impl_(impl) {
    for (format::TensorSpec& s : format::tensor_specs(impl->config)) specs_.emplace(s.name, std::move(s.shape));
  }

  Status matrix(const std::string& name, Matrix* out) {
    const fb::Tensor* t = nullptr;
    Status st = find(name, &t);
    if (!st.ok()) return st;
    if (t->shape()->size() != 2) return internal_error(name + " is not a matrix in the tensor contract");
    out->rows = static_cast<int>(t->shape()->Get(0));
    out->cols = static_cast<int>(t->shape()->Get(1));
    out->data = t->data()->data();
    out->scales = nullptr;
    switch (t->dtype()) {
      case fb::DType::F32: out->type = WeightType::kF32; break;
      case fb::DType::F16: out->type = WeightType::kF16; break;
      case fb::DType::I8:
        out->type = WeightType::kI8;
        out->scales = t->scales()->data();
        // Alignment of the scales vector is 4 by FlatBuffers' rules.
        // A NaN, Inf or negative scale is damage that would otherwise turn
        // into silent garbage (or, in a local-p window, an index).
        for (uint32_t r = 0; r < t->scales()->size(); ++r)
          if (!(std::isfinite(out->scales[r]) && out->scales[r] >= 0.0f))
            return invalid("tensor " + name + " has a bad scale at row " + std::to_string(r));
        break;
    }
    return Status::Ok();
  }

  // A 1-D tensor [n] (biases) or a 2-D [1, n] (v_a, v_p), as f32: viewed in
  // place when stored as f32, widened once otherwise.
  Status vector(const std::string& name, const float** out) {
    const fb::Tensor* t = nullptr;
    Status st = find(name, &t);
    if (!st.ok()) return st;
    const auto& shape = *t->shape();
    if (!(shape.size() == 1 || (shape.size() == 2 && shape.Get(0) == 1)))
      return internal_error(name + " is not a vector in the tensor contract");
    const int n = static_cast<int>(shape.Get(shape.size() - 1));
    const uint8_t* p = t->data()->data();
    if (t->dtype() == fb::DType::F32) {
      *out = reinterpret_cast<const float*>(p);
      return check_finite(name, *out, n);
    }
    std::vector<float>& v = impl_->widened.emplace_back(static_cast<std::size_t>(n));
    if (t->dtype() == fb::DType::F16) {
      for (int i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        v[i] = kernels::half_to_float(h);
      }
    } else {
      const float scale = t->scales()->Get(0);
      for (int i = 0; i < n; ++i) v[i] = static_cast<float>(reinterpret_cast<const int8_t*>(p)[i]) * scale;
    }
    *out = v.data();
    return check_finite(name, v.data(), n);
  }

  Status rnn(const std::string& prefix, const std::string& suffix, RnnWeights* g) {
    Status st = matrix(prefix + "weight_ih_l" + suffix, &g->w_ih);
    if (st.ok()) st = matrix(prefix + "weight_hh_l" + suffix, &g->w_hh);
    if (st.ok()) st = vector(prefix + "bias_ih_l" + suffix, &g->b_ih);
    if (st.ok()) st = vector(prefix + "bias_hh_l" + suffix, &g->b_hh);
    if (st.ok()) {
      g->input = g->w_ih.cols;
      g->hidden = g->w_hh.cols;
    }
    return st;
  }

  // After the binding: every tensor of the contract was bound (else the
  // runtime's binding and the contract disagree), and the file holds no other.
  Status finish() const {
    if (bound_ != specs_.size())
      return internal_error("the weights bind " + std::to_string(bound_) + " tensors, the tensor contract lists " +
                            std::to_string(specs_.size()));
    if (bound_ != m_.tensors()->size())
      return invalid("the file has " + std::to_string(m_.tensors()->size() - bound_) +
                     " tensor(s) the config does not use");
    return Status::Ok();
  }

 private:
  // Vectors are small: every value is checked at load.
  static Status check_finite(const std::string& name, const float* v, int n) {
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(v[i])) return invalid("tensor " + name + " has a non-finite value at element " + std::to_string(i));
    return Status::Ok();
  }

  static Status internal_error(const std::string& what) {
    return Status(StatusCode::kInternal, "internal: tensor " + what);
  }

  // The file's tensor `name`, with the contract's shape.
  Status find(const std::string& name, const fb::Tensor** out) {
    auto spec = specs_.find(name);
    if (spec == specs_.end()) return internal_error(name + " is not in the tensor contract");
    const std::vector<uint32_t>& shape = spec->second;
    const fb::Tensor* t = format::find_tensor(m_, name.c_str());
    if (t == nullptr) return invalid("missing tensor " + name);
    std::vector<uint32_t> got(t->shape()->begin(), t->shape()->end());
    if (got != shape)
      return invalid("tensor " + name + " has shape " + shape_string(got) + ", the config needs " +
                     shape_string(shape));
    ++bound_;
    *out = t;
    return Status::Ok();
  }

  const fb::Model& m_;
  ModelImpl* impl_;
  std::map<std::string, std::vector<uint32_t>> specs_;  // the contract: name -> shape
  std::size_t bound_ = 0;
};

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

Status read_config(const fb::Model& m, ModelConfig* c) {
  const fb::Config& f = *m.config();
  // verify_model has refused values outside the table already; read through it all the same.
  if (!names::from_file(f.variant(), &c->variant) || !names::from_file(f.score(), &c->score) ||
      !names::from_file(f.scope(), &c->scope))
    return invalid("unknown variant, score or scope value");
  if (!names::from_file(f.cell(), &c->cell) || !format::file_decoder_init(m, &c->decoder_init))
    return invalid("unknown cell or decoder init value");
  c->enc_directions = f.enc_directions();
  c->reverse_source = f.reverse_source();
  c->source_eos = f.source_eos();
  c->query_bias = f.query_bias();
  c->combine_bias = f.combine_bias();
  c->combine_tanh = f.combine_tanh();
  c->pretokenized = f.pretokenized();
  c->window_d = f.window_d();
  c->input_feeding = f.input_feeding();
  c->enc_layers = f.enc_layers();
  c->dec_layers = f.dec_layers();
  c->emb_size = f.emb_size();
  c->enc_hidden = f.enc_hidden();
  c->dec_hidden = f.dec_hidden();
  c->att_hidden = f.att_hidden();
  c->maxout_size = f.maxout_size();
  c->src_vocab = f.src_vocab();
  c->tgt_vocab = f.tgt_vocab();
  c->shared_vocab = f.shared_vocab();
  c->pad_id = f.pad_id();
  c->unk_id = f.unk_id();
  c->bos_id = f.bos_id();
  c->eos_id = f.eos_id();
  c->max_src_len = f.max_src_len();
  if (const fb::Decoding* d = f.decoding()) {
    c->decoding.beam = d->beam();
    c->decoding.alpha = d->alpha();
    c->decoding.beta = d->beta();
    c->decoding.max_len_a = d->max_len_a();
    c->decoding.max_len_b = d->max_len_b();
    c->decoding.nbest = d->nbest();
    c->decoding.block_repeats = d->block_repeats();
    if (!names::from_file(d->beam_rules(), &c->decoding.beam_rules)) return invalid("unknown beam rules value");
  }
  if (const fb::Metadata* md = m.metadata()) {
    c->name = str(md->name());
    c->src_lang = str(md->src_lang());
    c->tgt_lang = str(md->tgt_lang());
  }

  Status st = validate_config(*c);
  if (!st.ok()) return invalid("config: " + st.message());
  return Status::Ok();
}

Status bind_weights(const fb::Model& m, ModelImpl* impl) {
  const ModelConfig& c = impl->config;
  Weights& w = impl->w;
  Binder b(m, impl);
  Status st = b.matrix("src_emb.weight", &w.src_emb);
  if (st.ok()) st = b.matrix("tgt_emb.weight", &w.tgt_emb);
  const bool both_ways = c.enc_directions == 2;
  w.enc_fwd.resize(c.enc_layers);
  w.enc_bwd.resize(both_ways ? c.enc_layers : 0);
  for (int k = 0; st.ok() && k < c.enc_layers; ++k) {
    st = b.rnn("encoder.rnn.", std::to_string(k), &w.enc_fwd[k]);
    if (st.ok() && both_ways) st = b.rnn("encoder.rnn.", std::to_string(k) + "_reverse", &w.enc_bwd[k]);
  }
  const bool bridge = c.decoder_init == DecoderInit::kTanhBackward || c.decoder_init == DecoderInit::kTanhFinal ||
                      c.decoder_init == DecoderInit::kReluFinal;
  if (st.ok() && bridge) st = b.matrix("bridge.weight", &w.bridge_w);
  if (st.ok() && bridge) st = b.vector("bridge.bias", &w.bridge_b);
  if (st.ok() && c.decoder_init == DecoderInit::kReluFinal && c.cell == Cell::kLstm) {
    st = b.matrix("bridge_c.weight", &w.bridge_c_w);
    if (st.ok()) st = b.vector("bridge_c.bias", &w.bridge_c_b);
  }
  w.dec.resize(c.dec_layers);
  for (int k = 0; st.ok() && k < c.dec_layers; ++k) st = b.rnn("decoder.rnn.", std::to_string(k), &w.dec[k]);
  if (c.variant != Variant::kLuong) {
    if (st.ok() && c.variant == Variant::kBahdanau) {
      st = b.matrix("attention.W_a.weight", &w.att_W_a);
      if (st.ok()) st = b.matrix("attention.U_a.weight", &w.att_U_a);
      if (st.ok()) st = b.vector("attention.U_a.bias", &w.att_U_a_b);
      if (st.ok()) st = b.vector("attention.v_a.weight", &w.att_v_a);
    }
    if (st.ok()) st = b.matrix("output.U_o.weight", &w.out_U_o);
    if (st.ok()) st = b.vector("output.U_o.bias", &w.out_U_o_b);
    if (st.ok()) st = b.matrix("output.V_o.weight", &w.out_V_o);
    if (st.ok()) st = b.matrix("output.C_o.weight", &w.out_C_o);
  } else {
    if (st.ok() && c.score == Score::kGeneral) st = b.matrix("attention.W_a.weight", &w.att_W_a);
    if (st.ok() && c.score == Score::kConcat) {
      st = b.matrix("attention.W_q.weight", &w.att_W_q);
      if (st.ok() && c.query_bias) st = b.vector("attention.W_q.bias", &w.att_W_q_b);
      if (st.ok()) st = b.matrix("attention.W_k.weight", &w.att_W_k);
      if (st.ok()) st = b.vector("attention.v_a.weight", &w.att_v_a);
    }
    if (st.ok() && c.score == Score::kLocation) st = b.matrix("attention.W_loc.weight", &w.att_W_loc);
    if (st.ok() && c.scope == Scope::kLocalP) {
      st = b.matrix("attention.W_p.weight", &w.att_W_p);
      if (st.ok()) st = b.vector("attention.v_p.weight", &w.att_v_p);
    }
    if (st.ok()) st = b.matrix("decoder.W_c.weight", &w.dec_W_c);
    if (st.ok() && c.combine_bias) st = b.vector("decoder.W_c.bias", &w.dec_W_c_b);
  }
  if (st.ok()) st = b.matrix("generator.weight", &w.gen_w);
  if (st.ok()) st = b.vector("generator.bias", &w.gen_b);
  if (st.ok()) st = b.finish();
  if (st.ok()) impl->weight_type = w.gen_w.type;
  return st;
}

Status load_spm(const flatbuffers::Vector<uint8_t>* bytes, const char* side,
                std::unique_ptr<sentencepiece::SentencePieceProcessor>* out) {
  return load_embedded_spm(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), side, out);
}

// The target processor only turns ids into text (decode_target), which never
// uses the unigram model's piece trie; building that trie is ~2/3 of loading
// a processor (4 of 6 ms for 8k pieces). A second trainer_spec holding only
// model_type = CHAR, appended to the serialized ModelProto (protobuf merges
// the repeated occurrences of a message field), makes SentencePiece build a
// character model instead: the same pieces, ids, types, normalizer and
// decoding (SentencePieceProcessor::Decode does not depend on the model
// type), without the trie. If that load fails (a self-test sample in the
// model, which a character model cannot reproduce), the model loads as is.
Status load_decoder_spm(const flatbuffers::Vector<uint8_t>* bytes, const char* side,
                        std::unique_ptr<sentencepiece::SentencePieceProcessor>* out) {
  // ModelProto field 2 (trainer_spec, length 2) { TrainerSpec field 3 (model_type) = 4 (CHAR) }
  static constexpr char kCharModel[] = {0x12, 0x02, 0x18, 0x04};
  std::string proto(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  proto.append(kCharModel, sizeof kCharModel);
  if (load_embedded_spm(proto, side, out).ok()) return Status::Ok();
  return load_spm(bytes, side, out);
}

}  // namespace

Status ModelImpl::target_encoder(const sentencepiece::SentencePieceProcessor** out) const {
  if (config.shared_vocab) {
    *out = src_spm.get();
    return Status::Ok();
  }
  std::call_once(tgt_encoder_once, [&] {
    tgt_encoder_status = guarded([&] { return load_embedded_spm(tgt_spm_bytes, "target", &tgt_encoder); });
  });
  *out = tgt_encoder.get();
  return tgt_encoder_status;
}

Status load_impl(std::unique_ptr<Storage> storage, std::unique_ptr<ModelImpl>* out) {
  std::string err;
  const fb::Model* m = format::verify_model(storage->data, storage->size, &err);
  if (m == nullptr) {
    const bool newer = err.find("newer converter") != std::string::npos;
    return Status(newer ? StatusCode::kUnsupportedVersion : StatusCode::kInvalidModel, err);
  }
  auto impl = std::make_unique<ModelImpl>();
  impl->schema_version = static_cast<int>(m->schema_version());
  Status st = read_config(*m, &impl->config);
  if (!st.ok()) return st;
  if (const fb::Metadata* md = m->metadata()) {
    auto add = [&](const char* k, const flatbuffers::String* v) {
      if (v) impl->metadata.emplace_back(k, v->str());
    };
    add("name", md->name());
    add("src_lang", md->src_lang());
    add("tgt_lang", md->tgt_lang());
    add("corpus", md->corpus());
    add("converter_version", md->converter_version());
    for (const auto* list : {md->metrics(), md->extra()})
      if (list)
        for (const fb::KeyValue* kv : *list) impl->metadata.emplace_back(kv->key()->str(), str(kv->value()));
  }
  st = bind_weights(*m, impl.get());
  if (!st.ok()) return st;
  impl->plan = plan_model(impl->config, impl->w, impl->weight_type);
  impl->shortlist = view_shortlist(*m);
  impl->confidence = read_confidence(*m);
  auto bytes = [](const flatbuffers::Vector<uint8_t>* v) {
    return std::string_view(reinterpret_cast<const char*>(v->data()), v->size());
  };
  impl->src_spm_bytes = bytes(m->src_spm());
  impl->tgt_spm_bytes = impl->config.shared_vocab ? impl->src_spm_bytes : bytes(m->tgt_spm());
  // Building the source SentencePiece processor (protobuf parse and trie) is
  // most of the load time: the target one (no trie, see load_decoder_spm) is
  // built on a second thread meanwhile.
  // The thread is joined on every path (an exception here unwinding past a
  // joinable std::thread would call std::terminate), and nothing escapes it.
  Status tgt_st;
  {
    JoiningThread tgt_thread;
    if (!impl->config.shared_vocab) {
      auto load_target = [&] {
        tgt_st = guarded([&] { return load_decoder_spm(m->tgt_spm(), "target", &impl->tgt_spm); });
      };
      try {
        tgt_thread.thread = std::thread(load_target);
      } catch (const std::system_error&) {
        load_target();  // no thread to be had: load it here
      }
    }
    st = load_spm(m->src_spm(), "source", &impl->src_spm);
  }
  if (st.ok()) st = tgt_st;
  if (!st.ok()) return st;
  if (impl->src_spm->GetPieceSize() > impl->config.src_vocab ||
      impl->tgt()->GetPieceSize() > impl->config.tgt_vocab)
    return invalid("the SentencePiece vocabulary is larger than the embeddings");
  impl->storage = std::move(storage);
  *out = std::move(impl);
  return Status::Ok();
}

}  // namespace internal

Model::Model(std::unique_ptr<internal::ModelImpl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

Status Model::load(const std::string& path, std::shared_ptr<const Model>* out) {
  return load(path, LoadMode::kMap, out);
}

Status Model::load(const std::string& path, LoadMode mode, std::shared_ptr<const Model>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    // open() would stop at the NUL and open another file.
    if (path.find('\0') != std::string::npos)
      return Status(StatusCode::kInvalidArgument, "the model path holds a NUL byte");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      return Status(e == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError,
                    "cannot open " + path + ": " + std::strerror(e));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      ::close(fd);
      return Status(StatusCode::kIoError, path + " is not a regular file");
    }
    auto storage = std::make_unique<internal::Storage>();
    storage->size = static_cast<std::size_t>(sb.st_size);
    if (storage->size < 8) {
      ::close(fd);
      return Status(StatusCode::kInvalidModel, path + ": not a softalign model file (too short)");
    }
    if (mode == LoadMode::kCopy) {
      storage->owned = std::aligned_alloc(64, (storage->size + 63) / 64 * 64);
      if (storage->owned == nullptr) {
        ::close(fd);
        return Status(StatusCode::kResourceExhausted, "cannot allocate " + std::to_string(storage->size) +
                                                          " bytes to copy " + path);
      }
      // Read until the size fstat gave; a file that shrinks meanwhile is an I/O error.
      std::size_t done = 0;
      while (done < storage->size) {
        const ssize_t n = ::read(fd, static_cast<char*>(storage->owned) + done, storage->size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const int e = errno;
          ::close(fd);
          return Status(StatusCode::kIoError, "cannot read " + path + ": " +
                                                  (n == 0 ? std::string("it shrank while being read") : std::strerror(e)));
        }
        done += static_cast<std::size_t>(n);
      }
      ::close(fd);
      storage->data = static_cast<const uint8_t*>(storage->owned);
    } else {
      void* p = mmap(nullptr, storage->size, PROT_READ, MAP_PRIVATE, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) return Status(StatusCode::kIoError, "cannot map " + path + ": " + std::strerror(errno));
      storage->map = p;
      storage->data = static_cast<const uint8_t*>(p);
    }
    std::unique_ptr<internal::ModelImpl> impl;
    Status st = internal::load_impl(std::move(storage), &impl);
    if (!st.ok()) st = Status(st.code(), path + ": " + st.message());
    if (!st.ok()) return st;
    out->reset(new Model(std::move(impl)));
    return st;
  });
}

Status Model::load_from_bytes(const void* data, std::size_t size, std::shared_ptr<const Model>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr || (data == nullptr && size > 0)) return Status(StatusCode::kInvalidArgument, "null argument");
    auto storage = std::make_unique<internal::Storage>();
    const std::size_t rounded = (size + 63) / 64 * 64;
    storage->owned = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (storage->owned == nullptr) return Status(StatusCode::kIoError, "out of memory");
    if (size) std::memcpy(storage->owned, data, size);
    storage->data = static_cast<const uint8_t*>(storage->owned);
    storage->size = size;
    std::unique_ptr<internal::ModelImpl> impl;
    Status st = internal::load_impl(std::move(storage), &impl);
    if (!st.ok()) return st;
    out->reset(new Model(std::move(impl)));
    return st;
  });
}

Status Model::load_from_memory(const void* data, std::size_t size, std::shared_ptr<const Model>* out) {
  return internal::guarded([&]() -> Status {
    if (out == nullptr || data == nullptr) return Status(StatusCode::kInvalidArgument, "null argument");
    if (reinterpret_cast<uintptr_t>(data) % 32 != 0)
      return Status(StatusCode::kInvalidArgument, "model bytes must be 32-byte aligned (use load_from_bytes)");
    auto storage = std::make_unique<internal::Storage>();
    storage->data = static_cast<const uint8_t*>(data);
    storage->size = size;
    std::unique_ptr<internal::ModelImpl> impl;
    Status st = internal::load_impl(std::move(storage), &impl);
    if (!st.ok()) return st;
    out->reset(new Model(std::move(impl)));
    return st;
  });
}

const ModelConfig& Model::config() const { return impl_->config; }
const Metadata& Model::metadata() const { return impl_->metadata; }
std::string_view Model::metadata_value(std::string_view key) const {
  for (const auto& kv : impl_->metadata)
    if (kv.first == key) return kv.second;
  return {};
}
WeightType Model::weight_type() const { return impl_->weight_type; }
std::size_t Model::file_bytes() const { return impl_->storage->size; }
int Model::schema_version() const { return impl_->schema_version; }
bool Model::has_shortlist() const { return impl_->shortlist.present(); }
bool Model::confidence_calibrated() const { return impl_->confidence.present; }
std::string_view Model::confidence_fitted_on() const { return impl_->confidence.fitted_on; }

}  // namespace softalign
