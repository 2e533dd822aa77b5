#include "convert.h"

#include <fnmatch.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <set>

#include <sentencepiece_processor.h>

#include "atomic_file.h"
#include "config.h"
#include "confidence.h"
#include "error.h"
#include "expected_tensors.h"
#include "half.h"
#include "model_writer.h"
#include "quantize.h"
#include "safetensors.h"
#include "softalign/softalign.hpp"
#include "softalign_format.h"
#include "softalign_names.h"

#ifndef SOFTALIGN_VERSION
#define SOFTALIGN_VERSION "0.0.0"
#endif

namespace softalign::convert {

namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

std::string read_bytes(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(std::string("cannot open the ") + what + " SentencePiece model " + path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(std::string("cannot read ") + path);
  return s;
}

// Loads a SentencePiece model to check it is one and fits the vocabulary.
void check_spm(const std::string& bytes, const std::string& path, int vocab, const char* side) {
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.LoadFromSerializedProto(bytes);
  if (!status.ok()) throw Error(path + " is not a SentencePiece model: " + status.ToString());
  if (sp.GetPieceSize() > vocab)
    throw Error(path + " has " + std::to_string(sp.GetPieceSize()) + " pieces but the config's " + side +
                "_vocab is " + std::to_string(vocab));
}

// Checks the file's tensors against what the config needs; one line for the
// first problem found (missing, then wrong shape, then extra), with a count
// of the others.
void check_tensor_set(const std::map<std::string, SourceTensor>& have, const ModelConfig& c) {
  const auto want = expected_tensors(c);
  std::vector<std::string> problems;
  for (const auto& [name, shape] : want)
    if (!have.count(name))
      problems.push_back("missing tensor \"" + name + "\" (expected shape " + shape_to_string(shape) + ")");
  for (const auto& [name, shape] : want) {
    auto it = have.find(name);
    if (it != have.end() && it->second.shape != shape)
      problems.push_back("tensor \"" + name + "\" has shape " + shape_to_string(it->second.shape) + ", expected " +
                         shape_to_string(shape));
  }
  std::string kind = names::name(c.variant);
  if (c.variant == Variant::kLuong) kind = kind + " " + names::name(c.score) + " " + names::name(c.scope);
  for (const auto& [name, t] : have)
    if (!want.count(name)) problems.push_back("unexpected tensor \"" + name + "\" (not used by a " + kind + " model)");
  if (problems.empty()) return;
  std::string msg = problems.front();
  if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more tensor problems)";
  throw Error(msg);
}

void check_finite(const std::string& name, const std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw Error("tensor \"" + name + "\" has a non-finite value (" + (std::isnan(v[i]) ? "NaN" : "Inf") +
                  ") at element " + std::to_string(i));
}

bool matches_any(const std::string& name, const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns)
    if (::fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// The runtime's own verdict on the file: it loads, and a translator with the
// default options (the model's decoding defaults, TranslatorOptions' memory
// cap) can be prepared for it. A file that fails here would fail in an app.
void check_runtime_accepts(const uint8_t* data, size_t size) {
  std::shared_ptr<const softalign::Model> model;
  softalign::Status st = softalign::Model::load_from_bytes(data, size, &model);
  std::unique_ptr<softalign::Translator> translator;
  if (st.ok()) st = softalign::Translator::prepare(model, softalign::TranslatorOptions{}, &translator);
  if (!st.ok()) throw Error("the runtime would refuse this model: " + st.to_string());
}

template <typename T>
void append_le(std::vector<uint8_t>& out, T bits) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

}  // namespace

void convert(const Options& o, std::ostream& report_out) {
  if (o.shortlist_src.empty() != o.shortlist_tgt.empty())
    throw Error("--shortlist-corpus needs two files: SOURCE TARGET");
  if (!o.shortlist_src.empty()) check_shortlist_params(o.shortlist);
  if (!o.shortlist_src.empty() && o.shortlist_data) throw Error("give a shortlist corpus or shortlist data, not both");
  const SafeTensors st = read_safetensors(o.input);
  auto cfg_it = st.metadata.find("config");
  if (cfg_it == st.metadata.end())
    throw Error(o.input + ": no \"config\" in the safetensors metadata (see WEIGHTS_FORMAT.md)");
  const ModelConfig c = parse_config(cfg_it->second);
  check_tensor_set(st.tensors, c);

  for (const std::string& p : o.keep_fp32) {
    bool any = false;
    for (const auto& [name, t] : st.tensors) any = any || ::fnmatch(p.c_str(), name.c_str(), 0) == 0;
    if (!any) throw Error("--keep-fp32 pattern \"" + p + "\" matches no tensor");
  }

  // SentencePiece models: given, or beside the weights.
  const std::string dir = directory_of(o.input);
  std::string src_path = o.src_spm, tgt_path = o.tgt_spm;
  if (c.shared_vocab) {
    if (!tgt_path.empty() && tgt_path != src_path)
      throw Error("shared_vocab model: give one SentencePiece model with --src-spm, not --tgt-spm");
    if (src_path.empty()) src_path = file_exists(dir + "/spm.model") ? dir + "/spm.model" : dir + "/src.spm.model";
  } else {
    if (src_path.empty()) src_path = dir + "/src.spm.model";
    if (tgt_path.empty()) tgt_path = dir + "/tgt.spm.model";
  }
  const std::string src_spm = read_bytes(src_path, "source");
  check_spm(src_spm, src_path, c.src_vocab, "src");
  std::string tgt_spm;
  if (!c.shared_vocab) {
    tgt_spm = read_bytes(tgt_path, "target");
    check_spm(tgt_spm, tgt_path, c.tgt_vocab, "tgt");
  }

  // Metadata: from the config, then --meta (which wins).
  OutMetadata meta;
  meta.name = c.name;
  meta.src_lang = c.src_lang;
  meta.tgt_lang = c.tgt_lang;
  meta.corpus = c.corpus;
  meta.metrics = c.metrics;
  meta.extra = c.extra;
  meta.converter_version = std::string("softalign-convert ") + SOFTALIGN_VERSION;
  for (const std::string& kv : o.meta) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--meta needs key=value, got \"" + kv + "\"");
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "name") meta.name = v;
    else if (k == "src_lang") meta.src_lang = v;
    else if (k == "tgt_lang") meta.tgt_lang = v;
    else if (k == "corpus") meta.corpus = v;
    else if (k.rfind("metrics.", 0) == 0 && k.size() > 8) meta.metrics[k.substr(8)] = v;
    else meta.extra[k] = v;
  }

  if (o.report)
    report_out << std::left << std::setw(32) << "tensor" << " dtype  max_abs_error   rms_error\n";

  std::vector<OutTensor> out;
  for (const auto& [name, src] : st.tensors) {  // std::map: sorted by name
    const std::vector<float> x = src.to_f32();
    check_finite(name, x);
    OutTensor t;
    t.name = name;
    for (uint64_t d : src.shape) t.shape.push_back(static_cast<uint32_t>(d));
    const bool matrix = src.shape.size() == 2;
    const bool keep = !matrix || matches_any(name, o.keep_fp32);
    QuantError err;
    if (o.precision == Precision::Int8 && !keep) {
      const size_t rows = src.shape[0], cols = src.shape[1];
      const Int8Rows q = quantize_int8_rows(x, rows, cols);
      t.dtype = fb::DType::I8;
      t.scales = q.scale;
      t.data.assign(reinterpret_cast<const uint8_t*>(q.q.data()), reinterpret_cast<const uint8_t*>(q.q.data()) + q.q.size());
      err = int8_error(x, q, cols);
    } else if (o.precision == Precision::F16 && !keep) {
      std::vector<uint16_t> h(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        h[i] = float_to_half(x[i]);
        if ((h[i] & 0x7c00) == 0x7c00)
          throw Error("tensor \"" + name + "\" has a value beyond the fp16 range at element " + std::to_string(i) +
                      "; keep it with --keep-fp32 \"" + name + "\"");
      }
      t.dtype = fb::DType::F16;
      t.data.reserve(2 * h.size());
      for (uint16_t v : h) append_le(t.data, v);
      err = f16_error(x, h);
    } else if (src.dtype == SourceDType::F32) {
      t.dtype = fb::DType::F32;
      t.data.assign(src.data, src.data + src.size_bytes);  // bit for bit
    } else {
      t.dtype = fb::DType::F32;
      t.data.reserve(4 * x.size());
      for (float v : x) append_le(t.data, float_to_bits(v));
    }
    if (o.report)
      report_out << std::left << std::setw(32) << name << " " << std::setw(6) << format::dtype_name(t.dtype)
                 << std::scientific << std::setprecision(4) << std::setw(14) << err.max_abs << "  " << err.rms
                 << std::defaultfloat << "\n";
    out.push_back(std::move(t));
  }

  ShortlistData shortlist;
  const bool with_shortlist = !o.shortlist_src.empty() || o.shortlist_data;
  if (o.shortlist_data)
    shortlist = *o.shortlist_data;
  else if (with_shortlist)
    shortlist = build_shortlist_from_corpus(o.shortlist_src, o.shortlist_tgt, src_spm, tgt_spm, c, o.shortlist);

  ConfidenceData confidence;
  if (!o.confidence.empty()) confidence = read_confidence_fit(o.confidence);

  const flatbuffers::DetachedBuffer file =
      build_model_file(c, std::move(out), src_spm, tgt_spm, meta, with_shortlist ? &shortlist : nullptr,
                       o.confidence.empty() ? nullptr : &confidence);
  // Check our own output with the reader's rules before it can be shipped.
  std::string why;
  if (!format::verify_model(file.data(), file.size(), &why)) throw Error("internal error: output fails verification: " + why);
  check_runtime_accepts(file.data(), file.size());
  write_file_atomically(o.output, file.data(), file.size());
}

}  // namespace softalign::convert
