// `softalign translate`: sentences from the arguments, or one per line from
// stdin (read and translated --batch lines at a time by one translator's
// translate_batch, which spreads them over its threads); one output line per
// input line (n-best: N lines), always in input order.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "softalign/softalign.hpp"

namespace softalign::cli {
namespace {

// The library's defaults (TranslatorOptions', the option table's), written once there.
const TranslatorOptions kDefaults;

struct TranslateArgs {
  std::vector<std::string> models;  // several: an ensemble
  std::string prefix;
  std::vector<std::string> sentences;
  // --batch is the CLI's own (lines read and handed to one translate_batch
  // call); --threads, --device and the help's defaults are the library's.
  int beam = 0, nbest = 0, batch = TranslatorOptions::kListBatch, max_src_len = 0, max_arena_mib = 0;
  int threads = kDefaults.threads, workers = kDefaults.threads;
  float alpha = 0, beta = 0, max_len_a = 0, max_len_b = 0;
  bool alignment = false, word_alignment = false, json = false, split_long = false, no_split_long = false;
  bool replace_utf8 = false;
  bool stats = false;
  bool verbose = false;
  std::string device = backend_name(kDefaults.backend);
  bool no_shortlist = false;
  std::size_t max_line_bytes = 0;  // 0: the library's default
  int block_repeats = 0;
  std::string beam_rules;  // --beam-rules (empty: the model's)
  bool copy_model = false;
  bool copy_through = false, no_copy_through = false;  // --copy-through: the default, said explicitly
  bool no_repair_placeholders = false, check_placeholders = false;
  std::string glossary;  // a TSV file
  float min_confidence = -1.0f;  // --min-confidence (negative: off)
  double timeout = 0;            // --timeout, seconds (0: none)
  std::string low_confidence = "mark";
  std::string kernels;
  // Options given on the command line (the others keep the model's defaults).
  CLI::Option *beam_opt = nullptr, *nbest_opt = nullptr, *alpha_opt = nullptr, *beta_opt = nullptr,
              *max_len_a_opt = nullptr, *max_len_b_opt = nullptr, *block_repeats_opt = nullptr;
};

// "must be >= min" for a number option (CLI11's own range messages print huge bounds).
CLI::Validator at_least(double min) {
  const std::string bound = std::to_string(static_cast<long long>(min));
  return CLI::Validator(
      [min, bound](std::string& value) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(value, v)) return "'" + value + "' is not a number";
        if (!(v >= min)) return "must be >= " + bound + ", got " + value;
        return "";
      },
      "", "at least " + bound);
}

// The one validator of every float option (--alpha, --beta, --max-len-a,
// --max-len-b, --min-confidence): a number that is finite as a float, in [min,
// max]. CLI11 reads "nan", "inf" and "1e999" as numbers, and a NaN passes any
// range check written as `v < min || v > max`.
CLI::Validator finite_in(double min, double max = std::numeric_limits<double>::infinity()) {
  const auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  const std::string range = std::isinf(max) ? ">= " + num(min) : "in [" + num(min) + ", " + num(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& value) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(value, v)) return "'" + value + "' is not a number";
        if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
          return "must be a finite number " + range + ", got " + value;
        if (!(v >= min && v <= max)) return "must be " + range + ", got " + value;
        return "";
      },
      "", "a finite number " + range);
}

// "must be in [min, max]" for an integer option.
CLI::Validator in_range(int min, int max) {
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& value) -> std::string {
        long long v = 0;
        if (!CLI::detail::lexical_cast(value, v)) return "'" + value + "' is not an integer";
        if (v < min || v > max) return "must be in " + range + ", got " + value;
        return "";
      },
      "", "in " + range);
}

// One line on stderr: text from the input or the file is escaped.
void error(const std::string& message) {
  std::cerr << "softalign: error: " << escape_controls(message) << "\n";
}

// Exit statuses (the footer of `softalign translate --help` and the README).
constexpr int kExitFailed = 1;        // the model, or an input line, failed
constexpr int kExitBadArguments = 2;  // arguments the parser, the model or the memory cap refuse
constexpr int kExitTimeout = 3;       // a line was not translated within --timeout

// What --stats reports.
struct Stats {
  std::size_t lines = 0, failed = 0, source_pieces = 0, target_pieces = 0;
  std::size_t placeholders_repaired = 0;  // lines whose best hypothesis had them repaired
  std::size_t low_confidence = 0;         // lines whose best hypothesis is below --min-confidence
  std::size_t timed_out = 0;              // lines not translated within --timeout
};

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Reads the next line of `in` (without its '\n') into `line`, keeping its
// first `keep` bytes and skipping the rest; false at the end of the input.
bool read_line(std::istream& in, std::size_t keep, std::string* line) {
  line->clear();
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (int c; (c = buf->sbumpc()) != std::char_traits<char>::eof();) {
    any = true;
    if (c == '\n') return true;
    if (line->size() < keep) line->push_back(static_cast<char>(c));
  }
  return any;
}

struct LineResult {
  Status status;
  TranslationResult result;
};

// Translates one batch with the translator (translate_batch: sorted by
// length, decoded together where that pays, over its threads) and writes the
// results in input order, a status per line, so a bad line costs only itself;
// returns false if a line failed.
bool run_batch(Translator& tr, const SearchOptions& search, const OutputFormat& format, bool check_placeholders,
               std::size_t first_index, const std::vector<std::string>& lines, Stats& stats) {
  std::vector<LineResult> out(lines.size());
  {
    std::vector<TranslationResult> results;
    std::vector<Status> status;
    const Status call = tr.translate_batch(lines, search, &results, &status);
    for (std::size_t i = 0; i < lines.size(); ++i)
      out[i] = call.ok() ? LineResult{status[i], std::move(results[i])} : LineResult{call, {}};
  }
  bool all_ok = true;
  stats.lines += lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (out[i].status.ok()) {
      const TranslationResult& r = out[i].result;
      stats.source_pieces += r.source_pieces.size();
      if (!r.hypotheses.empty()) stats.target_pieces += r.hypotheses.front().ids.size();
      if (!r.hypotheses.empty() && r.hypotheses.front().confidence < format.min_confidence) ++stats.low_confidence;
      if (!r.hypotheses.empty() && r.hypotheses.front().placeholders_repaired) {
        ++stats.placeholders_repaired;
        if (check_placeholders)
          std::cerr << "softalign: line " << first_index + i + 1 << ": "
                    << (tr.options().repair_placeholders ? "placeholders repaired"
                                                                       : "placeholders not kept")
                    << "\n";
      }
      write_result(std::cout, format, first_index + i, r);
    } else {
      all_ok = false;
      ++stats.failed;
      const bool late = out[i].status.code() == StatusCode::kDeadlineExceeded;
      if (late) ++stats.timed_out;
      // Line numbers are 1-based, as editors count them.
      error("line " + std::to_string(first_index + i + 1) + ": " + out[i].status.to_string() +
            (late ? " (--timeout)" : ""));
      write_failure(std::cout, format, first_index + i, out[i].status.to_string());
    }
  }
  std::cout.flush();
  return all_ok;
}

void print_stats(const Stats& s, double load_ms, double prepare_ms, double translate_ms, std::size_t arena) {
  const double sec = translate_ms / 1000.0;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "softalign: stats: %zu lines (%zu failed), %zu source and %zu target pieces in %.3f s: "
                "%.1f lines/s, %.1f target pieces/s; load %.1f ms, prepare %.1f ms, arena %zu bytes per translator\n",
                s.lines, s.failed, s.source_pieces, s.target_pieces, sec, sec > 0 ? s.lines / sec : 0.0,
                sec > 0 ? s.target_pieces / sec : 0.0, load_ms, prepare_ms, arena);
  std::cerr << buf;
}

int run(const TranslateArgs& a) {
  const Clock::time_point t_load = Clock::now();
  std::vector<std::shared_ptr<const Model>> models(a.models.size());
  Status st;
  for (std::size_t i = 0; i < models.size() && st.ok(); ++i)
    st = Model::load(a.models[i], a.copy_model ? LoadMode::kCopy : LoadMode::kMap, &models[i]);
  const double load_ms = ms_since(t_load);
  if (!st.ok()) {
    error(st.to_string());
    return kExitFailed;
  }
  TranslatorOptions options;
  if (a.max_arena_mib > 0) options.max_arena_bytes = static_cast<std::size_t>(a.max_arena_mib) << 20;
  options.max_source_tokens = a.max_src_len;
  if (a.beam_opt->count()) options.search.beam_size = a.beam;
  if (a.nbest_opt->count()) options.search.nbest = a.nbest;
  if (a.alpha_opt->count()) options.search.alpha = a.alpha;
  if (a.beta_opt->count()) options.search.beta = a.beta;
  if (a.max_len_a_opt->count()) options.search.max_len_a = a.max_len_a;
  if (a.max_len_b_opt->count()) options.search.max_len_b = a.max_len_b;
  if (a.block_repeats_opt->count()) options.search.block_repeats = a.block_repeats;
  if (!a.beam_rules.empty()) {
    BeamRules rules{};
    beam_rules_from_name(a.beam_rules, &rules);  // the CLI11 check below admits only its names
    options.search.beam_rules = rules;
  }
  const bool want_alignment = a.alignment || a.word_alignment || a.json;
  options.search.return_alignment = want_alignment;
  options.search.return_attention = want_alignment;
  // One concurrency setting, the library's: translate_batch spreads a
  // batch's sentences over that many translators, one thread each, and a
  // sentence alone uses the threads inside it. --workers is its older name.
  const int threads = std::max(a.threads, a.workers);
  options.threads = threads;
  options.long_input = a.no_split_long ? LongInputPolicy::kError : LongInputPolicy::kSplit;
  options.invalid_utf8 = a.replace_utf8 ? InvalidUtf8Policy::kReplace : InvalidUtf8Policy::kError;
  options.kernels = a.kernels;
  options.use_shortlist = !a.no_shortlist;
  backend_from_name(a.device, &options.backend);  // the parser checked the name
  // --batch is the CLI's: the lines read and handed to translate_batch at a
  // time. The library's policy (TranslatorPool) sorts them, cuts the runs and
  // deals them over the threads' replicas so that all of them work: a
  // replica decodes at most its share of a call, so its arena is sized for
  // that share (with 256 threads, 256 arenas of 16 would not fit the default
  // max_arena_bytes). In size_t: --batch may be INT_MAX.
  options.max_batch = TranslatorOptions::list_max_batch(static_cast<std::size_t>(a.batch), threads);
  options.copy_through = !a.no_copy_through;
  options.repair_placeholders = !a.no_repair_placeholders;
  if (a.max_line_bytes > 0) options.max_line_bytes = a.max_line_bytes;
  if (!a.glossary.empty()) {
    std::ifstream in(a.glossary, std::ios::binary);
    std::ostringstream tsv;
    tsv << in.rdbuf();
    if (!in) {
      error("cannot read the glossary " + a.glossary);
      return kExitBadArguments;
    }
    st = parse_glossary_tsv(tsv.str(), &options.glossary);
    if (!st.ok()) {
      error(a.glossary + ": " + st.message());
      return kExitBadArguments;
    }
  }
  const Clock::time_point t_prepare = Clock::now();
  std::unique_ptr<Translator> translator;
  st = Translator::prepare(models, options, &translator);
  if (!st.ok()) {
    error(st.to_string());
    // Options out of the model's range (--beam 2000, --kernels bogus),
    // beyond the memory cap, or models that cannot form an ensemble are
    // bad arguments; anything else is a failure.
    const bool arguments = st.code() == StatusCode::kInvalidArgument ||
                           st.code() == StatusCode::kResourceExhausted || st.code() == StatusCode::kUnsupported;
    return arguments ? kExitBadArguments : kExitFailed;
  }
  Translator& tr = *translator;

  const double prepare_ms = ms_since(t_prepare);
  if (a.verbose) {
    const BackendInfo& b = tr.backend_info();
    std::cerr << "softalign: backend " << b.name << (b.device.empty() ? "" : " on " + b.device) << " ("
              << b.reason << "), kernels " << tr.kernels_name() << "\n";
  }
  // Every call: the prepared search, the target prefix and the deadline
  // (each translate_batch call: the --batch lines read together).
  SearchOptions search = tr.options().search;
  search.target_prefix = a.prefix;
  if (a.timeout > 0) search.timeout_ms = static_cast<int>(std::max(1.0, std::round(a.timeout * 1000.0)));

  OutputFormat format;
  format.nbest = a.nbest_opt->count() > 0 ? a.nbest : 0;
  format.alignment = a.alignment || a.word_alignment;
  format.word_alignment = a.word_alignment;
  format.json = a.json;
  format.min_confidence = a.min_confidence;
  format.drop_low_confidence = a.low_confidence == "drop";

  bool ok = true;
  Stats stats;
  const Clock::time_point t_translate = Clock::now();
  std::size_t index = 0;
  std::vector<std::string> lines;
  auto flush_batch = [&] {
    ok = run_batch(tr, search, format, a.check_placeholders, index, lines, stats) && ok;
    index += lines.size();
    lines.clear();
  };
  if (!a.sentences.empty()) {
    for (const std::string& s : a.sentences) {
      lines.push_back(s);
      if (lines.size() == static_cast<std::size_t>(a.batch)) flush_batch();
    }
  } else {
    // A line is kept up to one byte over max_line_bytes (the translator then
    // refuses it, as for any caller), so memory stays bounded whatever the input.
    const std::size_t keep = tr.options().max_line_bytes + 2;  // + a CR
    std::string line;
    while (read_line(std::cin, keep, &line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
      lines.push_back(std::move(line));
      if (lines.size() == static_cast<std::size_t>(a.batch)) flush_batch();
    }
    if (std::cin.bad()) {
      error("reading stdin failed");
      ok = false;
    }
  }
  if (!lines.empty()) flush_batch();
  // Translation time includes reading stdin: for a file or pipe it is negligible.
  if (a.stats) print_stats(stats, load_ms, prepare_ms, ms_since(t_translate), tr.arena_bytes());
  if (a.check_placeholders)
    std::cerr << "softalign: placeholders " << (options.repair_placeholders ? "repaired" : "not kept") << " in "
              << stats.placeholders_repaired << " of " << stats.lines << " lines\n";
  if (format.min_confidence >= 0.0f)
    std::cerr << "softalign: " << stats.low_confidence << " of " << stats.lines << " lines below confidence "
              << format.min_confidence << " (" << (format.drop_low_confidence ? "dropped" : "marked") << ")\n";
  if (stats.timed_out > 0)
    std::cerr << "softalign: " << stats.timed_out << " of " << stats.lines << " lines ran past --timeout "
              << a.timeout << " s\n";
  return stats.timed_out > 0 ? kExitTimeout : ok ? 0 : kExitFailed;
}

}  // namespace

std::function<int()> add_translate_command(CLI::App& app) {
  auto a = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand("translate", "Translate sentences (arguments, or one per line on stdin)");
  cmd->footer(
      "Output: one line per input line, in order; a line that fails gives an empty line and\n"
      "a message on stderr. Exit status: 0 when every line was translated, 1 when a line or\n"
      "the model failed, 2 for bad arguments (also values the model refuses, such as a beam\n"
      "above 1024 or an unknown --kernels, and options needing more than --max-arena-mb),\n"
      "3 when a line was not translated within --timeout (deadline_exceeded).\n"
      "  plain:          TEXT\n"
      "  --alignment:    TEXT ||| ALIGNMENT   (Pharaoh 'i-j': source i, target j, 0-based)\n"
      "  --nbest N:      I ||| TEXT ||| SCORE [||| ALIGNMENT]   exactly N lines per input, best\n"
      "                  first; I is the 0-based input line; missing hypotheses (an empty input\n"
      "                  has one, a failed line none) are written as I |||  ||| -inf\n"
      "  --json:         one JSON object per input line: index, source_pieces, hypotheses\n"
      "                  (text, pieces, ids, score, log_prob, attention, alignment, word_alignment)");
  cmd->add_option("-m,--model", a->models,
                  "Model file (.softalign); given more than once (-m A -m B), an ensemble of models that share "
                  "both vocabularies (the mean of their log-probabilities)")
      ->required()
      ->allow_extra_args(false);  // one file per -m: the sentences that follow are not models
  cmd->add_option("--prefix", a->prefix,
                  "Target prefix every translation starts with (its pieces forced, their log-probabilities "
                  "counted in the score); the n best continuations follow it");
  cmd->add_option("sentences", a->sentences, "Sentences to translate (default: read stdin)");
  a->beam_opt = cmd->add_option("--beam", a->beam, "Beam size (1 = greedy; default: the model's)")
                    ->check(at_least(1));
  a->alpha_opt = cmd->add_option("--alpha", a->alpha, "Length penalty exponent alpha (GNMT)")
                     ->check(finite_in(0));
  a->beta_opt = cmd->add_option("--beta", a->beta, "Coverage penalty weight beta")->check(finite_in(0));
  a->nbest_opt = cmd->add_option("--nbest", a->nbest, "Write the N best hypotheses (N <= beam)")
                     ->check(at_least(1));
  a->max_len_a_opt = cmd->add_option("--max-len-a", a->max_len_a, "Max target length = floor(a * S + b): a")
                         ->check(finite_in(0));
  a->max_len_b_opt = cmd->add_option("--max-len-b", a->max_len_b, "Max target length = floor(a * S + b): b")
                         ->check(finite_in(0));
  a->block_repeats_opt =
      cmd->add_option("--block-repeats", a->block_repeats,
                      "Refuse a word or words of up to N pieces repeated back to back (0: off; default: the model's)")
          ->check(at_least(0));
  cmd->add_option("--beam-rules", a->beam_rules,
                  "Whose beam search: softalign, opennmt or joeynmt (default: the model's; an imported model's "
                  "is its toolkit's)")
      ->check(CLI::IsMember({"softalign", "opennmt", "joeynmt"}));
  cmd->add_option("--max-src-len", a->max_src_len,
                  "Longest source translated whole, in pieces, EOS included (default: the model's maximum; "
                  "up to 1024 except for location-score models)")
      ->check(at_least(1));
  cmd->add_flag("--alignment", a->alignment, "Append the hard alignment over pieces (Pharaoh)");
  cmd->add_flag("--word-alignment", a->word_alignment,
                "Append the hard alignment over whitespace words (Pharaoh)");
  cmd->add_flag("--json", a->json, "Write JSON lines with the soft alignment matrix");
  cmd->add_option("--batch", a->batch,
                  "Lines read at a time, decoded together where that pays (all but beam search with int8 weights "
                  "on CPUs without AVX-512 VNNI, which goes line by line)")->capture_default_str()->check(at_least(1));
  cmd->add_option("--threads", a->threads,
                  "Threads: a batch's sentences spread over this many translators (one thread each); a line "
                  "alone uses them inside its translation")
      ->capture_default_str()
      ->check(at_least(1));
  cmd->add_option("--workers", a->workers, "The same as --threads (its older name); with both, the larger")
      ->capture_default_str()
      ->check(in_range(1, TranslatorOptions::kMaxThreads));
  auto* split_opt = cmd->add_flag("--split-long", a->split_long,
                                  "Split sources longer than --max-src-len (the default; kept for old scripts)");
  cmd->add_flag("--no-split-long", a->no_split_long,
                "Fail on sources longer than --max-src-len instead of splitting them (at sentence ends, "
                "then clause punctuation, then in halves) and joining the translations")
      ->excludes(split_opt);
  cmd->add_flag("--replace-invalid-utf8", a->replace_utf8,
                "Replace what is not text (an invalid UTF-8 byte, an encoded surrogate, a NUL byte) by U+FFFD, one "
                "each, instead of failing the line");
  cmd->add_option("--max-line-bytes", a->max_line_bytes,
                  "Longest line translated, in bytes (default " + std::to_string(kDefaults.max_line_bytes) +
                      "); a longer one fails (bounded memory)")
      ->check(at_least(1));
  cmd->add_flag("--copy-model", a->copy_model,
                "Read the model files into memory instead of mapping them (they may then change meanwhile)");
  cmd->add_flag("--stats", a->stats, "At the end, print lines/s, target pieces/s and load time on stderr");
  cmd->add_flag("--verbose", a->verbose, "Print the backend in use and why on stderr");
  cmd->add_option("--device", a->device,
                  "Where to compute: cpu, auto (a Vulkan GPU if there is one, else the CPU), or vulkan (any "
                  "Vulkan device, a CPU one such as lavapipe too; an error without one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "vulkan"}));
  cmd->add_option("--kernels", a->kernels, "Kernel set (default: the best for this CPU; 'ref': reference)");
  cmd->add_option("--max-arena-mb", a->max_arena_mib,
                  "Most working memory, MiB (default " + std::to_string(kDefaults.max_arena_bytes >> 20) +
                      "): the translator's arena times --threads")
      ->check(at_least(1));
  cmd->add_flag("--no-shortlist", a->no_shortlist,
                "Output layer over the whole vocabulary, even when the model has a vocabulary shortlist");
  auto* copy_opt = cmd->add_flag("--copy-through", a->copy_through,
                                 "Copy names and identifiers (URLs, e-mail addresses, paths, versions, dh_foo, "
                                 "wasy10, GtkWidget, `code`) and <unk> words unchanged from the source, placed "
                                 "by the attention (the default)");
  cmd->add_flag("--no-copy-through", a->no_copy_through, "Translate names and identifiers as the model does")
      ->excludes(copy_opt);
  cmd->add_flag("--no-repair-placeholders", a->no_repair_placeholders,
                "Leave placeholders (%s, %1$d, %(name)s, %1, {0}, <b>...</b>, &amp;) as the model gives them; by "
                "default each one of the source comes out exactly once, tags nested as in the source");
  cmd->add_option("--glossary", a->glossary,
                  "Terms that must come out as given: a TSV file of \"source<TAB>target\" lines ('#' starts a "
                  "comment); a source term matches whole words, its first letter's case ignored")
      ->type_name("FILE");
  auto* min_conf_opt =
      cmd->add_option("--min-confidence", a->min_confidence,
                      "Mark translations whose confidence (0 to 1; --json gives each one's) is below C: \"[?] \" "
                      "before the text, \"low_confidence\": true in --json; or drop them (--low-confidence drop); "
                      "their count goes to stderr at the end")
          ->type_name("C")
          ->check(finite_in(0.0, 1.0));
  cmd->add_option("--low-confidence", a->low_confidence,
                  "What --min-confidence does to a translation below it: mark, or drop (an empty line; left out "
                  "of --json's and --nbest's lists)")
      ->capture_default_str()
      ->check(CLI::IsMember({"mark", "drop"}))
      ->needs(min_conf_opt);
  cmd->add_option("--timeout", a->timeout,
                  "Each call's deadline, in seconds (0.1: 100 ms); a call is the --batch lines read together (--batch "
                  "1: a line). A line not done by then fails (deadline_exceeded), the others go on; exit status 3")
      ->type_name("SECONDS")->check(finite_in(0.001, 2147483.0));
  cmd->add_flag("--check-placeholders", a->check_placeholders,
                "Name on stderr each line whose placeholders the model did not keep (repaired, unless "
                "--no-repair-placeholders), and their count at the end");
  return [a] { return run(*a); };
}

}  // namespace softalign::cli
