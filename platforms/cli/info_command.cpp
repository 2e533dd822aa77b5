// `softalign info MODEL`: the model's config, decoding defaults, sizes and metadata.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "softalign/softalign.hpp"

namespace softalign::cli {
namespace {

std::string mib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

int run(const std::string& path) {
  std::shared_ptr<const Model> model;
  const Status st = Model::load(path, &model);
  if (!st.ok()) {
    std::cerr << "softalign: error: " << escape_controls(st.to_string()) << "\n";
    return 1;
  }
  const ModelConfig& c = model->config();
  std::ostream& o = std::cout;
  // Keys as in the weights format (models/WEIGHTS_FORMAT.md).
  o << "file: " << escape_controls(path) << "\n"
    << "file_bytes: " << model->file_bytes() << " (" << mib(model->file_bytes()) << ")\n"
    << "schema_version: " << model->schema_version() << "\n"
    << "weights: " << weight_type_name(model->weight_type()) << "\n"
    << "name: " << escape_controls(c.name) << "\n"
    << "src_lang: " << escape_controls(c.src_lang) << "\n"
    << "tgt_lang: " << escape_controls(c.tgt_lang) << "\n"
    << "variant: " << variant_name(c.variant) << "\n"
    << "score: " << score_name(c.score) << "\n"
    << "scope: " << scope_name(c.scope) << "\n"
    << "window_d: " << c.window_d << "\n"
    << "input_feeding: " << (c.input_feeding ? "true" : "false") << "\n"
    << "enc_layers: " << c.enc_layers << "\n"
    << "dec_layers: " << c.dec_layers << "\n"
    << "emb_size: " << c.emb_size << "\n"
    << "enc_hidden: " << c.enc_hidden << "\n"
    << "dec_hidden: " << c.dec_hidden << "\n"
    << "att_hidden: " << c.att_hidden << "\n"
    << "maxout_size: " << c.maxout_size << "\n"
    << "cell: " << cell_name(c.cell) << "\n"
    << "enc_directions: " << c.enc_directions << "\n"
    << "reverse_source: " << (c.reverse_source ? "true" : "false") << "\n"
    << "source_eos: " << (c.source_eos ? "true" : "false") << "\n"
    << "decoder_init: " << decoder_init_name(c.decoder_init) << "\n"
    << "query_bias: " << (c.query_bias ? "true" : "false") << "\n"
    << "combine_bias: " << (c.combine_bias ? "true" : "false") << "\n"
    << "combine_tanh: " << (c.combine_tanh ? "true" : "false") << "\n"
    << "pretokenized: " << (c.pretokenized ? "true (text is tokens separated by spaces)" : "false") << "\n"
    << "src_vocab: " << c.src_vocab << "\n"
    << "tgt_vocab: " << c.tgt_vocab << "\n"
    << "shared_vocab: " << (c.shared_vocab ? "true" : "false") << "\n"
    << "pad_id: " << c.pad_id << "\n"
    << "unk_id: " << c.unk_id << "\n"
    << "bos_id: " << c.bos_id << "\n"
    << "eos_id: " << c.eos_id << "\n"
    << "max_src_len: " << c.max_src_len << "\n"
    << "shortlist: " << (model->has_shortlist() ? "yes" : "no") << "\n"
    << "decoding: beam=" << c.decoding.beam << " nbest=" << c.decoding.nbest << " alpha=" << c.decoding.alpha
    << " beta=" << c.decoding.beta << " max_len_a=" << c.decoding.max_len_a
    << " max_len_b=" << c.decoding.max_len_b << " block_repeats=" << c.decoding.block_repeats
    << " beam_rules=" << beam_rules_name(c.decoding.beam_rules) << "\n";
  // The working memory a translator with the model's defaults reserves.
  std::unique_ptr<Translator> tr;
  if (Translator::prepare(model, TranslatorOptions(), &tr).ok())
    o << "arena_bytes: " << tr->arena_bytes() << " (" << mib(tr->arena_bytes()) << ", default options)\n";
  o << "metadata:\n";
  // Metadata is text from the file: control characters are escaped, so each
  // entry is one line whatever the file holds.
  for (const auto& [key, value] : model->metadata())
    o << "  " << escape_controls(key) << ": " << escape_controls(value) << "\n";
  return 0;
}

}  // namespace

std::function<int()> add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("info", "Print a model's config, metadata and sizes");
  cmd->add_option("model", *path, "Model file (.softalign)")->required();
  return [path] { return run(*path); };
}

}  // namespace softalign::cli
