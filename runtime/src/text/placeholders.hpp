// Placeholders: the parts of an interface string that the program formatting
// it reads (printf and Python formats, braces, Qt's %1) and markup (tags and
// entities). Each is a protected span (protect.hpp); repair_placeholders.hpp
// makes every one of a source come out exactly once.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "softalign/result.hpp"

namespace softalign::internal {

enum class PlaceholderKind {
  kFormat,    // %s, %-10.3f, %1$d, %lld, %(name)s, %% (printf, Python), %1 %L2 (Qt)
  kBrace,     // {0}, {count}, {}, {0:d}, {0, number}, {{name}} (ICU/Qt/Java/.NET/Python/Jinja)
  kTagOpen,   // <b>, <a href="...">
  kTagClose,  // </b>
  kTagEmpty,  // <br/>, <br>, <img src="x"> (HTML's void elements), <x/>
  kEntity,    // &amp; &#160; &#x2014; &Ctrl;
};

struct Placeholder {
  TextRange bytes;
  PlaceholderKind kind = PlaceholderKind::kFormat;
  std::string_view name;  // a tag's name (the kTag* kinds), else empty
};

// The placeholders of `text`, in order, disjoint and non-empty. Rules:
// - format: '%' then, either '%'; or '(' NAME ')' [flags] [width] [.prec]
//   CONVERSION (Python); or [N '$'] [flags -+#0'] [width|*] [.prec|.*]
//   [length hh h l ll L q j z t] CONVERSION (diouxXeEfFgGaAcspnCS@); else
//   [L] one or two digits (Qt's %1..%99). No space flag: "100% of" is prose.
// - brace: '{' then '}' (empty), or NAME (letters, digits, '_', '.', '-'; at
//   most 64 bytes) optionally followed by ':' ',' or '!' and up to 64 bytes
//   without braces or newlines, then '}'; or '{{' NAME '}}' with optional
//   spaces inside.
// - tag: '<' ['/'] NAME (an ASCII letter, then letters, UTF-8 ones too,
//   digits, ':' '_' '.' '-'), then optionally a space or tab and anything but
//   '<', '>' and newlines (the attributes, however garbled), then '>' ('/>':
//   an empty tag); at most 1024 bytes.
// - entity: '&' then a letter and 1 to 31 letters or digits, or '#' and 1 to
//   7 digits, or "#x" and 1 to 6 hex digits, then ';'.
// A match inside a link (links.hpp: a URL, e-mail address or path) is not a
// placeholder: "%C3" in "caf%C3%A9" is a percent-escape. `links`, when not
// null, receives those links (find_links), in order.
// Any bytes are accepted; linear in the text size.
std::vector<Placeholder> find_placeholders(std::string_view text, std::vector<TextRange>* links = nullptr);

// Which tags of `ph` (placeholders of one text, in order) form pairs: for
// each, the index of its partner, or -1 (not a tag, an empty tag, or a tag
// without a partner). A closing tag pairs with the innermost open tag of the
// same name (ASCII case ignored); the open tags above it are left unpaired.
std::vector<int> pair_tags(const std::vector<Placeholder>& ph);

// The paired tag enclosing each placeholder (the index of its opening tag),
// or -1; `partner` is pair_tags(ph).
std::vector<int> enclosing_tag(const std::vector<Placeholder>& ph, const std::vector<int>& partner);

}  // namespace softalign::internal
