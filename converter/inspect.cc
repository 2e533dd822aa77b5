#include "inspect.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iomanip>
#include <vector>

#include "error.h"
#include "softalign_format.h"
#include "softalign_names.h"

namespace softalign::convert {

namespace {

// Shortest text that reads back as the same float.
std::string float_text(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

const char* yes_no(bool b) { return b ? "true" : "false"; }

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// "  key: value", or "  key:" when the value is empty.
std::string item(const std::string& key, const std::string& value) {
  return "  " + key + ":" + (value.empty() ? "" : " " + value) + "\n";
}

}  // namespace

void inspect_file(const std::string& path, std::ostream& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error("cannot read " + path);

  std::string err;
  const fb::Model* m = format::verify_model(bytes.data(), bytes.size(), &err);
  if (!m) throw Error(path + ": " + err);
  const fb::Config& c = *m->config();
  const fb::Decoding& d = *c.decoding();

  out << "file: " << path << "\n";
  out << "size: " << bytes.size() << " bytes\n";
  out << "schema_version: " << m->schema_version() << "\n";
  out << "config:\n";
  out << "  variant: " << names::name(c.variant()) << "\n";
  out << "  score: " << names::name(c.score()) << "\n";
  out << "  scope: " << names::name(c.scope()) << "\n";
  out << "  window_d: " << c.window_d() << "\n";
  out << "  input_feeding: " << yes_no(c.input_feeding()) << "\n";
  out << "  enc_layers: " << c.enc_layers() << "\n";
  out << "  dec_layers: " << c.dec_layers() << "\n";
  out << "  emb_size: " << c.emb_size() << "\n";
  out << "  enc_hidden: " << c.enc_hidden() << "\n";
  out << "  dec_hidden: " << c.dec_hidden() << "\n";
  out << "  att_hidden: " << c.att_hidden() << "\n";
  out << "  maxout_size: " << c.maxout_size() << "\n";
  out << "  src_vocab: " << c.src_vocab() << "\n";
  out << "  tgt_vocab: " << c.tgt_vocab() << "\n";
  out << "  shared_vocab: " << yes_no(c.shared_vocab()) << "\n";
  out << "  pad_id: " << c.pad_id() << "\n";
  out << "  unk_id: " << c.unk_id() << "\n";
  out << "  bos_id: " << c.bos_id() << "\n";
  out << "  eos_id: " << c.eos_id() << "\n";
  out << "  max_src_len: " << c.max_src_len() << "\n";
  out << "  cell: " << names::name(c.cell()) << "\n";
  out << "  enc_directions: " << c.enc_directions() << "\n";
  out << "  reverse_source: " << yes_no(c.reverse_source()) << "\n";
  out << "  source_eos: " << yes_no(c.source_eos()) << "\n";
  softalign::DecoderInit init{};
  format::file_decoder_init(*m, &init);
  out << "  decoder_init: " << names::name(init) << "\n";
  out << "  query_bias: " << yes_no(c.query_bias()) << "\n";
  out << "  combine_bias: " << yes_no(c.combine_bias()) << "\n";
  out << "  combine_tanh: " << yes_no(c.combine_tanh()) << "\n";
  out << "  pretokenized: " << yes_no(c.pretokenized()) << "\n";
  out << "  decoding.beam: " << d.beam() << "\n";
  out << "  decoding.alpha: " << float_text(d.alpha()) << "\n";
  out << "  decoding.beta: " << float_text(d.beta()) << "\n";
  out << "  decoding.max_len_a: " << float_text(d.max_len_a()) << "\n";
  out << "  decoding.max_len_b: " << float_text(d.max_len_b()) << "\n";
  out << "  decoding.beam_rules: " << names::name(d.beam_rules()) << "\n";
  out << "  decoding.block_repeats: " << d.block_repeats() << "\n";
  out << "  decoding.nbest: " << d.nbest() << "\n";

  out << "metadata:\n";
  if (const fb::Metadata* md = m->metadata()) {
    out << item("name", str(md->name())) << item("src_lang", str(md->src_lang()))
        << item("tgt_lang", str(md->tgt_lang())) << item("corpus", str(md->corpus()))
        << item("converter_version", str(md->converter_version()));
    if (md->metrics())
      for (const fb::KeyValue* kv : *md->metrics()) out << item("metrics." + kv->key()->str(), str(kv->value()));
    if (md->extra())
      for (const fb::KeyValue* kv : *md->extra()) out << item("extra." + kv->key()->str(), str(kv->value()));
  }

  out << "sentencepiece:\n";
  out << "  src: " << m->src_spm()->size() << " bytes\n";
  if (c.shared_vocab())
    out << "  tgt: shared with src\n";
  else
    out << "  tgt: " << m->tgt_spm()->size() << " bytes\n";

  if (const fb::Shortlist* sl = m->shortlist()) {
    const uint64_t bytes = 4ull * (sl->offsets()->size() + sl->ids()->size() + sl->frequent()->size());
    uint32_t longest = 0;
    for (uint32_t s = 0; s + 1 < sl->offsets()->size(); ++s)
      longest = std::max(longest, sl->offsets()->Get(s + 1) - sl->offsets()->Get(s));
    out << "shortlist:\n";
    out << "  method: " << str(sl->method()) << "\n";
    out << "  top_k: " << sl->top_k() << "\n";
    out << "  frequent_count: " << sl->frequent_count() << "\n";
    out << "  frequent: " << sl->frequent()->size() << " ids\n";
    out << "  source lists: " << sl->ids()->size() << " ids (longest " << longest << ")\n";
    out << "  bytes: " << bytes << "\n";
  } else {
    out << "shortlist: none\n";
  }

  if (const fb::Confidence* conf = m->confidence()) {
    out << "confidence:\n";
    out << item("fitted_on", str(conf->fitted_on()));
    out << "  bias: " << conf->bias() << "\n";
    for (flatbuffers::uoffset_t i = 0; i < conf->features()->size(); ++i)
      out << "  weight " << conf->features()->Get(i)->str() << ": " << conf->weights()->Get(i) << "\n";
  } else {
    out << "confidence: none\n";
  }

  size_t width = 4;
  for (const fb::Tensor* t : *m->tensors()) width = std::max<size_t>(width, t->name()->size());
  uint64_t total = 0;
  out << "tensors: " << m->tensors()->size() << "\n";
  out << "  " << std::left << std::setw(int(width)) << "name" << "  " << std::setw(14) << "shape" << "  "
      << std::setw(5) << "dtype" << "  bytes\n";
  for (const fb::Tensor* t : *m->tensors()) {
    std::string shape = "[";
    for (uint32_t i = 0; i < t->shape()->size(); ++i) shape += (i ? ", " : "") + std::to_string(t->shape()->Get(i));
    shape += "]";
    // bytes: the data plus, for i8, its scales.
    const uint64_t nbytes = t->data()->size() + (t->scales() ? 4ull * t->scales()->size() : 0);
    total += nbytes;
    out << "  " << std::left << std::setw(int(width)) << t->name()->str() << "  " << std::setw(14) << shape
        << "  " << std::setw(5) << format::dtype_name(t->dtype()) << "  " << nbytes << "\n";
  }
  out << "tensor bytes: " << total << "\n";
}

}  // namespace softalign::convert
