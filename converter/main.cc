// softalign-convert: safetensors weights -> one .softalign model file.
//
//   softalign-convert [--int8|--fp16] [options] INPUT.safetensors -o OUTPUT.softalign
//                     [--shortlist-corpus SRC TGT [--shortlist-top K] [--shortlist-frequent F]]
//   softalign-convert --inspect FILE
//
// Every failure prints one line "softalign-convert: error: ..." on stderr and
// exits non-zero (1; 2 for a command-line usage error) without leaving an
// output file behind.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "convert.h"
#include "error.h"
#include "inspect.h"
#include "softalign/text.hpp"

// Messages quote names from the input file (tensor names, config keys):
// escape_controls keeps every error on one line.
int main(int argc, char** argv) {
  namespace sc = softalign::convert;
  CLI::App app{"Convert softalign safetensors weights (models/WEIGHTS_FORMAT.md) into one .softalign model file.",
               "softalign-convert"};
  app.footer("Usage: softalign-convert [--int8|--fp16] [options] INPUT.safetensors -o OUTPUT.softalign\n"
             "       softalign-convert --inspect FILE\n"
             "Errors: one line on stderr, exit status 1, no output file written.");

  sc::Options o;
  std::string inspect;
  bool int8 = false, fp16 = false;
  auto* in_opt = app.add_option("input", o.input, "weights (.safetensors) with the config in its metadata");
  auto* out_opt = app.add_option("-o,--output", o.output, "model file to write (.softalign)");
  auto* int8_opt = app.add_flag("--int8", int8, "int8 weights: symmetric, one scale per row, for every 2-D tensor");
  auto* fp16_opt = app.add_flag("--fp16", fp16, "float16 weights for every 2-D tensor");
  int8_opt->excludes(fp16_opt);
  auto* keep_opt = app.add_option("--keep-fp32", o.keep_fp32,
                                  "glob pattern (fnmatch: * ? [..]) of tensor names kept float32; repeatable")
                       ->take_all()
                       ->allow_extra_args(false);
  auto* src_opt = app.add_option("--src-spm", o.src_spm,
                                 "source SentencePiece model (default: src.spm.model, or spm.model when "
                                 "shared_vocab, beside the input)");
  auto* tgt_opt = app.add_option("--tgt-spm", o.tgt_spm, "target SentencePiece model (default: tgt.spm.model beside the input)");
  auto* meta_opt = app.add_option("--meta", o.meta, "metadata key=value (name, src_lang, tgt_lang, corpus, "
                                                    "metrics.NAME, or any other key); repeatable")
                       ->allow_extra_args(false);
  auto* report_opt = app.add_flag("--report", o.report, "print per-tensor max and RMS quantisation error");
  std::vector<std::string> corpus;
  auto* sl_opt = app.add_option("--shortlist-corpus", corpus,
                                "embed a vocabulary shortlist built from this parallel training corpus "
                                "(two files, one sentence per line)")
                     ->expected(2)
                     ->type_name("SOURCE TARGET");
  auto* sl_top = app.add_option("--shortlist-top", o.shortlist.top_k,
                                "shortlist: target pieces kept per source piece (K)")
                    ->capture_default_str();
  auto* sl_freq = app.add_option("--shortlist-frequent", o.shortlist.frequent,
                                 "shortlist: most frequent target pieces always included (F)")
                     ->capture_default_str();
  auto* sl_method = app.add_option("--shortlist-method", o.shortlist.method,
                                   "shortlist: ibm1 (IBM model 1 t(t|s)) or cooc (sentence co-occurrence p(t|s))")
                       ->capture_default_str();
  auto* sl_iter = app.add_option("--shortlist-iterations", o.shortlist.ibm1_iterations,
                                 "shortlist: EM iterations of IBM model 1")
                     ->capture_default_str();
  for (auto* opt : {sl_top, sl_freq, sl_method, sl_iter}) opt->needs(sl_opt);
  auto* conf_opt = app.add_option("--confidence", o.confidence,
                                  "embed a confidence calibration (the JSON models/fit_confidence.py writes)")
                      ->type_name("FIT.json");
  auto* inspect_opt = app.add_option("--inspect", inspect, "print config, metadata and tensor table of a model file");
  for (auto* opt : {in_opt, out_opt, int8_opt, fp16_opt, keep_opt, src_opt, tgt_opt, meta_opt, report_opt, sl_opt, conf_opt})
    inspect_opt->excludes(opt);

  // Argument errors: one line too, exit status 2 (usage error).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "softalign-convert: error: " + softalign::escape_controls(e.what()) + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (!inspect.empty()) {
      sc::inspect_file(inspect, std::cout);
      return 0;
    }
    if (o.input.empty()) throw sc::Error("no input file (usage: softalign-convert [--int8|--fp16] INPUT.safetensors -o OUTPUT.softalign)");
    if (o.output.empty()) throw sc::Error("no output file: give -o OUTPUT.softalign");
    o.precision = int8 ? sc::Precision::Int8 : fp16 ? sc::Precision::F16 : sc::Precision::F32;
    if (corpus.size() == 2) {
      o.shortlist_src = corpus[0];
      o.shortlist_tgt = corpus[1];
    }
    sc::convert(o, std::cout);
  } catch (const std::bad_alloc&) {
    std::cerr << "softalign-convert: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {  // sc::Error, and whatever a dependency throws
    std::cerr << "softalign-convert: error: " << softalign::escape_controls(e.what()) << "\n";
    return 1;
  } catch (...) {
    std::cerr << "softalign-convert: error: unexpected exception\n";
    return 1;
  }
  return 0;
}
