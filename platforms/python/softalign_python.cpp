// The `softalign` Python module (pybind11): load a model, prepare a
// translator, translate text. The GIL is released while a translator works, so
// Python threads with their own translators translate in parallel; a
// translator shared by threads serialises its calls (a lock in the wrapper).
//
//   import softalign
//   model = softalign.Model.load("models/en-fr/en-fr.int8.softalign")
//   tr = softalign.Translator(model, beam=4, threads=1)
//   tr.translate("A simple text editor.")            # -> str
//   tr.translate(["One.", "Two."])                    # -> list[str] (a failed item: a softalign.Error)
//   r = tr.translate_nbest("One.", nbest=4, attention=True)  # -> Result
//   r.hypotheses[0].text, .score, .attention (rows x source pieces + EOS)
//   softalign.Translator([model_a, model_b])          # an ensemble
//   tr.translate_nbest("A simple", prefix="Un")       # a forced target prefix
//   tr.translate_batch(["One.", "Two."], beam_size=4, num_hypotheses=2, return_scores=True)
//     # -> list[TranslationResult] (CTranslate2's names): .hypotheses (list[str]), .scores
//   for e in tr.translate_iter("One. Two.", beam=1): e.kind, e.text  # streaming: pieces, sentences
//   tr.cancel()                                       # from another thread: the call raises softalign.Cancelled
//   tr.translate(text, timeout_ms=100)                # softalign.DeadlineExceeded after 100 ms
//
// Ctrl-C: on the main thread a call runs on a helper thread while the main
// thread checks for signals every 50 ms (PyErr_CheckSignals); a
// KeyboardInterrupt cancels the call, waits for it to stop, and is raised.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "softalign/softalign.hpp"

namespace py = pybind11;

namespace {

struct StatusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// softalign.Cancelled and softalign.DeadlineExceeded: softalign.Errors of their own.
struct CancelledError : StatusError {
  using StatusError::StatusError;
};
struct DeadlineError : StatusError {
  using StatusError::StatusError;
};

void check(const softalign::Status& st) {
  if (st.ok()) return;
  if (st.code() == softalign::StatusCode::kCancelled) throw CancelledError(st.to_string());
  if (st.code() == softalign::StatusCode::kDeadlineExceeded) throw DeadlineError(st.to_string());
  throw StatusError(st.to_string());
}

// softalign.Error and its two subclasses (set when the module is made; the module keeps them alive).
py::handle g_error_type, g_cancelled_type, g_deadline_type;

// A softalign.Error for a failed item of a list: returned in its place, not raised.
py::object error_object(const softalign::Status& st) {
  if (st.code() == softalign::StatusCode::kCancelled) return g_cancelled_type(st.to_string());
  if (st.code() == softalign::StatusCode::kDeadlineExceeded) return g_deadline_type(st.to_string());
  return g_error_type(st.to_string());
}

struct PyModel {
  std::shared_ptr<const softalign::Model> model;
};

struct PyTranslator {
  std::vector<std::shared_ptr<const softalign::Model>> models;  // one, or an ensemble's members
  std::unique_ptr<softalign::Translator> translator;
  std::mutex mutex;  // a Translator is used by one thread at a time
};

// The main thread's id (signals are handled there only), set when the module is made.
unsigned long g_main_thread = 0;

// Runs `work` (a call of pt's translator) without the GIL, one call of pt at
// a time. On the main thread it runs on a helper thread while this one
// checks for signals every 50 ms: Ctrl-C's KeyboardInterrupt (or any signal
// handler's exception) cancels the call, waits for it to stop and is raised.
// Elsewhere it runs on this thread (no signal arrives there; cancel() works).
void run_interruptibly(PyTranslator& pt, const std::function<void()>& work) {
  if (PyThread_get_thread_ident() != g_main_thread) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(pt.mutex);
    work();
    return;
  }
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(pt.mutex);
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread helper([&] {
      work();
      std::lock_guard<std::mutex> g(mu);
      done = true;
      cv.notify_one();
    });
    std::unique_lock<std::mutex> wait(mu);
    while (!cv.wait_for(wait, std::chrono::milliseconds(50), [&] { return done; })) {
      wait.unlock();
      if (!interrupted) {
        py::gil_scoped_acquire gil;
        interrupted = PyErr_CheckSignals() != 0;
      }
      // Again at every tick: cancel() stops the calls running when it is
      // called, and the helper's may not have begun at the first.
      if (interrupted) pt.translator->cancel();
      wait.lock();
    }
    wait.unlock();
    helper.join();
  }
  if (interrupted) throw py::error_already_set();
}

softalign::SearchOptions search_options(std::optional<int> beam, std::optional<int> nbest,
                                        std::optional<float> alpha, std::optional<float> beta,
                                        std::optional<float> max_len_a, std::optional<float> max_len_b,
                                        std::optional<int> block_repeats = std::nullopt,
                                        std::optional<int> timeout_ms = std::nullopt,
                                        const std::optional<std::string>& beam_rules = std::nullopt) {
  softalign::SearchOptions s;
  s.timeout_ms = timeout_ms;
  if (beam_rules) {  // "softalign", "opennmt" or "joeynmt" (None: the model's)
    softalign::BeamRules rules{};
    if (softalign::beam_rules_from_name(*beam_rules, &rules))
      s.beam_rules = rules;
    else
      check(softalign::Status(softalign::StatusCode::kInvalidArgument,
                              "beam_rules must be \"softalign\", \"opennmt\" or \"joeynmt\", got \"" + *beam_rules + "\""));
  }
  s.beam_size = beam;
  s.nbest = nbest;
  s.alpha = alpha;
  s.beta = beta;
  s.max_len_a = max_len_a;
  s.max_len_b = max_len_b;
  s.block_repeats = block_repeats;
  return s;
}

py::dict config_dict(const softalign::ModelConfig& c) {
  py::dict d;
  d["variant"] = softalign::variant_name(c.variant);
  d["score"] = softalign::score_name(c.score);
  d["scope"] = softalign::scope_name(c.scope);
  d["window_d"] = c.window_d;
  d["input_feeding"] = c.input_feeding;
  d["enc_layers"] = c.enc_layers;
  d["dec_layers"] = c.dec_layers;
  d["emb_size"] = c.emb_size;
  d["enc_hidden"] = c.enc_hidden;
  d["dec_hidden"] = c.dec_hidden;
  d["att_hidden"] = c.att_hidden;
  d["maxout_size"] = c.maxout_size;
  d["src_vocab"] = c.src_vocab;
  d["tgt_vocab"] = c.tgt_vocab;
  d["shared_vocab"] = c.shared_vocab;
  d["max_src_len"] = c.max_src_len;
  d["src_lang"] = c.src_lang;
  d["tgt_lang"] = c.tgt_lang;
  d["name"] = c.name;
  d["cell"] = softalign::cell_name(c.cell);
  d["enc_directions"] = c.enc_directions;
  d["reverse_source"] = c.reverse_source;
  d["source_eos"] = c.source_eos;
  d["decoder_init"] = softalign::decoder_init_name(c.decoder_init);
  d["query_bias"] = c.query_bias;
  d["combine_bias"] = c.combine_bias;
  d["combine_tanh"] = c.combine_tanh;
  d["pretokenized"] = c.pretokenized;
  py::dict dec;
  dec["beam"] = c.decoding.beam;
  dec["alpha"] = c.decoding.alpha;
  dec["beta"] = c.decoding.beta;
  dec["max_len_a"] = c.decoding.max_len_a;
  dec["max_len_b"] = c.decoding.max_len_b;
  dec["nbest"] = c.decoding.nbest;
  dec["block_repeats"] = c.decoding.block_repeats;
  dec["beam_rules"] = softalign::beam_rules_name(c.decoding.beam_rules);
  d["decoding"] = dec;
  return d;
}

std::vector<std::pair<int, int>> links(const std::vector<softalign::AlignmentLink>& v) {
  std::vector<std::pair<int, int>> out;
  out.reserve(v.size());
  for (const auto& l : v) out.emplace_back(l.source, l.target);
  return out;
}

// A Model, or a non-empty list of them (an ensemble); anything else is a TypeError.
std::vector<std::shared_ptr<const softalign::Model>> models_of(const py::object& input) {
  if (py::isinstance<PyModel>(input)) return {input.cast<const PyModel&>().model};
  std::vector<std::shared_ptr<const softalign::Model>> out;
  if (py::isinstance<py::sequence>(input) && !py::isinstance<py::str>(input))
    for (const py::handle item : input.cast<py::sequence>()) {
      if (!py::isinstance<PyModel>(item)) throw py::type_error("model must be a Model or a list of Model");
      out.push_back(item.cast<const PyModel&>().model);
    }
  if (out.empty()) throw py::type_error("model must be a Model or a non-empty list of Model");
  return out;
}

// Text as the library takes it: a str's code points in UTF-8, lone surrogates
// included ("surrogatepass": ED A0..BF 80..BF, three bytes that are not UTF-8),
// so that the library's one rule for text decides (invalid_utf8, or one U+FFFD
// each with replace_invalid_utf8), as it does for a NUL and for the bytes of a
// C caller; pybind11's std::string caster refuses such a str with an error of
// its own. bytes (which that caster took) pass as they are. False for anything else.
bool text_of(py::handle h, std::string* out) {
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t n = 0;
    if (const char* utf8 = PyUnicode_AsUTF8AndSize(h.ptr(), &n)) {  // the common case: no surrogate
      out->assign(utf8, static_cast<std::size_t>(n));
      return true;
    }
    PyErr_Clear();
    const py::bytes b = py::reinterpret_steal<py::bytes>(PyUnicode_AsEncodedString(h.ptr(), "utf-8", "surrogatepass"));
    if (!b) throw py::error_already_set();
    *out = static_cast<std::string>(b);
    return true;
  }
  if (PyBytes_Check(h.ptr())) {
    *out = h.cast<std::string>();
    return true;
  }
  return false;
}

std::string text_arg(py::handle h, const char* what) {
  std::string text;
  if (!text_of(h, &text))
    throw py::type_error(std::string(what) + " must be a str, got " +
                         std::string(py::str(py::type::of(h).attr("__name__"))));
  return text;
}

// A list (or any sequence) of str; anything else is a TypeError.
std::vector<std::string> texts_of(const py::object& input) {
  if (py::isinstance<py::sequence>(input) && !py::isinstance<py::bytes>(input) && !py::isinstance<py::str>(input)) {
    std::vector<std::string> texts;
    bool ok = true;
    for (const py::handle item : input.cast<py::sequence>()) {
      texts.emplace_back();
      if (!text_of(item, &texts.back())) {
        ok = false;
        break;
      }
    }
    if (ok) return texts;
  }
  throw py::type_error("text must be a str or a list of str");
}

// Translator(glossary=...): (source, target) pairs of str.
std::vector<softalign::GlossaryTerm> glossary_of(const py::object& glossary) {
  std::vector<softalign::GlossaryTerm> terms;
  if (py::isinstance<py::sequence>(glossary) && !py::isinstance<py::str>(glossary) &&
      !py::isinstance<py::bytes>(glossary)) {
    for (const py::handle pair : glossary.cast<py::sequence>()) {
      softalign::GlossaryTerm t;
      if (!py::isinstance<py::sequence>(pair) || py::isinstance<py::str>(pair) || py::len(pair) != 2 ||
          !text_of(pair[py::int_(0)], &t.source) || !text_of(pair[py::int_(1)], &t.target))
        throw py::type_error("glossary must be a list of (source, target) pairs of str");
      terms.push_back(std::move(t));
    }
    return terms;
  }
  throw py::type_error("glossary must be a list of (source, target) pairs of str");
}

// The results for `input`, a str (one) or a list of str (one each, in
// order), translated without the GIL, one thread at a time.
struct Outcome {
  bool single = false;  // `input` was a str
  std::vector<softalign::TranslationResult> results;
  std::vector<softalign::Status> status;  // of each item; a failed list item gives a softalign.Error
};

// A str's failure raises, and so does a list's when the call itself is wrong
// (its search options or prefix); a list item that fails (too long, ...) costs
// only itself.
Outcome translate_input(PyTranslator& pt, const py::object& input, const softalign::SearchOptions& s) {
  Outcome o;
  o.single = py::isinstance<py::str>(input);
  std::vector<std::string> texts = o.single ? std::vector<std::string>{text_arg(input, "text")} : texts_of(input);
  o.results.resize(texts.size());
  o.status.resize(texts.size());
  softalign::Status call;
  run_interruptibly(pt, [&] {
    call = o.single ? pt.translator->translate(texts[0], s, &o.results[0])
                    : pt.translator->translate_batch(texts, s, &o.results, &o.status);
  });
  check(call);
  return o;
}

std::string best_text(const softalign::TranslationResult& r) {
  return r.hypotheses.empty() ? std::string() : r.hypotheses[0].text;
}

// translate_batch's item (CTranslate2's TranslationResult): the hypotheses as
// text, best first; their scores and word alignments when asked for (else empty).
// Byte ranges as Python's (begin, end) pairs.
std::vector<std::pair<std::size_t, std::size_t>> byte_ranges(const std::vector<softalign::TextRange>& ranges) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const softalign::TextRange& r : ranges) out.emplace_back(r.begin, r.end);
  return out;
}

struct PyBatchResult {
  std::vector<std::string> hypotheses;
  std::vector<float> scores;
  std::vector<float> confidences;
  std::vector<std::vector<std::pair<int, int>>> alignment;
};

PyBatchResult batch_result(const softalign::TranslationResult& r, bool scores, bool alignment) {
  PyBatchResult b;
  for (const auto& h : r.hypotheses) {
    b.hypotheses.push_back(h.text);
    b.confidences.push_back(h.confidence);
    if (scores) b.scores.push_back(h.score);
    if (alignment) b.alignment.push_back(links(h.alignment_words));
  }
  return b;
}

// translate_batch's `source`: a list (or any sequence) of str, and nothing
// else (a str, or lists of tokens as CTranslate2 takes them, is a TypeError).
std::vector<std::string> batch_source_of(const py::object& source) {
  if (py::isinstance<py::str>(source) || py::isinstance<py::bytes>(source) || !py::isinstance<py::sequence>(source))
    throw py::type_error("source must be a list of str (one str: use translate)");
  std::vector<std::string> texts;
  std::size_t i = 0;
  for (const py::handle item : source.cast<py::sequence>()) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error("source must be a list of str: item " + std::to_string(i) + " is a " +
                           std::string(py::str(py::type::of(item).attr("__name__"))) +
                           " (lists of tokens are not taken: pass the text)");
    texts.push_back(text_arg(item, "source"));
    ++i;
  }
  return texts;
}

// translate_batch's target_prefix: None (none), one str for every text, or a
// list of one per text (None or "" for none).
std::vector<std::string> batch_prefixes_of(const py::object& prefix, std::size_t n) {
  if (prefix.is_none()) return std::vector<std::string>(n);
  if (py::isinstance<py::str>(prefix)) return std::vector<std::string>(n, text_arg(prefix, "target_prefix"));
  if (py::isinstance<py::bytes>(prefix) || !py::isinstance<py::sequence>(prefix))
    throw py::type_error("target_prefix must be a str, a list of str (one per text) or None");
  std::vector<std::string> out;
  for (const py::handle item : prefix.cast<py::sequence>())
    out.push_back(item.is_none() ? std::string() : text_arg(item, "target_prefix's item"));
  if (out.size() != n)
    throw py::value_error("target_prefix: " + std::to_string(out.size()) + " prefixes for " + std::to_string(n) +
                          " texts (one per text, or one str for all)");
  return out;
}

// translate_batch over texts with their prefixes. The library takes one
// prefix a call, so each distinct prefix is one call of its texts (decoded
// together as usual), in order of first appearance. The deadline is the
// whole call's: each call gets what is left of it. A call stopped by
// cancel() or the deadline stops the rest: their texts get its status.
softalign::Status translate_batch_prefixed(softalign::Translator& tr, const std::vector<std::string>& texts,
                                           const std::vector<std::string>& prefixes, const softalign::SearchOptions& s,
                                           int run, std::vector<softalign::TranslationResult>* results,
                                           std::vector<softalign::Status>* status) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == prefixes[i]; });
    if (g == groups.end()) g = groups.insert(groups.end(), {prefixes[i], {}});
    g->second.push_back(i);
  }
  if (groups.empty()) groups.emplace_back();  // no text: one call all the same, which checks its options
  results->assign(texts.size(), {});
  status->assign(texts.size(), softalign::Status::Ok());
  const int timeout = s.timeout_ms.value_or(tr.options().search.timeout_ms.value_or(0));
  const auto start = std::chrono::steady_clock::now();
  std::optional<softalign::Status> stopped;
  for (const auto& [prefix, items] : groups) {
    if (stopped) {
      for (const std::size_t i : items) (*status)[i] = *stopped;
      continue;
    }
    std::vector<std::string> group;
    for (const std::size_t i : items) group.push_back(texts[i]);
    softalign::SearchOptions gs = s;
    gs.target_prefix = prefix;
    if (timeout > 0) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      gs.timeout_ms = std::max<int>(1, timeout - static_cast<int>(spent.count()));
    }
    std::vector<softalign::TranslationResult> r;
    std::vector<softalign::Status> st;
    const softalign::Status call = tr.translate_batch(group, gs, &r, &st, run);
    if (!call.ok()) return call;
    for (std::size_t k = 0; k < items.size(); ++k) {
      (*results)[items[k]] = std::move(r[k]);
      (*status)[items[k]] = st[k];
      if (st[k].code() == softalign::StatusCode::kCancelled || st[k].code() == softalign::StatusCode::kDeadlineExceeded)
        stopped = st[k];
    }
  }
  return softalign::Status::Ok();
}

// translate_iter's events (softalign.StreamEvent).
struct PyStreamEvent {
  std::string kind;  // "piece" or "sentence"
  std::size_t index = 0;
  int32_t id = -1;
  std::string text;
};

// translate_iter's iterator: the call runs on a thread of its own (holding
// the translator's lock), its stream callback queues the events, and
// __next__ takes them with the GIL released. Closing it early answers kStop
// at the next event and cancels the call, so it ends within a step.
class PyStream {
 public:
  PyStream(PyTranslator& pt, std::string text, const softalign::SearchOptions& search) : pt_(pt) {
    thread_ = std::thread([this, text = std::move(text), search] {
      std::lock_guard<std::mutex> lock(pt_.mutex);
      softalign::TranslationResult result;
      const softalign::Status st = pt_.translator->translate(
          text, search,
          [this](const softalign::StreamEvent& e) {
            const bool piece = e.kind == softalign::StreamEvent::Kind::kPiece;
            std::lock_guard<std::mutex> g(mu_);
            events_.push_back({piece ? "piece" : "sentence", e.index, piece ? e.id : -1,
                               std::string(piece ? e.piece : e.text)});
            cv_.notify_one();
            return stop_ ? softalign::StreamAction::kStop : softalign::StreamAction::kContinue;
          },
          &result);
      std::lock_guard<std::mutex> g(mu_);
      status_ = st;
      result_ = std::move(result);
      done_ = true;
      cv_.notify_one();
    });
  }
  ~PyStream() { close(); }
  PyStream(const PyStream&) = delete;
  PyStream& operator=(const PyStream&) = delete;

  // The next event; at the end the result (or the call's error) and StopIteration.
  PyStreamEvent next() {
    if (closed_) throw py::stop_iteration();
    bool interrupted = false;
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    {
      py::gil_scoped_release release;
      lock.lock();
      // Signals reach the main thread only: there, check them every 50 ms.
      const bool main = PyThread_get_thread_ident() == g_main_thread;
      while (!cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return !events_.empty() || done_; })) {
        if (!main) continue;
        lock.unlock();
        {
          py::gil_scoped_acquire gil;
          interrupted = PyErr_CheckSignals() != 0;
        }
        lock.lock();
        if (interrupted) break;
      }
    }
    if (interrupted) {
      lock.unlock();
      close();
      throw py::error_already_set();
    }
    if (!events_.empty()) {
      PyStreamEvent e = std::move(events_.front());
      events_.pop_front();
      return e;
    }
    lock.unlock();
    join();
    if (!closed_) check(status_);
    finished_ = status_.ok();
    throw py::stop_iteration();
  }

  // Stops the call (if still running) and waits for its thread. cancel()
  // stops the calls running when it is called: again every 10 ms until the
  // call is done, in case it had not begun (the stream's thread holds the
  // translator's lock for its call, so no other call is there to be hit).
  void close() {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mu_);
      if (!done_) {
        stop_ = true;
        closed_ = true;
        events_.clear();  // the iteration ends here
      }
      while (!done_) {
        pt_.translator->cancel();
        cv_.wait_for(lock, std::chrono::milliseconds(10));
      }
    }
    join();
  }

  py::object result() const {
    return finished_ ? py::cast(result_) : py::none();
  }

 private:
  void join() {
    if (!thread_.joinable()) return;
    py::gil_scoped_release release;
    thread_.join();
  }

  PyTranslator& pt_;  // kept alive by the iterator (keep_alive)
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<PyStreamEvent> events_;
  bool stop_ = false, closed_ = false, done_ = false, finished_ = false;
  softalign::Status status_;
  softalign::TranslationResult result_;
};

}  // namespace

PYBIND11_MODULE(_softalign, m) {
  m.doc() = "softalign: offline translation with attention RNN models (Bahdanau 2014, Luong 2015)";
  m.attr("__version__") = softalign::version();
  g_error_type = py::register_exception<StatusError>(m, "Error", PyExc_RuntimeError);
  g_cancelled_type = py::register_exception<CancelledError>(m, "Cancelled", g_error_type);
  g_deadline_type = py::register_exception<DeadlineError>(m, "DeadlineExceeded", g_error_type);
  g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  py::class_<PyStreamEvent>(m, "StreamEvent", "What translate_iter gives as the translation goes on.")
      .def_readonly("kind", &PyStreamEvent::kind, "'piece' (beam 1: a decoder step's piece) or 'sentence' (one done)")
      .def_readonly("index", &PyStreamEvent::index, "the sentence, from 0")
      .def_readonly("id", &PyStreamEvent::id, "a piece's target id; -1 for a sentence")
      .def_readonly("text", &PyStreamEvent::text, "the piece ('\u2581fichier') or the sentence's translation")
      .def("__repr__", [](const PyStreamEvent& e) {
        return "<softalign.StreamEvent " + e.kind + " " + std::to_string(e.index) + " " +
               py::repr(py::str(e.text)).cast<std::string>() + ">";
      });

  py::class_<PyStream>(m, "TranslationStream", "translate_iter's iterator of StreamEvents.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyStream::next)
      .def("close", &PyStream::close, "Stops the translation (if still running); the iteration then ends.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyStream& s, const py::args&) { s.close(); })
      .def_property_readonly("result", &PyStream::result,
                             "the Result once the iteration has ended with the whole translation, else None");
  m.def(
      "read_glossary",
      [](const py::object& tsv) {
        std::vector<softalign::GlossaryTerm> terms;
        check(softalign::parse_glossary_tsv(text_arg(tsv, "tsv"), &terms));
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& t : terms) out.emplace_back(t.source, t.target);
        return out;
      },
      py::arg("tsv"),
      "The (source, target) terms of a glossary in TSV text (\"source<TAB>target\" lines; '#' lines and blank "
      "ones skipped), for Translator(glossary=...); a bad line raises softalign.Error naming it.");

  m.def(
      "option_defaults",
      [] { return py::module_::import("json").attr("loads")(softalign::options_json(softalign::TranslatorOptions())); },
      "Every Translator option and its default, as a dict (None: the model's), from the library's one table.");

  py::class_<softalign::Hypothesis>(m, "Hypothesis")
      .def_readonly("text", &softalign::Hypothesis::text)
      .def_readonly("pieces", &softalign::Hypothesis::pieces)
      .def_readonly("ids", &softalign::Hypothesis::ids)
      .def_readonly("score", &softalign::Hypothesis::score, "log-prob / length penalty + coverage penalty")
      .def_readonly("log_prob", &softalign::Hypothesis::log_prob, "summed log-probability, EOS included")
      .def_readonly("placeholders_repaired", &softalign::Hypothesis::placeholders_repaired,
                    "the model's own text lacked a placeholder of the source (%s, {0}, <b>, &amp;...), held one "
                    "twice or another one, or nested the source's tags otherwise (repair_placeholders: repaired)")
      .def_readonly("confidence", &softalign::Hypothesis::confidence,
                    "how far to trust the text, in [0, 1]: with a calibrated model (Model.confidence_calibrated) "
                    "an estimate of its chrF / 100, else the geometric mean of its pieces' probabilities")
      .def_property_readonly(
          "confidence_features",
          [](const softalign::Hypothesis& h) {
            py::dict d;
            for (std::size_t f = 0; f < softalign::kConfidenceFeatureCount; ++f)
              d[py::str(softalign::kConfidenceFeatureNames[f])] = h.confidence_features.values[f];
            return d;
          },
          "what the confidence is made of: {feature name: value} (softalign/confidence.hpp)")
      .def_property_readonly(
          "attention",
          [](const softalign::Hypothesis& h) -> py::object {
            if (h.attention.empty()) return py::none();
            py::array_t<float> a({h.attention_rows, h.source_length});
            std::copy(h.attention.begin(), h.attention.end(), a.mutable_data());
            return std::move(a);
          },
          "soft alignment (numpy float32, target pieces + EOS rows x source pieces + EOS), or None")
      .def_property_readonly("alignment", [](const softalign::Hypothesis& h) { return links(h.alignment_pieces); },
                             "hard alignment over pieces: (source, target) pairs")
      .def_property_readonly("word_alignment",
                             [](const softalign::Hypothesis& h) { return links(h.alignment_words); },
                             "hard alignment over words: (source, target) pairs")
      .def_property_readonly("pharaoh", [](const softalign::Hypothesis& h) {
        return softalign::to_pharaoh(h.alignment_words);
      })
      .def("__repr__", [](const softalign::Hypothesis& h) {
        return "<softalign.Hypothesis " + py::repr(py::str(h.text)).cast<std::string>() +
               " score=" + std::to_string(h.score) + " confidence=" + std::to_string(h.confidence) + ">";
      });

  py::class_<softalign::TranslationResult>(m, "Result")
      .def_readonly("hypotheses", &softalign::TranslationResult::hypotheses, "best first")
      .def_readonly("source_pieces", &softalign::TranslationResult::source_pieces)
      .def_readonly("source_ids", &softalign::TranslationResult::source_ids, "with the EOS")
      .def_property_readonly(
          "protected_spans", [](const softalign::TranslationResult& r) { return byte_ranges(r.protected_spans); },
          "with copy_through: the source's protected spans (copied untranslated) as (begin, end) byte offsets "
          "into its UTF-8 text")
      .def_property_readonly(
          "glossary_matches", [](const softalign::TranslationResult& r) { return byte_ranges(r.glossary_matches); },
          "with a glossary: its terms' occurrences in the source, as (begin, end) byte offsets into its UTF-8 text")
      .def_property_readonly("text", [](const softalign::TranslationResult& r) {
        return r.hypotheses.empty() ? std::string() : r.hypotheses[0].text;
      });

  py::class_<PyBatchResult>(m, "TranslationResult",
                            "An item of Translator.translate_batch (CTranslate2's names): hypotheses (str, best "
                            "first), scores (with return_scores, else empty), alignment (with return_alignment, "
                            "else empty).")
      .def_readonly("hypotheses", &PyBatchResult::hypotheses, "the translations (str), best first")
      .def_readonly("scores", &PyBatchResult::scores,
                    "each hypothesis's score (log-prob / length penalty + coverage penalty) with return_scores, "
                    "else empty")
      .def_readonly("confidences", &PyBatchResult::confidences,
                    "each hypothesis's confidence in [0, 1] (Hypothesis.confidence)")
      .def_readonly("alignment", &PyBatchResult::alignment,
                    "each hypothesis's hard word alignment, (source word, target word) pairs, with "
                    "return_alignment, else empty")
      .def("__repr__", [](const PyBatchResult& b) {
        return "<softalign.TranslationResult hypotheses=" + py::repr(py::cast(b.hypotheses)).cast<std::string>() +
               (b.scores.empty() ? "" : " scores=" + py::repr(py::cast(b.scores)).cast<std::string>()) + ">";
      });

  py::class_<PyModel>(m, "Model", "An immutable loaded model; share it between translators and threads.")
      .def_static(
          "load",
          [](const std::string& path, bool copy) {
            // Opened as a C string: a NUL would end it there ("a\0b" opened "a").
            if (path.find('\0') != std::string::npos) throw py::value_error("path holds a NUL character");
            auto pm = std::make_unique<PyModel>();
            softalign::Status st;
            {
              py::gil_scoped_release release;
              st = softalign::Model::load(path, copy ? softalign::LoadMode::kCopy : softalign::LoadMode::kMap,
                                          &pm->model);
            }
            check(st);
            return pm;
          },
          py::arg("path"), py::kw_only(), py::arg("copy") = false,
          "Memory-maps and verifies a .softalign file (a path with a NUL: ValueError); the file must then stay "
          "unchanged (replace it by renaming a new file over it). copy=True reads it into memory instead: the file "
          "may then change, for its size in memory.")
      .def_static(
          "from_bytes",
          [](py::bytes data) {
            auto pm = std::make_unique<PyModel>();
            std::string_view view = data;
            check(softalign::Model::load_from_bytes(view.data(), view.size(), &pm->model));
            return pm;
          },
          py::arg("data"), "Loads a model from bytes (copied).")
      .def_property_readonly("config", [](const PyModel& pm) { return config_dict(pm.model->config()); })
      .def_property_readonly("name", [](const PyModel& pm) { return pm.model->config().name; })
      .def_property_readonly("src_lang", [](const PyModel& pm) { return pm.model->config().src_lang; })
      .def_property_readonly("tgt_lang", [](const PyModel& pm) { return pm.model->config().tgt_lang; })
      .def_property_readonly("weight_type",
                             [](const PyModel& pm) { return softalign::weight_type_name(pm.model->weight_type()); })
      .def_property_readonly("file_bytes", [](const PyModel& pm) { return pm.model->file_bytes(); })
      .def_property_readonly("schema_version", [](const PyModel& pm) { return pm.model->schema_version(); })
      .def_property_readonly("has_shortlist", [](const PyModel& pm) { return pm.model->has_shortlist(); })
      .def_property_readonly("confidence_calibrated",
                             [](const PyModel& pm) { return pm.model->confidence_calibrated(); },
                             "whether the file carries a confidence calibration (softalign-convert --confidence)")
      .def_property_readonly("confidence_fitted_on",
                             [](const PyModel& pm) { return std::string(pm.model->confidence_fitted_on()); },
                             "how the file's confidence calibration was fitted ('' without one)")
      .def_property_readonly("metadata",
                             [](const PyModel& pm) {
                               py::dict d;
                               for (const auto& [k, v] : pm.model->metadata()) d[py::str(k)] = v;
                               return d;
                             })
      .def(
          "encode",
          [](const PyModel& pm, const py::object& text) {
            std::vector<int32_t> ids;
            std::vector<std::string> pieces;
            check(pm.model->encode_source(text_arg(text, "text"), &ids, &pieces));
            return std::make_pair(ids, pieces);
          },
          py::arg("text"), "Source text to (ids with the EOS, pieces).")
      .def(
          "decode",
          [](const PyModel& pm, const std::vector<int32_t>& ids) {
            std::string text;
            check(pm.model->decode_target(ids.data(), ids.size(), &text));
            return text;
          },
          py::arg("ids"), "Target ids (no BOS/EOS) to text.")
      .def("__repr__", [](const PyModel& pm) {
        const auto& c = pm.model->config();
        return "<softalign.Model " + c.name + " " + c.src_lang + "-" + c.tgt_lang + " " +
               softalign::weight_type_name(pm.model->weight_type()) + ">";
      });

  py::class_<PyTranslator>(m, "Translator",
                           "A model prepared for a beam size and a source length (its memory is reserved once).")
      .def(py::init([](const py::object& model, const py::kwargs& options) {
             auto pt = std::make_unique<PyTranslator>();
             pt->models = models_of(model);
             // The options the caller gave, as JSON, to the library's one
             // table of names, types and defaults (softalign.option_defaults()).
             // The glossary's text is taken as text_of takes it (lone surrogates kept).
             py::dict given;
             py::object glossary;
             for (const auto& [name, value] : options) {
               if (py::str(name).cast<std::string>() == "glossary")
                 glossary = py::reinterpret_borrow<py::object>(value);
               else
                 given[name] = value;
             }
             softalign::TranslatorOptions o;
             const std::string json = py::module_::import("json").attr("dumps")(given).cast<std::string>();
             check(softalign::parse_options_json(json, &o));
             // A translator of lists unless told: its caller's rule (options.hpp, list_max_batch).
             if (!given.contains("max_batch"))
               o.max_batch = softalign::TranslatorOptions::list_max_batch(softalign::TranslatorOptions::kListBatch,
                                                                           o.threads);
             if (glossary) o.glossary = glossary_of(glossary);
             softalign::Status st;
             {
               py::gil_scoped_release release;
               st = softalign::Translator::prepare(pt->models, o, &pt->translator);
             }
             check(st);
             return pt;
           }),
           py::arg("model"),
           "model: a Model, or a list of Models sharing the target vocabulary (an ensemble: their log-probabilities "
           "averaged at each step). The options are keywords, named as in softalign.option_defaults() (which "
           "gives each one's default) and docs/api.md: beam, nbest, alpha, beta, max_len_a, max_len_b, "
           "block_repeats (None: the model's), max_source_tokens, split_long_input, replace_invalid_utf8, "
           "copy_through, repair_placeholders, glossary ((source, target) pairs; softalign.read_glossary reads a "
           "TSV file), max_batch (sentences of a list decoded together; unset, not the library's 1 but its batch for "
           "lists, TranslatorOptions::kListBatch, shared among the threads: docs/api.md), threads, device (\"cpu\", \"auto\" or "
           "\"vulkan\"), use_shortlist, kernels, max_arena_bytes, max_line_bytes. An unknown option or a value "
           "of the wrong type raises softalign.Error (invalid_argument), as a value out of range does.")
      .def(
          "translate",
          [](PyTranslator& pt, py::object input, std::optional<int> beam, std::optional<float> alpha,
             std::optional<float> beta, std::optional<float> max_len_a, std::optional<float> max_len_b,
             std::optional<int> block_repeats, std::optional<int> timeout_ms,
             const std::optional<std::string>& beam_rules) -> py::object {
            softalign::SearchOptions s =
                search_options(beam, 1, alpha, beta, max_len_a, max_len_b, block_repeats, timeout_ms, beam_rules);
            const Outcome o = translate_input(pt, input, s);
            if (o.single) return py::str(best_text(o.results[0]));
            py::list out;
            for (std::size_t i = 0; i < o.results.size(); ++i)
              out.append(o.status[i].ok() ? py::str(best_text(o.results[i])) : error_object(o.status[i]));
            return std::move(out);
          },
          py::arg("text"), py::kw_only(), py::arg("beam") = py::none(), py::arg("alpha") = py::none(),
          py::arg("beta") = py::none(), py::arg("max_len_a") = py::none(), py::arg("max_len_b") = py::none(),
          py::arg("block_repeats") = py::none(), py::arg("timeout_ms") = py::none(), py::arg("beam_rules") = py::none(),
          "The best translation of a str (-> str) or of each str of a list (-> list, in order). A str that "
          "fails (e.g. invalid_utf8 for a lone surrogate or a NUL) raises softalign.Error; in a list, an item that fails (e.g. input_too_long) gives a "
          "softalign.Error (not raised) in its place and the others their translations, while an error of the "
          "call itself (a beam over the prepared one) raises. timeout_ms: this call's deadline (0: none; None: "
          "the translator's), past which it raises softalign.DeadlineExceeded (a list: in each item not done); "
          "cancel() from another thread raises softalign.Cancelled, and Ctrl-C stops it (KeyboardInterrupt).")
      .def(
          "translate_nbest",
          [](PyTranslator& pt, py::object input, std::optional<int> nbest, std::optional<int> beam,
             std::optional<float> alpha, std::optional<float> beta, std::optional<float> max_len_a,
             std::optional<float> max_len_b, bool attention, bool alignment, const py::object& prefix,
             std::optional<int> block_repeats, std::optional<int> timeout_ms,
             const std::optional<std::string>& beam_rules) -> py::object {
            softalign::SearchOptions s =
                search_options(beam, nbest, alpha, beta, max_len_a, max_len_b, block_repeats, timeout_ms, beam_rules);
            s.return_attention = attention;
            s.return_alignment = alignment;
            s.target_prefix = text_arg(prefix, "prefix");
            Outcome o = translate_input(pt, input, s);
            if (o.single) return py::cast(std::move(o.results[0]));
            py::list out;
            for (std::size_t i = 0; i < o.results.size(); ++i)
              out.append(o.status[i].ok() ? py::cast(std::move(o.results[i])) : error_object(o.status[i]));
            return std::move(out);
          },
          py::arg("text"), py::kw_only(), py::arg("nbest") = py::none(), py::arg("beam") = py::none(),
          py::arg("alpha") = py::none(), py::arg("beta") = py::none(), py::arg("max_len_a") = py::none(),
          py::arg("max_len_b") = py::none(), py::arg("attention") = false, py::arg("alignment") = false,
          py::arg("prefix") = "", py::arg("block_repeats") = py::none(), py::arg("timeout_ms") = py::none(),
          py::arg("beam_rules") = py::none(),
          "A Result (or a list of them for a list, where an item that fails gives a softalign.Error in its place, "
          "as in translate): the n-best hypotheses with scores, pieces, ids and, "
          "on request, attention (soft alignment) and hard alignments. prefix: a target text every hypothesis "
          "starts with (interactive completion; its log-probabilities count in the scores). timeout_ms, "
          "cancel() and Ctrl-C: as in translate.")
      .def(
          "translate_batch",
          [](PyTranslator& pt, const py::object& source, std::optional<int> beam_size,
             std::optional<int> num_hypotheses, bool return_scores, std::optional<int> max_batch_size,
             bool return_alignment, std::optional<int> timeout_ms, const py::object& target_prefix) -> py::list {
            const std::vector<std::string> texts = batch_source_of(source);
            const std::vector<std::string> prefixes = batch_prefixes_of(target_prefix, texts.size());
            // At most the max_batch the translator was prepared for (its arena holds that many).
            const int prepared = pt.translator->options().max_batch;
            int run = 0;  // 0: max_batch
            if (max_batch_size.has_value() && *max_batch_size != 0) {
              if (*max_batch_size < 0 || *max_batch_size > prepared)
                throw py::value_error("max_batch_size must be 1 to the translator's max_batch (" +
                                      std::to_string(prepared) + "; Translator(max_batch=...)), or 0/None for it, got " +
                                      std::to_string(*max_batch_size));
              run = *max_batch_size;
            }
            softalign::SearchOptions s;
            s.beam_size = beam_size;
            s.nbest = num_hypotheses;
            s.return_alignment = return_alignment;
            s.timeout_ms = timeout_ms;
            // The library sorts by length and decodes runs of up to `run` together (TranslatorPool's policy).
            std::vector<softalign::TranslationResult> results;
            std::vector<softalign::Status> status;
            softalign::Status call;
            run_interruptibly(pt, [&] {
              call = translate_batch_prefixed(*pt.translator, texts, prefixes, s, run, &results, &status);
            });
            check(call);
            py::list out;
            for (std::size_t i = 0; i < texts.size(); ++i)
              out.append(status[i].ok() ? py::cast(batch_result(results[i], return_scores, return_alignment))
                                        : error_object(status[i]));
            return out;
          },
          py::arg("source"), py::kw_only(), py::arg("beam_size") = py::none(), py::arg("num_hypotheses") = py::none(),
          py::arg("return_scores") = false, py::arg("max_batch_size") = py::none(),
          py::arg("return_alignment") = false, py::arg("timeout_ms") = py::none(),
          py::arg("target_prefix") = py::none(),
          "CTranslate2's translate_batch: source, a list of str (text, not tokens) -> a list of "
          "TranslationResult in order (.hypotheses: num_hypotheses str, best first; .scores with return_scores; "
          ".alignment, word (source, target) pairs, with return_alignment). An item that fails gives a "
          "softalign.Error (not raised) in its place, as in translate; an error of the call itself (beam_size over "
          "the prepared beam, num_hypotheses over beam_size) raises. beam_size and num_hypotheses: unset, the "
          "translator's. max_batch_size: sentences decoded together, at most the translator's max_batch (more: "
          "ValueError; None or 0: max_batch); the library sorts the list by length and decodes runs of up to that "
          "many together. timeout_ms, cancel() and Ctrl-C: as in translate (the items not done by then get a "
          "softalign.DeadlineExceeded or softalign.Cancelled in their place). target_prefix: a target text "
          "each text's hypotheses start with, as translate_nbest's prefix: one str for all, or a list of one per "
          "text (None or '' for none); the texts of each prefix are decoded together.")
      .def(
          "translate_iter",
          [](PyTranslator& pt, const py::object& text, std::optional<int> beam, std::optional<int> timeout_ms) {
            softalign::SearchOptions s = search_options(beam, 1, std::nullopt, std::nullopt, std::nullopt,
                                                        std::nullopt, std::nullopt, timeout_ms);
            return std::make_unique<PyStream>(pt, text_arg(text, "text"), s);
          },
          py::arg("text"), py::kw_only(), py::arg("beam") = py::none(), py::arg("timeout_ms") = py::none(),
          py::keep_alive<0, 1>(),
          "Streaming: an iterator of StreamEvents as the translation of text goes on (it starts at once, on a "
          "thread of its own): with beam 1 each decoder step's piece (kind 'piece'), and each finished sentence "
          "(kind 'sentence'; a text within max_source_tokens is one, a longer one is split). The pieces are the "
          "result's, the sentences joined by a space its text; .result is the Result once the iterator is done. "
          "Leaving the loop early (break, close(), the iterator dropped) stops the call. Errors are raised by "
          "the iteration, as translate raises them.")
      .def(
          "cancel", [](PyTranslator& pt) { pt.translator->cancel(); },
          "Stops the call of this translator running now (from another thread): it raises softalign.Cancelled "
          "(a list: each item not done gets one). A later call runs as usual.")
      .def_property_readonly("max_batch", [](const PyTranslator& pt) { return pt.translator->options().max_batch; })
      .def_property_readonly("model", [](const PyTranslator& pt) { return PyModel{pt.models[0]}; })
      .def_property_readonly("models", [](const PyTranslator& pt) {
        py::list out;
        for (const auto& m : pt.models) out.append(PyModel{m});
        return out;
      })
      .def_property_readonly("kernels", [](const PyTranslator& pt) { return std::string(pt.translator->kernels_name()); })
      .def_property_readonly("backend", [](const PyTranslator& pt) { return pt.translator->backend_info().name; })
      .def_property_readonly("backend_reason", [](const PyTranslator& pt) { return pt.translator->backend_info().reason; })
      .def_property_readonly("device", [](const PyTranslator& pt) { return pt.translator->backend_info().device; })
      .def_property_readonly("arena_bytes", [](const PyTranslator& pt) { return pt.translator->arena_bytes(); })
      .def_property_readonly("max_source_tokens", [](const PyTranslator& pt) { return pt.translator->max_source_tokens(); })
      .def_property_readonly("max_target_tokens", [](const PyTranslator& pt) { return pt.translator->max_target_tokens(); })
      .def_property_readonly("beam", [](const PyTranslator& pt) {
        return pt.translator->options().search.beam_size.value_or(0);
      });
}
