// Copy-through of names and identifiers (TranslatorOptions::copy_through):
// the protected-span detector on crafted and hostile text, the restoration on
// a made-up hypothesis, unknown-word replacement on a golden model that emits
// <unk>, and the shipped en-fr model copying identifiers unchanged.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "copy_oracle.hpp"
#include "text/copy_through.hpp"
#include "golden_util.hpp"
#include "text/protect.hpp"

using namespace softalign;
using softalign::internal::find_protected_spans;

namespace {

// The protected spans of `text`, as strings.
std::vector<std::string> spans(std::string_view text) {
  std::vector<std::string> out;
  for (const TextRange& r : find_protected_spans(text)) out.emplace_back(text.substr(r.begin, r.end - r.begin));
  return out;
}

using Strings = std::vector<std::string>;

// Spans are in order, disjoint, non-empty and inside the text.
void check_well_formed(std::string_view text, const std::vector<TextRange>& r) {
  std::size_t last_end = 0;
  for (const TextRange& s : r) {
    REQUIRE(s.begin < s.end);
    REQUIRE(s.end <= text.size());
    REQUIRE(s.begin >= last_end);
    last_end = s.end;
  }
}

const std::string kUnk = "\xE2\x81\x87";  // ⁇, SentencePiece's rendering of <unk>

// `span` in `text` with no letter, digit or '_' glued to either end.
bool has_token(const std::string& text, const std::string& span) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(span); at != std::string::npos; at = text.find(span, at + 1)) {
    const std::size_t end = at + span.size();
    if ((at == 0 || !word(text[at - 1]) || !word(span.front())) &&
        (end == text.size() || !word(text[end]) || !word(span.back())))
      return true;
  }
  return false;
}

std::unique_ptr<Translator> prepare(std::shared_ptr<const Model> m, bool copy_through, int beam = 0) {
  TranslatorOptions o;
  o.copy_through = copy_through;
  if (beam) o.search.beam_size = beam;
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(std::move(m), o, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return tr;
}

}  // namespace

TEST_CASE("protected spans: each kind") {
  CHECK(spans("see http://example.org/a?b=1 now") == Strings{"http://example.org/a?b=1"});
  CHECK(spans("at www.debian.org.") == Strings{"www.debian.org"});
  CHECK(spans("mail <foo.bar@example.com>, please") == Strings{"foo.bar@example.com"});
  CHECK(spans("in /usr/share/doc and ~/.config or ./configure, ../x, a/b/c") ==
        Strings{"/usr/share/doc", "~/.config", "./configure", "../x", "a/b/c"});
  CHECK(spans("version 1.2.3, v5.3 and 2.6.32-5-amd64") == Strings{"1.2.3", "v5.3", "2.6.32-5-amd64"});
  // Numbers of two digits or more (the digits must survive: 13908 came out as "1 78").
  CHECK(spans("It contains 13908 headwords (2014), IEEE 1149-1, 2-12 times, 1,000 or 10:30.") ==
        Strings{"13908", "2014", "1149-1", "2-12", "1,000", "10:30"});
  CHECK(spans("dh_installcligac, wasy10, x86_64, libc6 and GtkWidget") ==
        Strings{"dh_installcligac", "wasy10", "x86_64", "libc6", "GtkWidget"});
  CHECK(spans("install libfoo-dev or foo-doc") == Strings{"libfoo-dev", "foo-doc"});
  CHECK(spans("HTTP::CookieJar, main(), $HOME, --help, -v") ==
        Strings{"HTTP::CookieJar", "main()", "$HOME", "--help", "-v"});
  CHECK(spans("yc.el and index.php") == Strings{"yc.el", "index.php"});
  CHECK(spans("cannot open \"%s\": %1$d") == Strings{"%s", "%1$d"});
  CHECK(spans("run `make install` now") == Strings{"`make install`"});
  CHECK(spans("run ``a `b` c`` now") == Strings{"``a `b` c``"});  // nested backquotes
}

TEST_CASE("protected spans: a link is one span, percent-escapes and all") {
  // Placeholder patterns do not match inside a URL, path or e-mail address
  // (%C3, %A9, %2F and %20 are escapes, not formats).
  CHECK(spans("Open https://example.com/search?q=caf%C3%A9 in a browser.") ==
        Strings{"https://example.com/search?q=caf%C3%A9"});
  CHECK(spans("at www.x.org/a%2Fb%20c, or /srv/%41/x.") == Strings{"www.x.org/a%2Fb%20c", "/srv/%41/x"});
  CHECK(spans("mail a%2Bb@example.com") == Strings{"a%2Bb@example.com"});
  CHECK(spans("see https://x.org/{id}/edit") == Strings{"https://x.org/{id}/edit"});
  CHECK(spans("in /home/%s/.config") == Strings{"/home/%s/.config"});
  // Formats alone between slashes stay formats; a tag ends a link.
  CHECK(spans("on %s/%s/%d and %1/%2/%3") == Strings{"%s", "%s", "%d", "%1", "%2", "%3"});
  CHECK(spans("<a href=\"http://x.org/%20\">http://x.org/y</a>") ==
        Strings{"<a href=\"http://x.org/%20\">", "http://x.org/y", "</a>"});
  CHECK(spans("%s/foo/bar") == Strings{"%s/foo/bar"});
}

TEST_CASE("protected spans: what is translated stays out") {
  CHECK(spans("").empty());
  CHECK(spans("   \t\n ").empty());
  CHECK(spans("A plain English sentence, with punctuation!").empty());
  CHECK(spans("e.g. i.e. U.S. and/or command-line, well-known").empty());
  CHECK(spans("64-bit 32-bit 2nd 3rd 10MB 57kB 2.4m 3D").empty());
  CHECK(spans("KDE GNOME USB, 1 or 7 100% - * ... -- `").empty());
  // Text quoted `like this' (TeX, Emacs) is not code.
  CHECK(spans("the `must be installed' list and `this'") .empty());
}

TEST_CASE("protected spans: edges, neighbours and brackets") {
  // At the very start and end, with nothing around them.
  CHECK(spans("x86_64") == Strings{"x86_64"});
  CHECK(spans("`a`") == Strings{"`a`"});
  CHECK(spans("wasy10 fonts for x86_64") == Strings{"wasy10", "x86_64"});
  // Brackets and quotes around a span are not part of it; its own are.
  CHECK(spans("(mips64r6el)") == Strings{"mips64r6el"});
  CHECK(spans("'dh_foo', \"libbar-dev\".") == Strings{"dh_foo", "libbar-dev"});
  CHECK(spans("call foo() or bar(x_y)") == Strings{"foo()", "bar(x_y)"});
  // Adjacent code spans, and code glued to a token.
  CHECK(spans("`a` `b`") == Strings{"`a`", "`b`"});
  CHECK(spans("(`make`)") == Strings{"`make`"});
  CHECK(spans("dh_a,dh_b") == Strings{"dh_a,dh_b"});  // one token
  // An unclosed backquote is no code; the identifier after it still counts.
  CHECK(spans("`open dh_foo") == Strings{"dh_foo"});
}

TEST_CASE("protected spans: hostile text") {
  // Every byte value, random mixtures of the characters the detector reads.
  std::mt19937 rng(17);
  const std::string alphabet = "ab_Z9 ./~@:-`'\"()<>%$\t\n\xC3\xA9\xFF\x80";
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 64, ' ');
    for (char& c : s) c = round % 2 ? static_cast<char>(rng() & 0xFF) : alphabet[rng() % alphabet.size()];
    check_well_formed(s, find_protected_spans(s));
  }
  // Huge inputs stay linear: a megabyte of identifiers, of backquotes, of
  // unclosed backquote runs, of one token.
  const auto t0 = std::chrono::steady_clock::now();
  std::string ids;
  for (int i = 0; i < 250000; ++i) ids += "a_b ";
  const auto r = find_protected_spans(ids);
  CHECK(r.size() == 250000);
  check_well_formed(ids, r);
  const std::string ticks(1 << 20, '`');
  CHECK(find_protected_spans(ticks).empty());
  std::string runs;
  for (int i = 0; runs.size() < (1u << 20); ++i) runs += std::string(1 + i % 7, '`') + "x ";
  check_well_formed(runs, find_protected_spans(runs));
  const std::string one_token(1 << 20, 'x');
  CHECK(find_protected_spans(one_token).empty());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_MESSAGE(seconds < 10.0, "detection took ", seconds, " s");
}

TEST_CASE("restoration: which target words are a copy, and what replaces them") {
  using internal::copy_like;
  using internal::replacement;
  CHECK(copy_like("dh_installclig", "dh_installcligac"));
  CHECK(copy_like("a1010", "wasy10"));         // two bytes and a digit
  CHECK(copy_like("Widget", "GtkWidget"));
  CHECK(!copy_like("pour", "dh_installcligac"));
  CHECK(!copy_like("de", "libfoo-dev"));       // two letters are not enough
  CHECK(!copy_like("dans", "`make install`"));
  CHECK(!copy_like("", "x86_64"));
  CHECK(copy_like("%", "%s"));                 // a format cut short
  CHECK(!copy_like("%", "wasy10"));
  // Elision, quotes and closing punctuation stay; brackets only when the source has them.
  CHECK(replacement("l'Grale,", "Gradle", ' ', ',') == "l'Gradle,");
  CHECK(replacement("d\xE2\x80\x99Grale", "Gradle", ' ', ' ') == "d\xE2\x80\x99Gradle");
  CHECK(replacement("(libfo-dev)", "libfoo-dev", '(', ')') == "(libfoo-dev)");
  CHECK(replacement("chroot-()", "chroot()s", ' ', '.') == "chroot()s");
  CHECK(replacement("foo(),", "foo()", ' ', ',') == "foo(),");  // the span's own ')' is not doubled
  // Compounds: the target words joined to the copy stay, its garbled parts go.
  CHECK(replacement("FarbCor-Bibliothek", "ColorCorrect", ' ', ' ') == "ColorCorrect-Bibliothek");
  CHECK(replacement("GNOME-UPnP-/DLNA-Dienste", "UPnP/DLNA", ' ', ' ') == "UPnP/DLNA-Dienste");
  CHECK(replacement("cl-ml2", "cl-lml2", ' ', ' ') == "cl-lml2");
  CHECK(replacement("Basis64-,", "base64", ' ', ',') == "base64,");
  CHECK(replacement("", "x86_64", ' ', ' ') == "x86_64");
}

TEST_CASE("unknown-word replacement: a golden model that emits <unk>") {
  // luong_dot's greedy translation of "with" holds <unk> (id 1) in golden.json.
  const nlohmann::json g = golden::load_json("luong_dot");
  const auto& sent = g["sentences"][0];
  REQUIRE(sent["src_text"] == "with");
  const nlohmann::json* greedy = nullptr;
  for (const auto& s : g["searches"])
    if (s["name"] == "greedy") greedy = &s;
  REQUIRE(greedy != nullptr);
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("luong_dot", "f32").string(), &m).ok());
  const SearchOptions so = golden::search_options(*greedy);
  TranslationResult on, off;
  REQUIRE(prepare(m, true, 4)->translate("with", so, &on).ok());
  REQUIRE(prepare(m, false, 4)->translate("with", so, &off).ok());
  const Hypothesis& h = on.hypotheses.at(0);
  // The model really emits <unk>, and the same ids either way.
  const std::vector<int32_t> unk_ids = golden::ids(sent["search"][0]["hyps"][0]["ids"]);
  REQUIRE(std::find(h.ids.begin(), h.ids.end(), m->config().unk_id) != h.ids.end());
  CHECK(h.ids == unk_ids);
  CHECK(off.hypotheses.at(0).ids == h.ids);
  CHECK(off.hypotheses.at(0).text.find(kUnk) != std::string::npos);
  CHECK(h.text.find(kUnk) == std::string::npos);
  CHECK(has_token(h.text, "with"));
  // The text around it is the model's: the <unk> became the aligned source word.
  std::string want = off.hypotheses.at(0).text;
  const std::size_t at = want.find(kUnk);
  want.replace(at, kUnk.size(), "with");
  std::string got = h.text;
  auto squeeze = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  };
  CHECK(squeeze(got) == squeeze(want));

  // Every <unk> of every hypothesis of every golden model is replaced.
  for (const std::string& name : golden::names()) {
    std::shared_ptr<const Model> gm;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &gm).ok());
    const nlohmann::json gj = golden::load_json(name);
    auto tr = prepare(gm, true, golden::widest_beam(gj));
    for (const auto& s : gj["sentences"])
      for (const auto& spec : gj["searches"]) {
        TranslationResult r;
        REQUIRE(tr->translate(s["src_text"].get<std::string>(), golden::search_options(spec), &r).ok());
        for (const Hypothesis& hyp : r.hypotheses) CHECK_MESSAGE(hyp.text.find(kUnk) == std::string::npos, name);
      }
  }
}

TEST_CASE("restoration: a span nothing aligns to is inserted, never dropped") {
  // A made-up hypothesis on a golden model: its attention puts every target
  // piece on the source's first word, none on the span.
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &m).ok());
  const std::string text = "with dh_foo tests";
  std::vector<int32_t> ids;
  std::vector<std::string> pieces;
  internal::CopyPlan plan;
  REQUIRE(internal::encode_for_copy(*m, text, true, nullptr, &ids, &pieces, &plan).ok());
  REQUIRE(plan.spans.size() == 1);
  const std::size_t S = ids.size();
  int first_span_piece = -1, last_span_piece = -1;
  for (std::size_t j = 0; j < plan.piece_span.size(); ++j)
    if (plan.piece_span[j] == 0) {
      if (first_span_piece < 0) first_span_piece = static_cast<int>(j);
      last_span_piece = static_cast<int>(j);
    }
  REQUIRE(first_span_piece > 0);
  REQUIRE(static_cast<std::size_t>(last_span_piece) + 2 < S);  // a piece after it, then EOS
  // Target: three pieces that start words ("▁..."), from the target vocabulary.
  std::vector<int32_t> tgt;
  for (int id = 4; id < m->config().tgt_vocab && tgt.size() < 3; ++id) {
    std::string t;
    std::vector<std::string> p;
    REQUIRE(m->decode_target(&id, 1, &t, &p).ok());
    if (p[0].rfind("\xE2\x96\x81", 0) == 0 && p[0].size() > 3 && t.find("dh_foo") == std::string::npos)
      tgt.push_back(id);
  }
  REQUIRE(tgt.size() == 3);
  auto run = [&](int source_of_first, int source_of_rest) {
    std::vector<float> att((tgt.size() + 1) * S, 0.0f);
    for (std::size_t i = 0; i < tgt.size(); ++i) att[i * S + (i == 0 ? source_of_first : source_of_rest)] = 1.0f;
    att[tgt.size() * S + S - 1] = 1.0f;  // EOS row
    HypothesisView v;
    v.ids = tgt.data();
    v.length = tgt.size();
    v.attention = att.data();
    v.attention_rows = tgt.size() + 1;
    v.source_length = S;
    Hypothesis h;
    REQUIRE(m->decode_target(tgt.data(), tgt.size(), &h.text, &h.pieces).ok());
    const std::string before = h.text;
    REQUIRE(internal::copy_through(*m, plan, v, 0, &h).ok());
    return std::make_pair(before, h.text);
  };
  // Everything on "with": nothing before the span aligns elsewhere, so the
  // span goes after the last word aligned to its left neighbour.
  {
    const auto [before, after] = run(0, 0);
    CHECK(after == before + " dh_foo");
  }
  // The first word on "with", the rest on "tests": after the first word.
  {
    const auto [before, after] = run(0, last_span_piece + 1);
    const std::size_t space = before.find(' ');
    REQUIRE(space != std::string::npos);
    CHECK(after == before.substr(0, space) + " dh_foo" + before.substr(space));
  }
  // A target word aligned to the span that does not look like it stays; the span is inserted.
  {
    const auto [before, after] = run(first_span_piece, 0);
    CHECK(has_token(after, "dh_foo"));
    CHECK(after.find(before.substr(0, before.find(' '))) != std::string::npos);
  }
}

TEST_CASE("restoration: no span is ever dropped, whatever the model writes") {
  // Random-weight golden models garble everything: every span goes through
  // replacement or insertion, and every one of them must be in the text.
  std::mt19937 rng(5);
  const std::vector<std::string> words = {"with", "the", "tests", "dh_foo", "wasy10", "x86_64", "/usr/bin",
                                          "http://a.org/x", "`a b`", "1.2.3", "GtkWidget", "--help", "%s",
                                          "(libfoo-dev)", "a@b.org,", "l'", "-", ".", "é", "`", "foo()"};
  for (const char* name : {"bahdanau", "luong_dot", "luong_local_p", "bahdanau_shared"}) {
    std::shared_ptr<const Model> m;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &m).ok());
    TranslatorOptions o;
    o.search.beam_size = 3;
    o.search.nbest = 3;
    std::unique_ptr<Translator> tr;
    REQUIRE(Translator::prepare(m, o, &tr).ok());
    for (int round = 0; round < 60; ++round) {
      std::string text;
      for (std::size_t n = 1 + rng() % 8; n > 0; --n) text += words[rng() % words.size()] + (rng() % 4 ? " " : "");
      TranslationResult r;
      const Status st = tr->translate(text, &r);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      for (const Hypothesis& h : r.hypotheses)
        for (const TextRange& span : r.protected_spans)
          CHECK_MESSAGE(h.text.find(text.substr(span.begin, span.end - span.begin)) != std::string::npos, name,
                        ": '", text, "' -> '", h.text, "'");
    }
  }
}

namespace {

std::shared_ptr<const Model> load_shipped(const char* pair) {
  const auto path = golden::source_dir() / ".." / ".." / "models" / pair / (std::string(pair) + ".int8.softalign");
  std::shared_ptr<const Model> m;
  const Status st = Model::load(path.string(), &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return m;
}

}  // namespace

TEST_CASE("the shipped en-fr model copies identifiers unchanged") {
  const auto m = load_shipped("en-fr");
  const std::vector<std::string> sources = {
      "* dh_installcligac to register assemblies to be late installed into a GAC",
      "* wasy10 - Waldi symbol fonts",
      "Install libfoo-dev and run `make install` in /usr/src/foo-1.2.3",
      "See http://xinehq.de/index.php/features/ or write to foo.bar@example.com.",
      "GtkWidget support for x86_64, version 2.6.32-5-amd64",
      "Use --enable-foo with the $HOME/.config/foo.conf file",
      "x86_64",
      "This package contains the documentation for request-tracker4 and python3-foo_bar",
  };
  auto on = prepare(m, true);
  auto off = prepare(m, false);
  std::vector<TranslationResult> batch;
  REQUIRE(on->translate_batch(sources, &batch).ok());
  int garbled_without = 0, spans_seen = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    TranslationResult r_on, r_off;
    REQUIRE(on->translate(sources[i], &r_on).ok());
    REQUIRE(off->translate(sources[i], &r_off).ok());
    CHECK(batch[i].hypotheses.at(0).text == r_on.hypotheses.at(0).text);  // the batch path copies too
    CHECK(r_on.hypotheses.at(0).ids == r_off.hypotheses.at(0).ids);        // the search is the same
    REQUIRE(!r_on.protected_spans.empty());
    CHECK(r_off.protected_spans.empty());
    for (const TextRange& s : r_on.protected_spans) {
      const std::string span = sources[i].substr(s.begin, s.end - s.begin);
      ++spans_seen;
      CHECK_MESSAGE(has_token(r_on.hypotheses.at(0).text, span), sources[i], " -> ", r_on.hypotheses.at(0).text,
                    " lacks ", span);
      garbled_without += !has_token(r_off.hypotheses.at(0).text, span);
    }
  }
  CHECK(spans_seen >= 15);
  // Without copy-through the model garbles some (else this test shows nothing).
  CHECK(garbled_without >= 3);
  // Nothing to copy, nothing changed.
  for (const char* plain : {"A small tool to manage your photos.", "This package contains the documentation."}) {
    TranslationResult a, b;
    REQUIRE(on->translate(plain, &a).ok());
    REQUIRE(off->translate(plain, &b).ok());
    CHECK(a.protected_spans.empty());
    CHECK(a.hypotheses.at(0).text == b.hypotheses.at(0).text);
  }
}

TEST_CASE("the shipped models copy a URL with percent-escapes whole and once") {
  // Random URLs of 30 to 235 bytes with %XX escapes, one or two a sentence:
  // each comes out exactly once, and no garbled copy of one is left beside it.
  std::mt19937 rng(5);
  auto pick = [&](std::initializer_list<const char*> xs) { return *(xs.begin() + rng() % xs.size()); };
  for (const char* pair : {"en-fr", "en-de"}) {
    auto tr = prepare(load_shipped(pair), true);
    int urls = 0;
    for (std::size_t n : {30, 60, 120, 235}) {
      for (int round = 0; round < 3; ++round) {
        std::vector<std::string> us;
        for (int k = 0; k < 1 + round % 2; ++k) {
          std::string u = pick({"https://example.org/", "http://www.test-site.de/", "ftp://files.example.net/pub/"});
          while (u.size() < n) {
            const unsigned r = rng() % 20;
            if (r < 5) u += pick({"%2F", "%20", "%C3%A9", "%41", "%3D"});
            else if (r < 7) u += '/';
            else if (r < 8) u += pick({"?q=", "&x=", "#"});
            else for (unsigned c = 0, len = 2 + rng() % 6; c < len; ++c) u += "abcdefghijklmnopqrstuvwxyz0123456789"[rng() % 36];
          }
          u.resize(n);
          while (u.back() == '%' || u.back() == '.' || u.back() == '?' || u.back() == '#') u.pop_back();
          us.push_back(u);
        }
        const std::string source = us.size() == 1 ? "Open " + us[0] + " in a browser."
                                                  : "Visit " + us[0] + " or " + us[1] + " for details.";
        TranslationResult r;
        REQUIRE(tr->translate(source, &r).ok());
        std::string rest = r.hypotheses.at(0).text;
        for (const std::string& u : us) {
          ++urls;
          std::size_t count = 0;
          for (std::size_t at = rest.find(u); at != std::string::npos; at = rest.find(u, at + 1)) ++count;
          CHECK_MESSAGE(count == 1, source, " -> ", r.hypotheses.at(0).text);
          if (const std::size_t at = rest.find(u); at != std::string::npos) rest.erase(at, u.size());
        }
        CHECK_MESSAGE(rest.find("://") == std::string::npos, source, " -> ", r.hypotheses.at(0).text);
      }
    }
    CHECK(urls == 16);
  }
}

TEST_CASE("copy-through with long inputs split in parts") {
  const auto m = load_shipped("en-fr");
  TranslatorOptions o;
  o.max_source_tokens = 16;  // forces the split
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, o, &tr).ok());
  const std::string text =
      "Install libfoo-dev first. Then run dh_installcligac and wasy10 on x86_64 machines with version 2.6.32 "
      "of the kernel, and read /usr/share/doc/foo/README.";
  TranslationResult r;
  REQUIRE(tr->translate(text, &r).ok());
  REQUIRE(r.protected_spans.size() == 6);
  for (const TextRange& s : r.protected_spans)
    CHECK(has_token(r.hypotheses.at(0).text, text.substr(s.begin, s.end - s.begin)));
  // Code in backquotes with clause and sentence punctuation inside stays in
  // one part, so it comes through whole.
  const std::string code = "To build the package from its sources, run `make clean, all; make install. Then test` "
                           "in the top folder, as the README explains";
  REQUIRE(tr->translate(code, &r).ok());
  CHECK(r.hypotheses.at(0).text.find("`make clean, all; make install. Then test`") != std::string::npos);
}

TEST_CASE("the copy-through promise as an oracle: generated spans, each exactly as often as in the source") {
  // The fuzz target fuzz_copy_through checks the same over the bytes libFuzzer
  // chooses; here 300 sources a pair from a seeded generator.
  for (const char* pair : {"en-fr", "en-de"}) {
    auto tr = prepare(load_shipped(pair), true);
    std::mt19937 rng(pair[3] == 'f' ? 1 : 2);
    int failed = 0;
    for (int i = 0; i < 300; ++i) {
      std::vector<uint8_t> bytes(64);
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
      copy_oracle::Choices choices(bytes.data(), bytes.size());
      const copy_oracle::Source source = copy_oracle::generate(choices);
      TranslationResult r;
      REQUIRE(tr->translate(source.text, &r).ok());
      const std::string wrong = copy_oracle::check(source, r.hypotheses.at(0).text);
      failed += !wrong.empty();
      CHECK_MESSAGE(wrong.empty(), pair, ": ", wrong);
    }
    CHECK(failed == 0);
  }
}
